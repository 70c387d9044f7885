import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ADMIN, DEALER, apiData, artifactPath, signedInAt, useServerAndBrowser } from './harness';

/**
 * A dealer sells many bundles at once in the console: it uploads a CSV of numbers and bundles,
 * sees every line's problem and the total against its balance before paying, confirms, and
 * follows the batch until each good line is sold and delivered and the bad one refused with its
 * reason. Then the batch on a phone in Arabic.
 */
const env = useServerAndBrowser();

interface Batch {
  id: string;
  status: string;
  lines_total: number;
  lines_accepted: number;
  lines_refused: number;
  sales: { delivered: number; failed: number; in_progress: number };
}

describe('bulk sales', () => {
  it('previews a CSV with its problems, sells the good lines from the wallet and shows the batch to the end', async () => {
    const token = (await apiData<{ token: string }>(env.server, '/auth/admin/login', { method: 'POST', body: ADMIN })).token;
    const [wallet] = await apiData<{ id: number; balance: string }[]>(env.server, '/wallets?q=DEMO', { token });
    await apiData(env.server, `/wallets/${wallet.id}/top-up`, { method: 'POST', token, body: { amount: '10.00', reference: 'bulk-e2e' } });
    const balance = async () => (await apiData<{ balance: string }>(env.server, `/wallets/${wallet.id}`, { token })).balance;
    const before = await balance();
    const headers = { dealer_code: 'DEMO' };
    const catalogue = await (await fetch(`${env.server.url}/api/v1/client/dealer/providers`, { headers })).json();
    const bundle = catalogue.data.providers[0].categories[0].bundles.find((b: { name: string }) => b.name === '1 GB Daily');
    expect(bundle).toBeTruthy();
    // What the dealer's wallet pays for it (its cost, not the customer's price), as its API answers it.
    const dealerToken = (await apiData<{ token: string }>(env.server, '/auth/admin/login', { method: 'POST', body: DEALER })).token;
    const made = await apiData<{ key: string }>(env.server, '/dealer/api-keys', {
      method: 'POST',
      token: dealerToken,
      body: { name: 'bulk-e2e cost', scopes: ['catalogue:read'] },
    });
    const offer = await (await fetch(`${env.server.url}/api/reseller/v1/catalogue`, { headers: { Authorization: `Bearer ${made.key}` } })).json();
    const dealerBundle = offer.data.providers
      .flatMap((p: { categories: { bundles: { id: number; cost?: string }[] }[] }) => p.categories.flatMap((c) => c.bundles))
      .find((b: { id: number }) => b.id === bundle.id);
    expect(dealerBundle?.cost).toMatch(/^\d+\.\d{2}$/);
    const minor = (amount: string) => Math.round(Number(amount) * 100);

    const dealer = await signedInAt(env, DEALER, '/recharge-batches/new');
    const { page } = dealer;
    // Three good Hormuud numbers and one Golis number for a Hormuud bundle.
    const csv = [
      'phone,bundle,client_reference',
      `0615000001,${bundle.id},TILL-1`,
      `0615000002,${bundle.id},TILL-2`,
      `0775000003,${bundle.h_id},`,
      `0905000004,${bundle.id},TILL-4`,
    ].join('\n');
    await page.getByTestId('batch-file').setInputFiles({ name: 'bulk.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByText('Check before paying').first().waitFor();
    await page
      .getByText(/Total cost/)
      .first()
      .waitFor();
    // The Golis number's problem is shown on its line before anything is paid.
    const preview = page.getByRole('table', { name: 'Check before paying' });
    await preview.getByText('905000004').first().waitFor();
    expect(await preview.getByText(/Hormuud/).count()).toBeGreaterThan(0);
    // Nothing is paid by a preview.
    expect(await balance()).toBe(before);

    await page.getByRole('button', { name: /Confirm and sell/ }).click();
    // The batch's own page, by its public id (RB + 10 characters), never a row number.
    await page.waitForURL((u) => /^\/recharge-batches\/RB[A-Z0-9]{10}$/.test(u.pathname), { timeout: 30_000 });
    const batchPath = new URL(page.url()).pathname;
    await page.getByText('Completed').first().waitFor({ timeout: 60_000 });

    const batches = await apiData<Batch[]>(env.server, '/recharge-batches', { token });
    expect(batches).toHaveLength(1);
    const batch = await apiData<Batch>(env.server, `/recharge-batches/${batches[0].id}`, { token });
    expect(batch).toMatchObject({ status: 'completed', lines_total: 4, lines_accepted: 3, lines_refused: 1 });
    await expect
      .poll(async () => (await apiData<Batch>(env.server, `/recharge-batches/${batches[0].id}`, { token })).sales.delivered, { timeout: 60_000 })
      .toBe(3);
    // Exactly the three sold lines' cost, nothing for the refused one.
    expect(minor(await balance())).toBe(minor(before) - 3 * minor(dealerBundle.cost));
    // The refused line says why, on the batch's page.
    await page.getByText('905000004').first().waitFor();
    expect(dealer.errors).toEqual([]);
    await dealer.close();

    // The same batch on a phone, in Arabic: right to left, nothing sideways.
    const phone = await signedInAt(env, DEALER, batchPath, { width: 390, height: 844 });
    await phone.page.evaluate(() => localStorage.setItem('i18nextLng', 'ae'));
    await phone.page.reload();
    await phone.page.locator('html[dir="rtl"]').waitFor();
    await phone.page.getByText('905000004').first().waitFor();
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    await phone.page.screenshot({ path: artifactPath('recharge-batch-ae-390.png'), fullPage: true });
    await phone.page.goto('/recharge-batches/new');
    await phone.page.locator('html[dir="rtl"]').waitFor();
    // The upload step in Arabic: its title and the file button ("Choose a CSV file").
    await phone.page.getByText('اختر ملف CSV').first().waitFor();
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    await phone.page.screenshot({ path: artifactPath('recharge-batch-new-ae-390.png'), fullPage: true });
    expect(phone.errors).toEqual([]);
    await phone.close();
    expect(readFileSync(artifactPath('recharge-batch-ae-390.png')).length).toBeGreaterThan(1000);
  });
});
