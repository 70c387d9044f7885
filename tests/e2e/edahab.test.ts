import { describe, expect, it } from 'vitest';
import { ADMIN, apiData, newPage, useServerAndBrowser } from './harness';

/**
 * A customer on a 390 px phone, in Somali, buys a bundle paid with eDahab (the DEMO shop's eDahab
 * method goes to eDahab's own API: its stand-in here). The buy sheet says one thing: the PIN prompt
 * on the paying phone, never also "send the amount from your eDahab wallet" (a customer could pay
 * twice). The sale is charged through eDahab, once.
 */
const env = useServerAndBrowser();

describe('buying with eDahab', () => {
  it('in Somali on a phone: one instruction (the PIN prompt), paid through eDahab, delivered', async () => {
    const token = (await apiData<{ token: string }>(env.server, '/auth/admin/login', { method: 'POST', body: ADMIN })).token;
    const [wallet] = await apiData<{ id: number }[]>(env.server, '/wallets?q=DEMO', { token });
    await apiData(env.server, `/wallets/${wallet.id}/top-up`, { method: 'POST', token, body: { amount: '5.00', reference: 'edahab-e2e' } });

    const { context, page, errors } = await newPage(env.browser, env.server.url, 'so-SO');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/dealer/DEMO');
    await page.getByRole('combobox', { name: /Language|Luqadda/ }).selectOption('so');
    await page.getByRole('heading', { name: 'Dooro shirkaddaada' }).waitFor();
    await page.getByRole('link', { name: 'Hormuud' }).click();
    await page.getByRole('link', { name: /Maalinle/ }).click();
    await page.getByRole('button', { name: 'Iibso 1 GB Maalinle' }).click();
    const dialog = page.getByRole('dialog', { name: 'Iibso 1 GB Maalinle' });
    await dialog.getByLabel('Lambarka la kordhinayo').fill('061 5123456');
    await dialog.getByLabel('Lambarka lacagta bixinaya').fill('062 5552001');
    await dialog.getByText('eDahab', { exact: true }).click();

    // Exactly one instruction: the prompt on the paying phone.
    const instruction = dialog.locator('.instructions');
    await instruction.getByText(/^Fariin ayaad ka heli doontaa .*062 5552001.*: geli lambarkaaga sirta ah \(PIN\) si aad u oggolaato\.$/).waitFor();
    expect(await instruction.count()).toBe(1);
    expect(await dialog.getByText(/boorsadaada eDahab|Ka dir lacagta/).count()).toBe(0);
    expect(await dialog.getByText(/PIN/).count()).toBe(1);

    await dialog.getByRole('button', { name: 'Bixi $0.50' }).click();
    await dialog.getByText('Waa dhammaatay! Xirmadaadu way shaqaynaysaa', { exact: true }).waitFor({ timeout: 60_000 });

    // The newest sale is this one.
    const [sale] = await apiData<{ payment_gateway: string; payment_state: string; payer_phone: string; status: string }[]>(
      env.server,
      '/recharges?per_page=1',
      {
        token,
      },
    );
    expect(sale).toMatchObject({ status: 'completed', payment_gateway: 'edahab', payment_state: 'collected', payer_phone: '625552001' });
    expect(errors).toEqual([]);
    await context.close();
  });
});
