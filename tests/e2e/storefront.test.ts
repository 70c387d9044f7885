import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { useServerAndBrowser } from './harness';

/**
 * The customer storefront in Chromium against the real server: browsing the DEMO shop in English
 * and Arabic, buying with the sandbox's success and decline numbers (and the order pages), the
 * shop offline after a first visit, the manifest and service worker (and Chromium's own installability check), and
 * axe-core on the three pages and the purchase dialog.
 */
const env = useServerAndBrowser();

async function phone(locale = 'en-US') {
  const context = await env.browser.newContext({ baseURL: env.server.url, locale, viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.setDefaultTimeout(30_000);
  return { context, page, errors };
}

async function topUpDemo(amount: string) {
  const login = await fetch(`${env.server.url}/api/v1/auth/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: 'Admin@12345' }),
  });
  const token = (await login.json()).data.token;
  const wallets = await (await fetch(`${env.server.url}/api/v1/wallets?q=DEMO`, { headers: { authorization: `Bearer ${token}` } })).json();
  await fetch(`${env.server.url}/api/v1/wallets/${wallets.data[0].id}/top-up`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount, reference: 'storefront-e2e' }),
  });
}

async function serious(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`));
}

async function openDaily(page: Page) {
  await page.getByRole('link', { name: 'Hormuud' }).click();
  await page.waitForURL(/\/dealer\/DEMO\/provider\/\d+$/);
  await page.getByRole('link', { name: /Daily/ }).click();
  await page.waitForURL(/\/category\/\d+$/);
}

describe('the DEMO storefront', () => {
  it('browses operators, categories and bundles in English, then Arabic right to left', async () => {
    const { context, page, errors } = await phone();
    await page.goto('/dealer/DEMO');
    // The title is set just after the page draws (an effect): read until it is, not at the first look.
    await expect.poll(() => page.title()).toBe('Demo Dealer - Internet Services');
    await page.getByRole('heading', { name: 'Choose your operator' }).waitFor();
    await page.getByText('Double data every Friday').waitFor();
    await page.getByRole('link', { name: '+252 61 5000000' }).first().waitFor();
    await openDaily(page);
    await page.getByRole('listitem').filter({ hasText: '1 GB Daily' }).getByText('$0.50').waitFor();

    // Switching the language: the title, the words and the direction follow at once.
    await page.getByRole('combobox', { name: 'Language' }).selectOption('ae');
    // The dealer's texts are asked again in Arabic: the bundle's translated name.
    await page.getByRole('button', { name: 'شراء 1 جيجابايت يومي' }).waitFor();
    await expect.poll(() => page.title()).toBe('Demo Dealer - خدمات الإنترنت');
    await expect(page.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).resolves.toEqual(['ar', 'rtl']);
    // In Arabic, the price keeps its order (isolated left to right).
    const row = page.getByRole('listitem').filter({ hasText: '1 جيجابايت يومي' });
    await expect(row.locator('bdi[dir="ltr"]').filter({ hasText: '$0.50' }).count()).resolves.toBe(1);
    await page.getByRole('combobox', { name: 'اللغة' }).selectOption('en');
    await page.getByRole('button', { name: 'Buy 1 GB Daily' }).waitFor();
    await expect.poll(() => page.title()).toBe('Demo Dealer - Internet Services');
    await expect(page.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).resolves.toEqual(['en', 'ltr']);

    await page.goto('/dealer/DEMO?lng=ae');
    await page.getByRole('heading', { name: 'اختر المشغل' }).waitFor();
    await expect(page.evaluate(() => document.documentElement.dir)).resolves.toBe('rtl');
    await expect.poll(() => page.title()).toBe('Demo Dealer - خدمات الإنترنت');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('counts in Arabic with its own forms (one, two, few, many) on a phone set to Arabic and on one set to English', async () => {
    // An Arabic phone gave 'ae' Arabic's plural rules and an English one English's: "2 bundles" and
    // "30 days" fell through to English on the first, "2 باقات" on the second.
    for (const [locale, path] of [
      ['ar', '/dealer/DEMO'],
      ['en-US', '/dealer/DEMO?lng=ae'],
    ]) {
      const { context, page, errors } = await phone(locale);
      await page.goto(path);
      await page.getByRole('link', { name: 'هرمود' }).click();
      await page.waitForURL(/\/provider\/\d+$/);
      const category = (name: string) => page.getByRole('link', { name: new RegExp(name) });
      await expect(category('يومي').textContent(), locale).resolves.toContain('3 باقات');
      await expect(category('أسبوعي').textContent(), locale).resolves.toContain('باقتان');
      await expect(category('غير محدود').textContent(), locale).resolves.toContain('باقة واحدة');
      await category('شهري').click();
      await page.waitForURL(/\/category\/\d+$/);
      await expect(page.getByRole('listitem').filter({ hasText: '10 جيجابايت شهري' }).textContent(), locale).resolves.toContain('30 يومًا');
      await expect(page.locator('main').textContent(), locale).resolves.not.toMatch(/\b(days?|bundles?)\b/);
      expect(errors).toEqual([]);
      await context.close();
    }
  });

  it('shows a clear page for an unknown shop', async () => {
    const { context, page } = await phone();
    const res = await page.goto('/dealer/NOSUCHSHOP');
    expect(res?.status()).toBe(404);
    await page.getByRole('heading', { name: 'Shop not found' }).waitFor();
    await context.close();
  });

  it('comes in few bytes: the page and its script compressed, the stylesheet inside the page, the shop’s colour from the first paint', async () => {
    const { context, page, errors } = await phone();
    const encodings = new Map<string, string | undefined>();
    page.on('response', (r) => encodings.set(new URL(r.url()).pathname, r.headers()['content-encoding']));
    await page.goto('/dealer/DEMO');
    await page.getByRole('heading', { name: 'Choose your operator' }).waitFor();
    const html = await (await fetch(`${env.server.url}/dealer/DEMO`)).text();
    const script = /<script type="module"[^>]+src="([^"]+)"/.exec(html)![1];
    expect([encodings.get('/dealer/DEMO'), encodings.get(script)]).toEqual(['br', 'br']);
    expect(html).not.toContain('rel="stylesheet"');
    expect(html).toMatch(/<style>:root\{--brand:/);
    // The header is drawn in the dealer's colour at once (not the default blue, then the dealer's).
    expect(html).toMatch(/<style>html:root\{--brand:#[0-9A-Fa-f]{6}\}<\/style>/);
    const header = await page.locator('header.top').evaluate((e) => getComputedStyle(e).backgroundColor);
    expect(header).not.toBe('rgb(59, 130, 246)');
    // A client that takes no compression gets the same script as it is, kept for a year.
    const plain = await fetch(`${env.server.url}${script}`, { headers: { 'accept-encoding': 'identity' } });
    expect([plain.headers.get('content-encoding'), plain.headers.get('cache-control')]).toEqual([null, 'public, max-age=31536000, immutable']);
    expect(await plain.text()).toMatch(/^(import|const|var|function|\(|!)/);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('buying', () => {
  it('a success number completes; a declined payment says nothing was taken and tries again as a new purchase; each has its order page', async () => {
    await topUpDemo('5.00');
    const { context, page, errors } = await phone();
    await page.goto('/dealer/DEMO');
    await openDaily(page);
    await page.getByRole('button', { name: 'Buy 1 GB Daily' }).click();
    const dialog = page.getByRole('dialog', { name: 'Buy 1 GB Daily' });
    await dialog.getByLabel('Number to top up').fill('0625123456');
    await dialog.getByText('This is not a Hormuud number: it should start with 61, 77').waitFor();
    await dialog.getByLabel('Number to top up').fill('+252 61 512 3456');
    await dialog.getByRole('group').getByText('EVC Plus', { exact: true }).click();
    // The PIN prompt, not a dial code.
    await dialog.getByText('You will get a prompt on 061 5123456: enter your PIN to approve.').waitFor();
    expect(await dialog.getByText(/\*712\*/).count()).toBe(0);
    await dialog.getByRole('button', { name: 'Pay $0.50' }).dblclick();
    await dialog.getByText('Done! Your bundle is active', { exact: true }).waitFor({ timeout: 60_000 });
    const orderLink = dialog.getByRole('link', { name: 'Open your order page' });
    const delivered = (await orderLink.getAttribute('href'))!;
    expect(delivered).toMatch(/^\/dealer\/DEMO\/order\/RC[A-Z0-9]{10}$/);
    await dialog.getByRole('button', { name: 'Done' }).click();

    // The stand-in payment gateway declines payers whose number ends in 0000.
    await page.getByRole('button', { name: 'Buy 1 GB Daily' }).click();
    await dialog.getByLabel('Number to top up').fill('0615123456');
    await dialog.getByLabel('Number that pays').fill('0617770000');
    await dialog.getByRole('button', { name: 'Pay $0.50' }).click();
    await dialog.getByText('The payment was not approved').waitFor({ timeout: 60_000 });
    await dialog.getByText('Check your balance and try again.').waitFor();
    await dialog.getByText('Nothing was taken from your account.').waitFor();
    expect(await dialog.getByText(/returned/).count()).toBe(0);
    const firstDeclined = await dialog.getByRole('link', { name: 'Open your order page' }).getAttribute('href');
    await dialog.getByRole('button', { name: 'Try again' }).click();
    await dialog.getByText('The payment was not approved').waitFor({ timeout: 60_000 });
    expect(await dialog.getByRole('link', { name: 'Open your order page' }).getAttribute('href')).not.toBe(firstDeclined);
    await dialog.getByRole('button', { name: 'Done' }).click();

    await page.getByRole('link', { name: 'Home' }).click();
    const mine = page.getByRole('region', { name: 'Your purchases' });
    await mine.getByText('Delivered', { exact: true }).waitFor();
    await expect(mine.getByText('Not approved', { exact: true }).count()).resolves.toBe(2);
    // The double tap bought once; Try again bought anew.
    await expect(mine.getByRole('listitem').count()).resolves.toBe(3);

    // The order page, from the list and later from its link.
    await mine.locator(`a[href="${delivered}"]`).click();
    await page.waitForURL(`**${delivered}`);
    const reference = delivered.split('/').pop()!;
    await page.getByRole('heading', { name: `Order ${reference}` }).waitFor();
    // The shop as its header names it (the company name).
    await expect.poll(() => page.title()).toBe(`Order ${reference} – Demo Telecom Dealer`);
    await page.locator('.facts').getByText('Delivered').waitFor();
    await page.locator('.facts').getByText('61****456', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Buy again' }).click();
    await page.getByRole('dialog', { name: 'Buy 1 GB Daily' }).getByRole('button', { name: 'Close' }).click();
    // Closing takes the sheet's history entry back (history.back() is asynchronous): a page load
    // started before that lands would be cut short by it.
    await page.waitForFunction(() => !(history.state as { sheet?: boolean } | null)?.sheet);
    await page.goto('/dealer/DEMO/order/RC0000000000');
    await page.getByRole('heading', { name: 'This order was not found in this shop' }).waitFor();
    // A link opened later, in Arabic (which the shop then remembers for this browser).
    const fresh = await context.newPage();
    await fresh.goto(`/dealer/DEMO/order/${reference}?lng=ae`);
    await fresh.getByRole('heading', { name: `الطلب ${reference}` }).waitFor();
    await fresh.getByText('تم! باقتك مفعّلة').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('installable and offline', () => {
  it('serves the manifest and the worker, which takes control; Chromium reports no installability errors', async () => {
    // A profile on disk: an incognito-like context is never installable ("in-incognito").
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'sf-profile-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      baseURL: env.server.url,
      args: ['--no-sandbox', '--disable-gpu'],
      viewport: { width: 390, height: 844 },
    });
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto('/dealer/DEMO');
    await page.getByRole('heading', { name: 'Choose your operator' }).waitFor();
    await page.waitForFunction(() => navigator.serviceWorker.ready.then(() => true));
    await page.reload();
    await page.waitForFunction(() => !!navigator.serviceWorker.controller);
    const manifest = await (await fetch(`${env.server.url}/dealer/DEMO/manifest.webmanifest`)).json();
    expect(manifest.name).toBe('Demo Dealer - Internet Services');
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as { installabilityErrors: { errorId: string }[] };
    expect(installabilityErrors.map((e) => e.errorId)).toEqual([]);
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  });

  it('after a first visit, shows the shop offline with a notice, says buying needs a connection, and opens pages never visited (a category, an order link)', async () => {
    const { context, page } = await phone();
    // A category page that this phone never opens online (Hormuud's Weekly bundles).
    const catalogue = await (await fetch(`${env.server.url}/api/v1/client/dealer/providers`, { headers: { dealer_code: 'DEMO' } })).json();
    const hormuud = (catalogue.data.providers as { id: number; name: string; categories: { id: number; name: string }[] }[]).find((p) => p.name === 'Hormuud')!;
    const weekly = hormuud.categories.find((c) => c.name === 'Weekly')!;
    await page.goto('/dealer/DEMO');
    await page.getByRole('link', { name: 'Hormuud' }).waitFor();
    await page.waitForFunction(() => navigator.serviceWorker.ready.then(() => true));
    await page.reload();
    await page.waitForFunction(() => !!navigator.serviceWorker.controller);
    await page.getByRole('link', { name: 'Hormuud' }).waitFor();
    await context.setOffline(true);
    await page.reload();
    await page.getByText('You are offline: showing the shop as it was last loaded. Buying needs a connection.').waitFor();
    await openDaily(page);
    await page.getByRole('button', { name: 'Buy 1 GB Daily' }).click();
    await page.getByRole('dialog').getByText('Buying needs an internet connection.').first().waitFor();
    // Opened by its address (a link, a bookmark, the installed app), offline, never visited: the app shell draws it from the saved shop.
    const unvisited = `/dealer/DEMO/provider/${hormuud.id}/category/${weekly.id}`;
    const res = await page.goto(unvisited);
    expect(res?.fromServiceWorker()).toBe(true);
    await page.getByRole('heading', { name: 'Hormuud · Weekly' }).waitFor();
    await page.getByRole('button', { name: /^Buy / }).first().waitFor();
    await page.getByText('You are offline: showing the shop as it was last loaded. Buying needs a connection.').waitFor();
    // The same shop's address in another letter case (no server to redirect it): the saved shop too.
    await page.goto(`/dealer/demo/provider/${hormuud.id}`);
    await page.getByRole('heading', { name: 'Hormuud bundles' }).waitFor();
    // An order link never opened on this phone: the app shell and the order page's code come from the worker.
    await page.goto('/dealer/DEMO/order/RC0000000001');
    await page.getByRole('heading', { name: 'Order RC0000000001' }).waitFor();
    await page.getByText('Checking this order needs an internet connection.').waitFor();
    await context.close();
  });
});

describe('accessibility (axe-core): no serious or critical violations', () => {
  it('on the three storefront pages, the purchase dialog and the order page', async () => {
    const { context, page } = await phone();
    await page.goto('/dealer/DEMO');
    await page.getByRole('link', { name: 'Hormuud' }).waitFor();
    expect(await serious(page)).toEqual([]);
    await page.getByRole('link', { name: 'Hormuud' }).click();
    await page.getByRole('link', { name: /Daily/ }).waitFor();
    expect(await serious(page)).toEqual([]);
    await page.getByRole('link', { name: /Daily/ }).click();
    await page.getByRole('button', { name: 'Buy 1 GB Daily' }).waitFor();
    expect(await serious(page)).toEqual([]);
    await page.getByRole('button', { name: 'Buy 1 GB Daily' }).click();
    await page.getByRole('dialog').waitFor();
    expect(await serious(page)).toEqual([]);
    await page.goto('/dealer/DEMO/order/RC0000000000');
    await page.getByRole('heading', { name: 'This order was not found in this shop' }).waitFor();
    expect(await serious(page)).toEqual([]);
    await context.close();
  });

  for (const lng of ['ae', 'so']) {
    it(`on the same pages in ${lng} (the dealer's texts translated, Arabic right to left)`, async () => {
      const headers = { dealer_code: 'DEMO' };
      const shop = await (await fetch(`${env.server.url}/api/v1/client/dealer/providers`, { headers })).json();
      const provider = shop.data.providers[0];
      const category = provider.categories[0];
      const { context, page } = await phone();
      const pages = ['/dealer/DEMO', `/dealer/DEMO/provider/${provider.id}`, `/dealer/DEMO/provider/${provider.id}/category/${category.id}`];
      for (const path of pages) {
        await page.goto(`${path}?lng=${lng}`);
        await page.locator('h1, h2').first().waitFor();
        await page.waitForLoadState('networkidle');
        expect(await serious(page)).toEqual([]);
      }
      await expect(page.evaluate(() => document.documentElement.lang)).resolves.toBe(lng === 'ae' ? 'ar' : 'so');
      await page.getByRole('listitem').getByRole('button').first().click();
      await page.getByRole('dialog').waitFor();
      expect(await serious(page)).toEqual([]);
      await page.goto(`/dealer/DEMO/order/RC0000000000?lng=${lng}`);
      await page.locator('h1').first().waitFor();
      expect(await serious(page)).toEqual([]);
      await context.close();
    });
  }
});
