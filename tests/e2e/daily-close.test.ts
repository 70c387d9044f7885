import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ADMIN, apiData, artifactPath, buyFromDemoShop, ensureAdminBuild, freePort, launchBrowser, signedInAt, startServer, type Server } from './harness';

/**
 * The finance desk closes a day in the console. A customer buys a bundle; then the aggregator's
 * books (its stand-in, planted over its HTTP control as a person trying the close offline would)
 * show a top-up nobody here sent, and the sale's own top-up refunded. The admin refreshes the day,
 * sees both differences, cannot close while they are unhandled (the API refuses it too), handles each with a
 * note, closes the day and downloads its CSV; the API then serves the day closed and frozen.
 * Then the same day at 390 px in Arabic.
 */
const env = {} as { server: Server; browser: Browser; standIn: string };
beforeAll(async () => {
  ensureAdminBuild();
  const port = await freePort();
  env.standIn = `http://127.0.0.1:${port}`;
  [env.server, env.browser] = await Promise.all([startServer({ STAND_IN_RELOADLY_PORT: String(port) }), launchBrowser()]);
});
afterAll(async () => {
  await env.browser?.close();
  await env.server?.stop();
});

async function plant(path: string, body: unknown): Promise<void> {
  const res = await fetch(`${env.standIn}/_standin/topups${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
}

interface Day {
  date: string;
  status: string;
  differences: { id: number; kind: string; handled: boolean; reference: string | null }[];
  totals: { sales: { count: number; amount: string | null }; differences: { total: number; unhandled: number } };
}

describe('the daily close', () => {
  it('refreshes a day, shows what the vendor has that we do not, refuses to close until each is handled, then closes and exports it', async () => {
    const token = (await apiData<{ token: string }>(env.server, '/auth/admin/login', { method: 'POST', body: ADMIN })).token;
    const [wallet] = await apiData<{ id: number }[]>(env.server, '/wallets?q=DEMO', { token });
    await apiData(env.server, `/wallets/${wallet.id}/top-up`, { method: 'POST', token, body: { amount: '5.00', reference: 'close-e2e' } });

    // A customer buys 1 GB Daily from the DEMO shop; the sale completes.
    const bought = await buyFromDemoShop(env.server, { phone: '0615123456', idempotencyKey: 'close-e2e-1' });
    expect(bought.status).toBe(201);
    const sale = bought.data;
    await expect
      .poll(async () => (await apiData<{ recharge: { status: string } }>(env.server, `/recharges/${sale.id}`, { token })).recharge.status, { timeout: 60_000 })
      .toBe('completed');

    // The aggregator's books: a top-up we never sent, and our sale's top-up refunded after all.
    await plant('', { customIdentifier: null, phone: '615000111', requestedAmount: 0.4 });
    await plant(`/${sale.reference}`, { status: 'REFUNDED' });

    const [today] = await apiData<{ date: string }[]>(env.server, '/daily-close?page=1&per_page=5', { token });
    const path = `/reports/daily-close/${today.date}`;

    const admin = await signedInAt(env, ADMIN, '/dashboard');
    const { page } = admin;
    // Reports -> Daily close, from the menu.
    const nav = page.getByRole('navigation').first();
    await nav.getByRole('button', { name: /Reports/ }).click();
    await nav
      .getByRole('link', { name: 'Daily close' })
      .or(nav.getByRole('menuitem', { name: 'Daily close' }))
      .first()
      .click();
    await page.waitForURL('**/reports/daily-close');
    await page
      .getByRole('link', { name: new RegExp(today.date) })
      .or(page.getByText(today.date))
      .first()
      .click();
    await page.waitForURL((u) => u.pathname === path);

    await page.getByRole('button', { name: 'Refresh' }).click();
    const differences = page.locator('section[aria-labelledby="differences-title"]');
    await differences.getByText("Only in the vendor's records").first().waitFor();
    await differences.getByText('Outcomes differ').first().waitFor();
    await differences.getByText(sale.reference).first().waitFor();

    // Closing waits until every difference is handled, and the page says why (the API would refuse it too).
    await expect.poll(() => page.getByRole('button', { name: 'Close the day' }).isDisabled()).toBe(true);
    await page.getByText('Handle every difference before closing the day.').first().waitFor();
    const refused = await fetch(`${env.server.url}/api/v1/daily-close/${today.date}/close`, { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
    expect(refused.status).toBe(409);
    expect((await refused.json()).message).toBe('Differences left to handle: 2. Handle each one before closing the day.');
    expect((await apiData<Day>(env.server, `/daily-close/${today.date}`, { token })).status).toBe('open');

    // Each difference handled with a note (a note is required).
    const handle = differences.getByRole('button', { name: 'Handle' });
    await handle.first().waitFor();
    const unhandled = await handle.count();
    expect(unhandled).toBe(2);
    for (let left = unhandled; left > 0; left--) {
      await handle.first().click();
      await page.getByRole('menuitem', { name: 'Accept' }).click();
      const dialog = page.getByRole('dialog', { name: 'Accept the difference' });
      await dialog.getByRole('button', { name: 'Accept' }).click();
      await dialog.getByText(/note/i).first().waitFor();
      await dialog.getByRole('textbox', { name: /Note/ }).fill('Checked with the aggregator by phone: their record stands.');
      await dialog.getByRole('button', { name: 'Accept' }).click();
      await dialog.waitFor({ state: 'detached' });
      await expect.poll(() => handle.count()).toBe(left - 1);
    }
    await expect.poll(async () => (await apiData<Day>(env.server, `/daily-close/${today.date}`, { token })).totals.differences.unhandled).toBe(0);

    await page.getByRole('button', { name: 'Close the day' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Close the day' }).click();
    await page.getByText('The day is closed.').first().waitFor();
    await page
      .getByText(/Closed by/)
      .first()
      .waitFor();

    // Its CSV, with the session's own authority.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: /CSV/ }).first().click()]);
    const csv = await download.path().then((p) => import('node:fs').then((fs) => fs.readFileSync(p!, 'utf8')));
    expect(csv).toContain(sale.reference);

    const closed = await apiData<Day>(env.server, `/daily-close/${today.date}`, { token });
    expect(closed.status).toBe('closed');
    expect(closed.differences.every((d) => d.handled)).toBe(true);
    expect(closed.differences.map((d) => d.kind).sort()).toEqual(expect.arrayContaining(['only_theirs', 'state']));
    expect(admin.errors).toEqual([]);
    await admin.close();

    // The closed day on a phone, in Arabic: no actions, only exports; nothing sideways.
    const phone = await signedInAt(env, ADMIN, path, { width: 390, height: 844 });
    await phone.page.evaluate(() => localStorage.setItem('i18nextLng', 'ae'));
    await phone.page.reload();
    await phone.page.locator('html[dir="rtl"]').waitFor();
    await phone.page.getByText(sale.reference).first().waitFor();
    expect(await phone.page.getByRole('button', { name: 'Handle' }).count()).toBe(0);
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    await phone.page.screenshot({ path: artifactPath('daily-close-ae-390.png'), fullPage: true });
    expect(phone.errors).toEqual([]);
    await phone.close();
  });
});
