import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ensureAdminBuild, launchBrowser, newPage, signIn, startServer, type Server } from './harness';

/**
 * A sale whose outcome nobody can tell, end to end: the customer buys for a number the
 * stand-in aggregator never delivers to (ends in 4444), the worker asks, sends again under the
 * same reference, and after the review window (shortened here) puts the sale in the console's
 * "Needs review" queue. An admin sees it there (with the menu's count and the remote calls),
 * settles it as delivered with a note, and the customer's order page then says it is done. And a
 * purchase the dealer's wallet cannot pay: refused, and listed for the admin as a missed sale.
 */
let server: Server;
let browser: Browser;

beforeAll(async () => {
  ensureAdminBuild();
  [server, browser] = await Promise.all([
    startServer({
      RECHARGE_REVIEW_AFTER_MS: '3000',
      RECHARGE_RETRY_BASE_MS: '200',
      RECHARGE_RECONCILE_MS: '1000',
      PAYMENT_SANDBOX_APPROVAL_MS: '200',
      OPERATOR_SANDBOX_LATENCY_MS: '100',
    }),
    launchBrowser(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function api(path: string, init: { method?: string; token?: string; body?: unknown } = {}) {
  const res = await fetch(`${server.url}/api/v1${path}`, {
    method: init.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: await res.json() };
}

describe('a sale nobody can tell about', () => {
  it('waits for review, is settled as delivered in the console, and the customer is told it arrived', async () => {
    const login = await api('/auth/admin/login', { method: 'POST', body: { email: 'admin@example.com', password: 'Admin@12345' } });
    const token = login.body.data.token as string;
    const wallets = await api('/wallets?q=DEMO', { token });
    const wallet = wallets.body.data[0];
    expect((await api(`/wallets/${wallet.id}/top-up`, { method: 'POST', token, body: { amount: '5.00', reference: 'review-e2e' } })).status).toBe(200);

    // The customer, on a phone.
    const shop = await browser.newContext({ baseURL: server.url, locale: 'en-US', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const phone = await shop.newPage();
    phone.setDefaultTimeout(30_000);
    await phone.goto('/dealer/DEMO');
    await phone.getByRole('link', { name: 'Hormuud' }).click();
    await phone.getByRole('link', { name: /Daily/ }).click();
    await phone.getByRole('button', { name: 'Buy 1 GB Daily' }).click();
    const dialog = phone.getByRole('dialog', { name: 'Buy 1 GB Daily' });
    await dialog.getByLabel('Number to top up').fill('0615554444');
    await dialog.getByRole('button', { name: 'Pay $0.50' }).click();
    await dialog.getByText('We are confirming your purchase', { exact: true }).waitFor({ timeout: 60_000 });
    await dialog.getByText('There is nothing you need to do, and no need to pay again.', { exact: false }).waitFor();
    const orderPath = (await dialog.getByRole('link', { name: 'Open your order page' }).getAttribute('href'))!;
    const reference = orderPath.split('/').pop()!;
    expect(reference).toMatch(/^RC[A-Z0-9]{10}$/);

    // The sale waits in review with its reason, the reserve held and nothing delivered.
    const listed = await api(`/recharges?status=needs_review`, { token });
    const sale = listed.body.data.find((r: { reference: string }) => r.reference === reference);
    expect(sale).toMatchObject({ status: 'needs_review', payment_state: 'reserved' });
    expect(sale.review_reason).toBeTruthy();
    expect((await api('/recharges/review-count', { token })).body.data.count).toBe(1);

    // The admin, in the console.
    const { context, page, errors } = await newPage(browser, server.url);
    await signIn(page);
    // The Recharges group carries the count; opened, its "Needs review" item too.
    const nav = page.getByRole('navigation').first();
    const group = nav.getByRole('button', { name: /Recharges/ });
    await expect.poll(() => group.textContent()).toContain('1');
    await group.click();
    const menuItem = nav
      .getByRole('link', { name: /Needs review/ })
      .or(nav.getByRole('menuitem', { name: /Needs review/ }))
      .first();
    await expect.poll(() => menuItem.textContent()).toContain('1');
    await menuItem.click();
    await page.waitForURL('**/recharges/review');
    // The queue's own screen (loaded on demand; until it is, the list opened before may still show).
    await page.getByRole('heading', { name: 'Needs review', level: 1 }).waitFor();
    await page.getByText(reference).click();
    // The list keeps its query string (its filters may have written one by now) on the record's URL.
    await page.waitForURL(/\/recharges\/review\/\d+(\?.*)?$/);
    const drawer = page.getByRole('region', { name: 'Settle this sale' });
    await drawer.waitFor();
    // The remote calls the worker made, request by request, are there to judge by.
    await page.getByText('API_PREAUTHORIZE', { exact: true }).first().waitFor();

    // A note is required; then the outcome, confirmed.
    await drawer.getByRole('button', { name: 'Settle…' }).click();
    await drawer.getByText('Choose delivered or not delivered').waitFor();
    await drawer.getByText('Write down why').waitFor();
    await drawer.getByRole('radio', { name: 'Delivered', exact: true }).check();
    await drawer.getByRole('textbox', { name: /Note/ }).fill('Hormuud confirmed the bundle on the customer call');
    await drawer.getByRole('button', { name: 'Settle…' }).click();
    const confirm = page.getByRole('dialog', { name: `Settle ${reference} as delivered?` });
    await confirm.getByRole('button', { name: 'Yes, delivered' }).click();
    await confirm.waitFor({ state: 'detached' });

    const after = await api(`/recharges/${sale.id}`, { token });
    expect(after.body.data.recharge).toMatchObject({ status: 'completed', review_outcome: 'delivered', payment_state: 'collected' });
    expect((await api('/recharges/review-count', { token })).body.data.count).toBe(0);
    expect(errors).toEqual([]);
    await context.close();

    // The customer's order page (opened later from its link) now says it arrived.
    await phone.goto(orderPath);
    await phone.getByRole('heading', { name: `Order ${reference}` }).waitFor();
    await phone.getByText('Done! Your bundle is active', { exact: true }).waitFor();
    await shop.close();
  });

  it('a purchase the wallet cannot pay is refused and kept as a missed sale, on the dashboard and its list', async () => {
    const login = await api('/auth/admin/login', { method: 'POST', body: { email: 'admin@example.com', password: 'Admin@12345' } });
    const token = login.body.data.token as string;
    const wallet = (await api('/wallets?q=DEMO', { token })).body.data[0];
    if (Number(wallet.balance) > 0) {
      const emptied = await api(`/wallets/${wallet.id}/adjust`, {
        method: 'POST',
        token,
        body: { type: 'debit', amount: wallet.balance, reference: 'review-e2e-empty', note: 'Emptied for the missed-sale test' },
      });
      expect(emptied.status).toBe(200);
    }
    const headers = { dealer_code: 'DEMO' };
    const providers = await fetch(`${server.url}/api/v1/client/dealer/providers`, { headers }).then((r) => r.json());
    const bundle = providers.data.providers[0].categories
      .flatMap((c: { bundles: { id: number; name: string }[] }) => c.bundles)
      .find((b: { name: string }) => b.name === '1 GB Daily');
    const methods = await fetch(`${server.url}/api/v1/client/payment-methods`, { headers }).then((r) => r.json());
    const refused = await fetch(`${server.url}/api/v1/client/recharge`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        bundle_id: bundle.id,
        payment_method_id: methods.data[0].id,
        phone: '0615121212',
        payer_phone: '0617000021',
        idempotency_key: 'review-e2e-missed',
      }),
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);

    const { context, page, errors } = await newPage(browser, server.url);
    await signIn(page);
    await page.waitForURL(/\/dashboard$/);
    await page.getByText('1 sale missed today', { exact: true }).waitFor();
    await page.goto('/missed-sales');
    await page.getByRole('heading', { name: 'Missed sales', level: 1 }).waitFor();
    const row = page.getByRole('row').filter({ hasText: '1 GB Daily' });
    await row.filter({ hasText: 'Demo Dealer' }).first().waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
