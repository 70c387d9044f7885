import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ADMIN, ensureAdminBuild, launchBrowser, newPage, signIn, startServer, type Server } from './harness';

/**
 * List filters live in the URL: a filtered, sorted and paged list survives a reload, can be
 * shared as a link, and is still there after a record opened over it is closed. The demo
 * history (two dealers, three weeks of sales) gives the lists something to filter.
 */
let server: Server;
let browser: Browser;

beforeAll(async () => {
  ensureAdminBuild();
  [server, browser] = await Promise.all([startServer({ SEED_DEMO_HISTORY: 'true' }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** The list's filter as the URL has it. */
const filterOf = (url: string | URL) => JSON.parse(new URL(String(url)).searchParams.get('filter') ?? '{}') as Record<string, unknown>;
const rows = (page: Page, text: string | RegExp) => page.getByRole('row').filter({ hasText: text });

describe('list filters live in the URL', () => {
  it('dealers searched by name: kept on reload, in a shared link, and after a record opens and closes', async () => {
    const { context, page, errors } = await newPage(browser, server.url);
    await signIn(page, ADMIN, '/auth/login?redirect=%2Fdealers');
    await page.waitForURL(/\/dealers$/);
    await rows(page, 'Demo Dealer').waitFor();
    await rows(page, 'Hodan Data').waitFor();
    const search = page.getByPlaceholder('Search name, email, phone');
    await search.fill('Hodan');
    await page.waitForURL((u) => filterOf(u).q === 'Hodan');
    await rows(page, 'Demo Dealer').waitFor({ state: 'detached' });

    await page.reload();
    await rows(page, 'Hodan Data').waitFor();
    await expect.poll(() => search.inputValue()).toBe('Hodan');
    await expect(rows(page, 'Demo Dealer').count()).resolves.toBe(0);
    const listUrl = page.url();

    // A row opens the dealer over the list (/dealers/{id}?filter=...); closing it comes back to the same list.
    await rows(page, 'Hodan Data').getByText('Hodan Data', { exact: true }).click();
    await page.waitForURL((u) => /\/dealers\/\d+$/.test(u.pathname) && filterOf(u).q === 'Hodan');
    const form = page.getByRole('dialog', { name: 'Edit Dealer' });
    await form.waitFor();
    await form.getByRole('button', { name: 'Cancel' }).click();
    await form.waitFor({ state: 'detached' });
    await page.waitForURL((u) => u.pathname === '/dealers' && filterOf(u).q === 'Hodan');
    await expect.poll(() => search.inputValue()).toBe('Hodan');
    await rows(page, 'Hodan Data').waitFor();
    await expect(rows(page, 'Demo Dealer').count()).resolves.toBe(0);

    // The link, opened by someone else (a fresh browser, nothing stored), shows the same list.
    const other = await newPage(browser, server.url);
    const path = new URL(listUrl).pathname + new URL(listUrl).search;
    await signIn(other.page, ADMIN, `/auth/login?redirect=${encodeURIComponent(path)}`);
    await other.page.waitForURL((u) => u.pathname === '/dealers' && filterOf(u).q === 'Hodan');
    await rows(other.page, 'Hodan Data').waitFor();
    await expect.poll(() => other.page.getByPlaceholder('Search name, email, phone').inputValue()).toBe('Hodan');
    await expect(rows(other.page, 'Demo Dealer').count()).resolves.toBe(0);
    expect(other.errors).toEqual([]);
    await other.context.close();
    expect(errors).toEqual([]);
    await context.close();
  });

  it("recharges by status: the dashboard's preset link, a reload, and a sale opened and closed", async () => {
    const { context, page, errors } = await newPage(browser, server.url);
    await signIn(page);
    await page.waitForURL(/\/dashboard$/);
    // The dashboard's links carry plain parameters; the list moves them into its own filter.
    await page.goto('/recharges?status=failed');
    await page.waitForURL((u) => filterOf(u).status === 'failed' && !u.searchParams.has('status'));
    const status = page.getByRole('combobox', { name: 'Status' });
    await expect(status.textContent()).resolves.toContain('Failed');
    await rows(page, 'Failed').first().waitFor();
    await expect(rows(page, 'Completed').count()).resolves.toBe(0);

    await status.click();
    await page.getByRole('option', { name: 'Completed' }).click();
    await page.waitForURL((u) => filterOf(u).status === 'completed');
    await rows(page, 'Completed').first().waitFor();
    await page.reload();
    await rows(page, 'Completed').first().waitFor();
    await expect(status.textContent()).resolves.toContain('Completed');
    await expect(rows(page, 'Failed').count()).resolves.toBe(0);

    await rows(page, 'Completed').first().getByRole('cell').nth(1).click();
    await page.waitForURL((u) => /\/recharges\/\d+$/.test(u.pathname) && filterOf(u).status === 'completed');
    const drawer = page.getByRole('dialog', { name: 'Recharge' });
    await drawer.waitFor();
    await drawer.getByRole('button', { name: 'Close' }).click();
    await drawer.waitFor({ state: 'detached' });
    await page.waitForURL((u) => u.pathname === '/recharges' && filterOf(u).status === 'completed');
    await expect(status.textContent()).resolves.toContain('Completed');
    await expect(rows(page, 'Failed').count()).resolves.toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('areas sorted by name (descending), five a page, on page 2: kept on reload and after an area opens and closes', async () => {
    const { context, page, errors } = await newPage(browser, server.url);
    await signIn(page, ADMIN, '/auth/login?redirect=%2Fsettings%2Fareas');
    await page.waitForURL(/\/settings\/areas$/);
    await rows(page, 'Banaadir').first().waitFor();
    await page.getByRole('columnheader', { name: 'Name' }).getByRole('button').click();
    await page.waitForURL((u) => u.searchParams.get('sort') === 'name' && u.searchParams.get('order') === 'DESC');
    // As a person does, the next change waits for the list to show the new order (under load, a
    // page-size change made before that re-rendered from the older parameters, ascending).
    await page.locator('.MuiTableSortLabel-directionDesc').first().waitFor();
    await page.getByRole('combobox', { name: /Rows per page/ }).click();
    await page.getByRole('option', { name: '5', exact: true }).click();
    await page.waitForURL((u) => u.searchParams.get('perPage') === '5');
    await page.getByRole('button', { name: /page 2/i }).click();
    await page.waitForURL((u) => u.searchParams.get('page') === '2');
    // Descending: Woqooyi Galbeed ... Karaan on page 1; Hodan first on page 2.
    const firstName = () => page.getByRole('row').nth(1).getByRole('cell').nth(1).textContent();
    await expect.poll(firstName).toBe('Hodan');

    await page.reload();
    await expect.poll(firstName).toBe('Hodan');
    await expect(page.getByRole('cell', { name: 'Karaan', exact: true }).count()).resolves.toBe(0);
    const url = new URL(page.url());
    expect([url.searchParams.get('sort'), url.searchParams.get('order'), url.searchParams.get('page'), url.searchParams.get('perPage')]).toEqual([
      'name',
      'DESC',
      '2',
      '5',
    ]);

    await page.getByRole('cell', { name: 'Hodan', exact: true }).click();
    const form = page.getByRole('dialog', { name: 'Edit Area' });
    await form.waitFor();
    expect(new URL(page.url()).search).toBe(url.search);
    await form.getByRole('button', { name: 'Cancel' }).click();
    await form.waitFor({ state: 'detached' });
    await page.waitForURL((u) => u.pathname === '/settings/areas' && u.search === url.search);
    await expect.poll(firstName).toBe('Hodan');
    expect(errors).toEqual([]);
    await context.close();
  });

  it("links' presets (a wallet's ledger, the dashboard's missed sales) become the list's filter; the dealer catalogue keeps ?dealer=; trash tabs keep their own", async () => {
    const login = await fetch(`${server.url}/api/v1/auth/admin/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const token = (await login.json()).data.token as string;
    const dealerId = async (code: string) =>
      (await (await fetch(`${server.url}/api/v1/users?dealer_code=${code}`, { headers: { authorization: `Bearer ${token}` } })).json()).data[0].id as number;
    const [hodan, demo] = [await dealerId('HODAN'), await dealerId('DEMO')];
    const { context, page, errors } = await newPage(browser, server.url);
    await signIn(page);
    await page.waitForURL(/\/dashboard$/);

    await page.goto(`/wallet-transactions?dealer=${hodan}`);
    await page.waitForURL((u) => String(filterOf(u).dealer_id) === String(hodan) && !u.searchParams.has('dealer'));
    await rows(page, 'Hodan Data').first().waitFor();
    await expect(rows(page, 'Demo Dealer').count()).resolves.toBe(0);

    await page.goto('/missed-sales?from=2000-01-01&to=2000-01-02');
    await page.waitForURL((u) => filterOf(u).from === '2000-01-01' && filterOf(u).to === '2000-01-02' && !u.searchParams.has('from'));
    await expect.poll(() => page.getByLabel('From').first().inputValue()).toBe('2000-01-01');

    await page.goto(`/dealer-providers?dealer=${demo}`);
    await rows(page, 'Somtel').first().waitFor();
    await page.getByRole('textbox', { name: 'Search' }).last().fill('Hormuud');
    await page.waitForURL((u) => filterOf(u).q === 'Hormuud' && u.searchParams.get('dealer') === String(demo));
    await rows(page, 'Somtel').first().waitFor({ state: 'detached' });
    await page.reload();
    await rows(page, 'Hormuud').first().waitFor();
    await expect(rows(page, 'Somtel').count()).resolves.toBe(0);

    await page.goto('/trash/users');
    await page.getByRole('textbox', { name: 'Search' }).last().fill('nobody-here');
    await page.waitForURL((u) => u.pathname === '/trash/users' && filterOf(u).q === 'nobody-here');
    // The list has asked for the filtered page (react-admin keeps a list's parameters once it has
    // rendered with them): a tab switch before that can leave with the older parameters under load.
    await page.waitForLoadState('networkidle');
    await page.getByRole('tab', { name: 'Banners' }).click();
    await page.waitForURL((u) => u.pathname === '/trash/banners' && filterOf(u).q === undefined);
    await page.getByRole('tab', { name: 'Users' }).click();
    await page.waitForURL((u) => u.pathname === '/trash/users' && filterOf(u).q === 'nobody-here');
    expect(errors).toEqual([]);
    await context.close();
  });
});
