import { screen, type ConsoleArea } from '../console/area';

/** Wallets, their ledger and statements, and a dealer's own wallet. */
export const walletsArea: ConsoleArea = {
  resources: [
    // The API's wallet list needs 'view wallets', so the screen does too (docs/decisions.md, "Money").
    {
      name: 'wallets',
      recordRepresentation: (w: { dealer?: { name: string } }) => w.dealer?.name ?? '',
      permissions: ['view wallets'],
      list: screen(() => import('./WalletList')),
      hasRecordPage: true,
      // A wallet's statement over a period (GET /wallets/{id}/statement).
      children: [{ path: ':id/statement', permissions: ['view wallets'], screen: screen(() => import('./WalletStatementPage')) }],
    },
    {
      name: 'wallet-transactions',
      recordRepresentation: 'reference',
      permissions: ['view wallet transactions'],
      list: screen(() => import('./WalletTransactionList')),
      hasRecordPage: false,
    },
  ],
  // A wallet of one's own is a dealer's (GET /my-wallet answers 404 for anyone else).
  pages: [{ path: '/my-wallet', permissions: ['view own wallet'], userTypes: ['dealer'], screen: screen(() => import('./MyWalletPage')) }],
  menu: [
    // Badges: top-up and payout requests waiting (usePendingRequestCount.ts) and wallets under their low-balance alert (useBelowAlertCount.ts).
    {
      key: 'wallets',
      label: 'menu.wallets',
      path: '/wallets',
      section: 'management',
      group: 'wallets-group',
      order: 10,
      badge: ['money_requests', 'below_alert'],
    },
    { key: 'my-wallet', label: 'menu.my_wallet', path: '/my-wallet', section: 'management', group: 'wallets-group', order: 20 },
    { key: 'wallet-transactions', label: 'menu.wallet_transactions', path: '/wallet-transactions', section: 'management', group: 'wallets-group', order: 30 },
  ],
};
