import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { ADMIN, ROOT, apiData, artifactPath, ensureAdminBuild, launchBrowser, newPage, signIn, startServer, type Server } from './harness';

/**
 * Issue 28 item 2, one currency everywhere: the super admin changes the company currency from USD
 * to SOS before any money exists, and the wallets, the dashboard and the DEMO shop then all read
 * SOS, never USD; once money exists (a top-up) a change is refused with the server's reason in the
 * reader's words, and nothing changes. Its own server: every other file tops a wallet up first,
 * which locks the currency. The tests run in order (the first two before any money exists).
 */
let server: Server;
let browser: Browser;
let adminToken = '';
beforeAll(async () => {
  ensureAdminBuild();
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  adminToken = (await apiData<{ token: string }>(server, '/auth/admin/login', { method: 'POST', body: ADMIN })).token;
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 900 };
type Lng = 'ae' | 'so';
const SIZES = [
  { name: '390 px, Arabic', viewport: PHONE, lng: 'ae' as Lng, phone: true },
  { name: '1366 px, Somali', viewport: DESKTOP, lng: 'so' as Lng, phone: false },
] as const;
type Size = (typeof SIZES)[number];

// ---- The product's words, from the files the apps read ----
type Dict = Record<string, unknown>;
type Book = 'admin' | 'validation';
const load = (lng: Lng, file: string) => JSON.parse(readFileSync(join(ROOT, 'locales', lng, `${file}.json`), 'utf8')) as Dict;
const WORDS = Object.fromEntries(
  (['ae', 'so'] as const).map((l) => [l, { admin: { ...load(l, 'admin'), ...load(l, 'ra') }, validation: load(l, 'validation') }]),
) as Record<Lng, Record<Book, Dict>>;
/** A text by its key, its {{values}} filled in. */
function tr(lng: Lng, key: string, values: Record<string, string> = {}, book: Book = 'admin'): string {
  const text = key.split('.').reduce<unknown>((at, part) => (at as Dict | undefined)?.[part], WORDS[lng][book]);
  if (typeof text !== 'string') throw new Error(`no ${book} text ${key} in ${lng}`);
  return text.replace(/\{\{(\w+)\}\}/g, (_, k: string) => values[k] ?? '');
}
/** Text without the direction marks put around numbers and references. */
const plain = (s: string) => s.replace(/[\u2066-\u2069\u200e\u200f]/g, '').replace(/\s+/g, ' ');
const textOf = async (l: Locator) => plain(await l.innerText());

// ---- Setting the stage through the API ----
const api = <T = unknown>(path: string, init: { method?: string; body?: unknown } = {}) => apiData<T>(server, path, { ...init, token: adminToken });
const company = () => api<{ currency: string; currency_locked: boolean }>('/settings/company');
const demoWallet = async () => (await api<{ id: number; currency: string }[]>('/wallets?q=DEMO'))[0];

// ---- The console and the shop as people open them ----
async function consoleAt(path: string, size: Size) {
  const { context, page, errors } = await newPage(browser, server.url);
  await page.setViewportSize(size.viewport);
  await signIn(page, ADMIN, `/auth/login?redirect=${encodeURIComponent(path)}`);
  await page.waitForURL((u) => u.pathname === path);
  await page.evaluate((l) => localStorage.setItem('i18nextLng', l), size.lng);
  await page.reload();
  await expect.poll(() => page.evaluate(() => document.documentElement.dir)).toBe(size.lng === 'ae' ? 'rtl' : 'ltr');
  return { page, errors, close: () => context.close() };
}
/** A screenshot once dialogs have finished moving in. */
async function shot(page: Page, name: string) {
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Infinity));
  await page.screenshot({ path: artifactPath(`second-pass-currency-${name}.png`) });
}
/** The wallets list, the dashboard and the DEMO shop (a bundle list with prices) each read `currency`, never `other`. */
async function everywhereIn(page: Page, size: Size, currency: string, other: string) {
  await page.goto('/wallets');
  const demo = size.phone
    ? page.locator('main').getByText('Demo Dealer').first().locator('xpath=ancestor::li[1]')
    : page.locator('main').getByRole('row').filter({ hasText: 'Demo Dealer' }).first();
  await expect.poll(() => textOf(demo)).toMatch(new RegExp(`\\d+\\.\\d\\d ${currency}`));
  expect(await textOf(page.locator('main'))).not.toContain(other);

  await page.goto('/dashboard');
  const main = page.locator('main');
  // (The dashboard's figures take a few seconds to add up.)
  await expect.poll(() => textOf(main), { timeout: 30_000 }).toMatch(new RegExp(`\\d+\\.\\d\\d ${currency}`));
  expect(await textOf(main)).not.toContain(other);

  // The shop, in the visitor's language: Hormuud's daily bundles with their prices.
  await page.goto(`/dealer/DEMO?lng=${size.lng}`);
  await page.getByRole('link', { name: size.lng === 'ae' ? 'هرمود' : 'Hormuud' }).click();
  await page
    .getByRole('link', { name: size.lng === 'ae' ? /يومي/ : /Maalinle/ })
    .first()
    .click();
  const bundles = page.locator('section[aria-labelledby="bundles-title"]');
  await expect.poll(() => textOf(bundles)).toMatch(new RegExp(`0\\.50 ?${currency}|${currency} ?0\\.50`));
  expect(await textOf(page.locator('body'))).not.toContain(other);
}

