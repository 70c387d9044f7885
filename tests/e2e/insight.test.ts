import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ADMIN, DEALER, newPage, signIn, useServerAndBrowser } from './harness';

/**
 * What staff look at every day, in the browser: a sale shows on the dashboard and in the sales
 * report (exported as CSV), an edit shows in the logs with its before and after, and the header
 * search finds the sale by its phone number.
 */
const env = useServerAndBrowser();

async function sell() {
  const api = env.server.url;
  const token = (
    await (
      await fetch(`${api}/api/v1/auth/admin/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@example.com', password: 'Admin@12345' }),
      })
    ).json()
  ).data.token;
  const wallets = await (await fetch(`${api}/api/v1/wallets?q=DEMO`, { headers: { authorization: `Bearer ${token}` } })).json();
  await fetch(`${api}/api/v1/wallets/${wallets.data[0].id}/top-up`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 10, reference: 'insight' }),
  });
  const headers = { dealer_code: 'DEMO', 'content-type': 'application/json' };
  const catalogue = await (await fetch(`${api}/api/v1/client/dealer/providers`, { headers })).json();
  const bundle = catalogue.data.providers[0].categories[0].bundles.find((b: { name: string }) => b.name === '1 GB Daily');
  const methods = await (await fetch(`${api}/api/v1/client/payment-methods`, { headers })).json();
  const sale = await (
    await fetch(`${api}/api/v1/client/recharge`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        bundle_id: bundle.id,
        payment_method_id: methods.data[0].id,
        phone: '0615554321',
        payer_phone: '0617000021',
        idempotency_key: 'insight-sale-1',
      }),
    })
  ).json();
  for (let i = 0; i < 60; i++) {
    const r = await (await fetch(`${api}/api/v1/client/recharge/${sale.data.reference}`, { headers })).json();
    if (r.data.status === 'completed') return sale.data;
    await new Promise((res) => setTimeout(res, 500));
  }
  throw new Error('the sale did not complete');
}

describe('insight', () => {
  it('a sale shows on the dashboard, in the report and its CSV; an edit in the logs; the search finds the sale by phone', async () => {
    const sale = await sell();
    const { context, page, errors } = await newPage(env.browser, env.server.url);
    await signIn(page, ADMIN);
    await page.waitForURL(/\/dashboard$/);
    const today = page.getByRole('link', { name: /Today/ });
    await today.getByText('0.50 USD').waitFor();
    await today.getByText('1 sale · profit 0.10 USD').waitFor();
    await page.getByRole('link', { name: sale.reference }).waitFor();

    await page.goto('/reports');
    const table = page.getByRole('table', { name: 'Sales report' });
    await table.getByRole('row').filter({ hasText: 'Total' }).getByText('0.50').waitFor();
    await page.getByLabel('Group by').click();
    await page.getByRole('option', { name: 'Operator' }).click();
    await table.getByRole('row').filter({ hasText: 'Hormuud' }).getByText('0.40').waitFor();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const csv = fs.readFileSync((await (await download).path())!, 'utf8').replace(/^\uFEFF/, '');
    expect(csv.trim().split('\r\n')).toEqual(['Operator,Count,Revenue,Cost,Profit', 'Hormuud,1,0.50,0.40,0.10', 'Total,1,0.50,0.40,0.10']);

    // An edit, then its log entry with before and after.
    await page.goto('/settings/roles/create');
    const dialog = page.getByRole('dialog', { name: 'New Role' });
    await dialog.getByLabel(/^Name/).fill('auditors');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.goto('/logs');
    // Each entry is a sentence: "Super Admin created role auditors".
    const row = page.getByRole('row').filter({ hasText: 'created role auditors' }).first();
    // (Its first cell: the subject in the sentence is a link to the role.)
    await row.getByRole('cell').first().click();
    await page.getByRole('table', { name: 'The change' }).getByText('auditors').waitFor();

    await page.getByRole('searchbox', { name: 'Search' }).fill('615554321');
    await page.keyboard.press('Enter');
    await page.getByRole('link', { name: new RegExp(`${sale.reference} · 615554321`) }).click();
    await page.waitForURL(new RegExp(`/recharges/${sale.id}$`));
    await page.getByRole('dialog', { name: 'Recharge' }).getByText('Completed').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it("a dealer's screens ask only what a dealer may read: operators in its report, its profit as CSV, no refused call", async () => {
    const { context, page, errors } = await newPage(env.browser, env.server.url);
    const refused: string[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/api/v1/') && r.status() >= 400) refused.push(`${r.status()} ${new URL(r.url()).pathname}`);
    });
    await signIn(page, DEALER);
    await page.waitForURL(/\/dashboard$/);
    await page.goto('/reports');
    await page.getByLabel('Operator').click();
    await page.getByRole('option', { name: 'Hormuud' }).click();
    await page.goto('/reports/dealer-profit');
    await page.getByRole('heading', { name: 'Dealer profit report' }).waitFor();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const csv = fs.readFileSync((await (await download).path())!, 'utf8').replace(/^\uFEFF/, '');
    expect(csv.split('\r\n')[0]).toMatch(/^Operator,Bundle,Count,Revenue,(Cost,)?Profit$/);
    for (const path of ['/dealer-providers', '/recharges', '/my-wallet', '/missed-sales', '/dashboard']) {
      await page.goto(path);
      await page.locator('h1').first().waitFor();
      await page.waitForLoadState('networkidle');
    }
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('staff who read sales but not users pick a dealer in every filter, with no refused call', async () => {
    await sell(); // a list with rows shows its filters (the same sale as above when run together)
    const api = env.server.url;
    const login = await (
      await fetch(`${api}/api/v1/auth/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) })
    ).json();
    const auth = { authorization: `Bearer ${login.data.token}`, 'content-type': 'application/json' };
    const permissions = ['view dashboard', 'view recharges', 'view reports', 'view wallet transactions', 'view logs'];
    const role = await (
      await fetch(`${api}/api/v1/roles`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'sales-desk', permissions }) })
    ).json();
    const desk = { email: 'desk@example.com', password: 'Ledger@Pass2026!' };
    const made = await fetch(`${api}/api/v1/users`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'Sales Desk', ...desk, password_confirmation: desk.password, user_type: 'admin', role_id: role.data.id }),
    });
    expect(made.status).toBe(201);

    const { context, page, errors } = await newPage(env.browser, env.server.url);
    const refused: string[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/api/v1/') && r.status() >= 400) refused.push(`${r.status()} ${new URL(r.url()).pathname}`);
    });
    await signIn(page, desk);
    await page.waitForURL(/\/dashboard$/);
    for (const path of ['/recharges', '/wallet-transactions']) {
      await page.goto(path);
      await page.locator('main h1').first().waitFor();
      await page.waitForLoadState('networkidle');
      await page.getByLabel('Dealer').first().click();
      const filtered = page.waitForRequest((r) => r.url().includes(`/api/v1${path}?`) && r.url().includes('dealer_id='));
      await page.getByRole('option', { name: 'Demo Dealer' }).click();
      await filtered;
    }
    await page.goto('/reports');
    await page.getByLabel('Dealer').first().click();
    await page.getByRole('option', { name: 'Demo Dealer' }).waitFor();
    await page.keyboard.press('Escape');
    await page.goto('/logs');
    await page.getByLabel('Who').first().click();
    await page.getByRole('option', { name: 'Super Admin' }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
