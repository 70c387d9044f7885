import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN, DEALER, artifactPath, useServerAndBrowser, signedInAt } from './harness';

/**
 * API keys in the browser and on the wire: the DEMO dealer makes a key on /api-keys (shown once,
 * copied), its own system calls the reseller API with it, the call shows on the key's page, and
 * revoking it (after the confirmation) stops the next call. An admin makes one for a dealer it
 * picks. Screenshots at 390 px and in Arabic (right to left).
 */
const env = useServerAndBrowser();

const signedIn = (who: typeof ADMIN, path: string, viewport?: { width: number; height: number }) => signedInAt(env, who, path, viewport);

const reseller = (key: string, path: string) => fetch(`${env.server.url}/api/reseller/v1${path}`, { headers: { Authorization: `Bearer ${key}` } });

async function createKey(page: Page, name: string, mode: 'Live' | 'Test' = 'Live'): Promise<string> {
  await page.getByRole('button', { name: 'New key' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New API key' });
  await dialog.getByLabel('Name').fill(name);
  if (mode === 'Test') await dialog.getByRole('radio', { name: /^Test/ }).check();
  await dialog.getByRole('button', { name: 'Create key' }).click();
  const shown = page.getByRole('dialog', { name: 'Your new API key' });
  await shown.getByText('You will not see it again', { exact: false }).waitFor();
  return shown.getByLabel('API key').inputValue();
}

describe('API keys', () => {
  it('a dealer makes a key, sees it once, its system uses it, the call is listed, and revoking stops it', async () => {
    const { page, errors, close } = await signedIn(DEALER, '/api-keys');
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await page.getByText('No API keys yet.').waitFor();
    const key = await createKey(page, 'Shop till');
    expect(key).toMatch(/^rk_live_[A-Za-z0-9]{12}_[A-Za-z0-9]{40}$/);
    const shown = page.getByRole('dialog', { name: 'Your new API key' });
    await shown.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Key copied').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await shown.getByRole('button', { name: 'I have copied it' }).click();
    await shown.waitFor({ state: 'detached' });

    // The dealer's own system: the catalogue at its prices.
    const catalogue = await reseller(key, '/catalogue');
    expect(catalogue.status).toBe(200);
    expect((await catalogue.json()).data.providers.length).toBeGreaterThan(0);

    // The list shows the key by its prefix only; its page lists the call.
    const row = page.getByRole('row').filter({ hasText: 'Shop till' });
    await row.getByText(key.slice(0, 20)).waitFor();
    expect(await page.getByText(key).count()).toBe(0);
    await row.getByText('Shop till').click();
    const drawer = page.getByRole('region', { name: 'Shop till' });
    await drawer.getByText('GET /api/reseller/v1/catalogue').waitFor();
    await drawer.getByRole('button', { name: /^Revoke/ }).click();
    await page.getByRole('dialog', { name: 'Revoke “Shop till”?' }).getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('API key “Shop till” revoked').waitFor();
    expect((await reseller(key, '/catalogue')).status).toBe(401);
    await page
      .getByRole('row')
      .filter({ hasText: 'Shop till' })
      .getByText(/^Revoked/)
      .waitFor();
    expect(errors).toEqual([]);
    await close();
  });

  it('an admin makes a key for the dealer it picks', async () => {
    const { page, errors, close } = await signedIn(ADMIN, '/api-keys');
    await page.getByRole('button', { name: 'New key' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New API key' });
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await dialog.getByText('Choose the dealer').waitFor();
    await dialog.getByRole('combobox', { name: /^Dealer/ }).fill('DEMO');
    await page.getByRole('option', { name: 'Demo Dealer (DEMO)' }).click();
    await dialog.getByLabel('Name').fill('Demo website');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const key = await page.getByRole('dialog', { name: 'Your new API key' }).getByLabel('API key').inputValue();
    const wallet = await (await reseller(key, '/wallet')).json();
    expect(wallet.data.wallet.dealer.dealer_code).toBe('DEMO');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByRole('row').filter({ hasText: 'Demo website' }).getByText('Demo Dealer').waitFor();
    expect(errors).toEqual([]);
    await close();
  });

  it('a test key sells in the sandbox: its sale is marked Test in the console, paid from the test wallet, which is reset after a confirmation', async () => {
    const { page, errors, close } = await signedIn(DEALER, '/api-keys');
    const key = await createKey(page, 'Sandbox till', 'Test');
    expect(key).toMatch(/^rk_test_[A-Za-z0-9]{12}_[A-Za-z0-9]{40}$/);
    await page.getByRole('dialog', { name: 'Your new API key' }).getByText('This is a test key', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByRole('row').filter({ hasText: 'Sandbox till' }).getByText('Test', { exact: true }).waitFor();
    await page.getByText('1000.00 USD').waitFor();

    // Its system sells, paid from the test wallet (the API suite checks the live wallet stays).
    expect((await (await reseller(key, '/wallet')).json()).data.wallet.balance).toBe('1000.00');
    const catalogue = (await (await reseller(key, '/catalogue')).json()).data;
    const bundle = catalogue.providers[0].categories[0].bundles[0];
    const sold = await fetch(`${env.server.url}/api/reseller/v1/recharges`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'e2e-test-sale-1' },
      body: JSON.stringify({ bundle_id: bundle.id, phone: '0615123456', payment: 'wallet' }),
    });
    expect(sold.status).toBe(201);
    const sale = (await sold.json()).data;
    expect(sale.mode).toBe('test');
    await page.reload();
    await page.getByText(`${((100000 - Math.round(Number(bundle.cost) * 100)) / 100).toFixed(2)} USD`).waitFor();

    // The console's sales: not among the live ones; on the test list, marked.
    await page.goto(`${env.server.url}/recharges`);
    await page.getByRole('heading', { name: 'Recharges', level: 1 }).waitFor();
    // The dealer has made no live sale: the live list is empty (its empty page), the test sale not in it.
    await page.getByText('No sales yet.', { exact: false }).waitFor();
    expect(await page.getByText(sale.reference).count()).toBe(0);
    await page.goto(`${env.server.url}/recharges?filter=${encodeURIComponent(JSON.stringify({ mode: 'test' }))}`);
    const row = page.getByRole('row').filter({ hasText: '615123456' }).first();
    await row.getByText('Test', { exact: true }).waitFor();

    // The reset asks first, then the balance is back.
    await page.goto(`${env.server.url}/api-keys`);
    await page.getByRole('button', { name: 'Reset test balance' }).click();
    await page.getByRole('dialog', { name: 'Reset the test balance?' }).getByRole('button', { name: /reset/i }).last().click();
    await page.getByText('The test wallet is back to its starting balance.').waitFor();
    await page.getByRole('dialog', { name: 'Reset the test balance?' }).waitFor({ state: 'detached' });
    await page.getByText('1000.00 USD').waitFor();
    expect(errors).toEqual([]);
    await close();
  });

  it('at 390 px and in Arabic: the list as a simple list and the key dialog, nothing sideways', async () => {
    const { page, errors, close } = await signedIn(DEALER, '/api-keys', { width: 390, height: 844 });
    await createKey(page, 'Phone till');
    await page.screenshot({ path: artifactPath('api-keys-390-created.png'), fullPage: true });
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByText('Phone till').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: artifactPath('api-keys-390.png'), fullPage: true });

    await page.getByTestId('language-switcher').click();
    await page.getByRole('menuitem', { name: 'العربية' }).click();
    await page.getByRole('heading', { name: 'مفاتيح API', level: 1 }).waitFor();
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await page.getByRole('button', { name: 'مفتاح جديد' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'مفتاح API جديد' });
    await dialog.getByLabel('الاسم').fill('');
    await dialog.getByRole('button', { name: 'إنشاء المفتاح' }).click();
    await dialog.getByText('الاسم مطلوب').waitFor();
    await page.screenshot({ path: artifactPath('api-keys-390-ae-dialog.png'), fullPage: true });
    await dialog.getByRole('button', { name: 'إلغاء' }).click();
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.getByText('Phone till').first().waitFor();
    await page.screenshot({ path: artifactPath('api-keys-ae.png'), fullPage: true });
    expect(errors).toEqual([]);
    await close();
  });
});
