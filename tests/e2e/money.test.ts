import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN, DEALER, buyFromDemoShop, newPage, signIn, useServerAndBrowser } from './harness';

/**
 * Money in the browser: an admin tops up the DEMO dealer's wallet, a customer buys through the
 * storefront API, the recharge completes on /recharges, and the dealer sees its balance change on
 * /my-wallet.
 */
const env = useServerAndBrowser();

async function signedIn(who: typeof ADMIN, path: string): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
  const { context, page, errors } = await newPage(env.browser, env.server.url);
  await signIn(page, who, `/auth/login?redirect=${encodeURIComponent(path)}`);
  await page.waitForURL((u) => u.pathname === path);
  return { page, errors, close: () => context.close() };
}

describe('a sale from top-up to delivery', () => {
  it('tops up DEMO, sells through the API, completes on /recharges, and the dealer sees the balance', async () => {
    const admin = await signedIn(ADMIN, '/wallets');
    const row = admin.page.getByRole('row').filter({ hasText: 'DEMO' });
    await row.getByText('0.00 USD').waitFor();
    await row.getByRole('button', { name: 'Top up' }).click();
    const dialog = admin.page.getByRole('dialog', { name: /Top up Demo Dealer/ });
    await dialog.getByLabel('Amount').fill('12.5');
    await dialog.getByLabel('Reference').fill('EVC-E2E-1');
    await dialog.getByRole('button', { name: 'Top up' }).click();
    await admin.page.getByText('Wallet topped up with 12.50. Balance: 12.50').first().waitFor();
    await row.getByText('12.50 USD').waitFor();

    // A customer buys the Hormuud 1 GB Daily bundle from the DEMO storefront.
    const sale = await buyFromDemoShop(env.server, { phone: '0615123456', idempotencyKey: 'e2e-sale-0001' });
    expect(sale.status).toBe(201);
    const { data } = sale;

    await admin.page.goto(`/recharges/${data.id}`);
    const detail = admin.page.getByRole('dialog', { name: 'Recharge' });
    await detail.getByText(data.reference).first().waitFor();
    await detail.getByText('Completed').waitFor({ timeout: 30_000 });
    await detail.getByText('Sale (cost)').waitFor();
    expect(admin.errors).toEqual([]);
    await admin.close();

    const dealer = await signedIn(DEALER, '/my-wallet');
    // 12.50 less the cost of 1 GB Daily (0.40).
    await dealer.page.getByTestId('my-balance').getByText('12.10 USD').waitFor();
    await dealer.page.getByRole('figure', { name: /Closing balance per day/ }).waitFor();
    await dealer.page.getByRole('cell', { name: 'EVC-E2E-1' }).waitFor();
    await dealer.page.goto('/recharges');
    await dealer.page.getByRole('row').filter({ hasText: data.reference }).getByText('Completed').waitFor();
    expect(dealer.errors).toEqual([]);
    await dealer.close();
  });
});