describe('item 2: one currency everywhere, fixed once money exists', () => {
  it('390 px, Arabic: changed to SOS before any money (asked first), the wallets, the dashboard and the shop all read SOS', { timeout: 90_000 }, async () => {
    expect(await company()).toMatchObject({ currency: 'USD', currency_locked: false });
    const size = SIZES[0];
    const L = size.lng;
    const { page, errors, close } = await consoleAt('/settings/company', size);
    await page.getByText(tr(L, 'settings.company.currency_help')).waitFor();
    await page.getByRole('combobox', { name: tr(L, 'settings.company.currency') }).click();
    await page.getByRole('option', { name: 'SOS', exact: true }).click();
    await page.getByRole('button', { name: tr(L, 'ra.action.save') }).click();
    const dialog = page.getByRole('dialog', { name: tr(L, 'settings.company.currency_confirm_title', { currency: 'SOS' }) });
    await dialog.getByRole('button', { name: tr(L, 'settings.company.currency_confirm_ok', { currency: 'SOS' }) }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(async () => (await company()).currency, { timeout: 15_000 }).toBe('SOS');
    // The wallets moved with it (they were created in USD).
    expect((await demoWallet()).currency).toBe('SOS');
    await everywhereIn(page, size, 'SOS', 'USD');
    await shot(page, 'shop-sos-390-ae');
    expect(errors).toEqual([]);
    await close();
  });

  it(
    '390 px, Arabic: a form opened before the first top-up cannot change the currency after it: refused in Arabic, SOS stays',
    { timeout: 90_000 },
    async () => {
      const size = SIZES[0];
      const L = size.lng;
      const { page, errors, close } = await consoleAt('/settings/company', size);
      // Still a choice on screen: no money yet.
      const picker = page.getByRole('combobox', { name: tr(L, 'settings.company.currency') });
      await picker.waitFor();
      // Meanwhile money arrives.
      await api(`/wallets/${(await demoWallet()).id}/top-up`, { method: 'POST', body: { amount: '10.00', reference: 'currency-first-money' } });
      await picker.click();
      await page.getByRole('option', { name: 'USD', exact: true }).click();
      await page.getByRole('button', { name: tr(L, 'ra.action.save') }).click();
      const dialog = page.getByRole('dialog', { name: tr(L, 'settings.company.currency_confirm_title', { currency: 'USD' }) });
      await dialog.getByRole('button', { name: tr(L, 'settings.company.currency_confirm_ok', { currency: 'USD' }) }).click();
      await dialog.waitFor({ state: 'detached' });
      // The server's refusal under the field, in the reader's language, naming the currency money is in.
      await page.getByText(tr(L, 'currency_locked', { currency: 'SOS' }, 'validation')).waitFor();
      await shot(page, 'currency-refused-390-ae');
      expect(await company()).toMatchObject({ currency: 'SOS', currency_locked: true });
      expect((await demoWallet()).currency).toBe('SOS');
      expect(errors).toEqual([]);
      await close();
    },
  );

  it(
    '1366 px, Somali: with money, the currency reads SOS and cannot be picked, with the reason in Somali; everything still reads SOS',
    { timeout: 90_000 },
    async () => {
      const size = SIZES[1];
      const L = size.lng;
      const { page, errors, close } = await consoleAt('/settings/company', size);
      await page.getByText(tr(L, 'currency_locked', { currency: 'SOS' }, 'validation')).waitFor();
      expect(await page.getByRole('combobox', { name: tr(L, 'settings.company.currency') }).count()).toBe(0);
      const field = page.getByLabel(tr(L, 'settings.company.currency'), { exact: true });
      expect(await field.inputValue()).toBe('SOS');
      expect(await field.isEditable()).toBe(false);
      // A key pressed in it changes nothing.
      await field.press('Backspace');
      expect(await field.inputValue()).toBe('SOS');
      expect(await company()).toMatchObject({ currency: 'SOS', currency_locked: true });
      await everywhereIn(page, size, 'SOS', 'USD');
      expect(errors).toEqual([]);
      await close();
    },
  );
});
