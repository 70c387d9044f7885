/** Links into the Wallets page from elsewhere (the dashboard), without loading the page's code. */

/** The id of the pending top-up and payout requests' card, the first on the Wallets page. */
export const MONEY_REQUESTS_ANCHOR = 'money-requests';
export const MONEY_REQUESTS_PATH = `/wallets#${MONEY_REQUESTS_ANCHOR}`;

/** The Wallets page filtered to the wallets under their low-balance alert (react-admin keeps list filters in `filter`). */
export const BELOW_ALERT_PATH = `/wallets?filter=${encodeURIComponent(JSON.stringify({ below_alert: true }))}`;
