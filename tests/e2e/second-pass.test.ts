import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { ADMIN, DEALER, ROOT, apiData, artifactPath, ensureAdminBuild, freePort, launchBrowser, newPage, signIn, startServer, type Server } from './harness';

/**
 * Issue 28, second pass: the defects no other browser test covered, each driven as a person does,
 * at 390 px in Arabic and at 1366 px in Somali (the words read from the locale files):
 *  - item 3: a sale settled "not delivered" in the review queue never reads Refunded while its
 *    payment is still on its way back, and ends as Failed with its payment Returned; a declined
 *    payment reaches the dealer's webhook as recharge.failed with status failed, never refunded;
 *  - item 5a: a cost raised above DEMO's price takes the bundle off its shop, and the dealer's
 *    catalogue row says it is not on sale because it is priced below cost;
 *  - item 6: the sales CSV carries no profit for a failed or refunded sale (its profit column sums
 *    to the delivered sales' profit); the list and a sale's page show none for a refunded sale;
 *  - item 8: a log entry's change reads in words (field names, money in major units, no cents);
 *    the storefront shows a payment method by its public name, never "(company)";
 *  - item 13: the SMS after a failure says no money was taken, in the customer's language; a dealer
 *    turns receipts off on its profile and the next sale sends none;
 *  - item 7a: a deleted session cookie: sign-in keeps ?redirect= and says why, in the reader's words;
 *  - item 10: the console's scripts come compressed (those of 1 KB and more); a dealer's My wallet shows
 *    its balance within 6 s over a 1.6 Mbps link (it took 10 s).
 */
const SECRET = 'second-pass-sms-secret-0123';
const APP_URL = 'https://shop.example.so';

let server: Server;
let browser: Browser;
let standIn = '';
let adminToken = '';
let dealerToken = '';
beforeAll(async () => {
  ensureAdminBuild();
  const port = await freePort();
  standIn = `http://127.0.0.1:${port}`;
  [server, browser] = await Promise.all([
    startServer({
      // The Africa's Talking stand-in on a known port, to read the SMS it was sent.
      STAND_IN_AFRICASTALKING_PORT: String(port),
      SMS_CALLBACK_SECRET: SECRET,
      APP_URL,
      // Short timers: a PIN approved at once, a sale the operator cannot tell about in review within seconds.
      PAYMENT_SANDBOX_APPROVAL_MS: '200',
      OPERATOR_SANDBOX_LATENCY_MS: '100',
      RECHARGE_REVIEW_AFTER_MS: '3000',
      RECHARGE_RETRY_BASE_MS: '200',
      RECHARGE_RECONCILE_MS: '1000',
    }),
    launchBrowser(),
  ]);
  adminToken = (await apiData<{ token: string }>(server, '/auth/admin/login', { method: 'POST', body: ADMIN })).token;
  dealerToken = (await apiData<{ token: string }>(server, '/auth/admin/login', { method: 'POST', body: DEALER })).token;
  await api(`/wallets/${(await demoWallet()).id}/top-up`, { method: 'POST', body: { amount: '20.00', reference: 'second-pass' } });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 900 };
type Lng = 'en' | 'ae' | 'so';
const SIZES = [
  { name: '390 px, Arabic', viewport: PHONE, lng: 'ae' as Lng, phone: true, n: 0 },
  { name: '1366 px, Somali', viewport: DESKTOP, lng: 'so' as Lng, phone: false, n: 1 },
] as const;
type Size = (typeof SIZES)[number];

// ---- The product's words, from the files the apps read ----
type Dict = Record<string, unknown>;
type Book = 'admin' | 'api' | 'storefront';
const load = (lng: Lng, file: string) => JSON.parse(readFileSync(join(ROOT, 'locales', lng, `${file}.json`), 'utf8')) as Dict;
const WORDS = Object.fromEntries(
  (['en', 'ae', 'so'] as const).map((l) => [l, { admin: { ...load(l, 'admin'), ...load(l, 'ra') }, api: load(l, 'api'), storefront: load(l, 'storefront') }]),
) as Record<Lng, Record<Book, Dict>>;
/** A text by its key, its {{values}} filled in. */
function tr(lng: Lng, key: string, values: Record<string, string> = {}, book: Book = 'admin', raw = false): string {
  const text = key.split('.').reduce<unknown>((at, part) => (at as Dict | undefined)?.[part], WORDS[lng][book]);
  if (typeof text !== 'string') throw new Error(`no ${book} text ${key} in ${lng}`);
  if (raw) return text;
  return text.replace(/\{\{(\w+)\}\}/g, (_, k: string) => values[k] ?? '');
}
/** Text without the direction marks put around numbers and references. */
const plain = (s: string) => s.replace(/[\u2066-\u2069\u200e\u200f]/g, '').replace(/\s+/g, ' ');
/** A template's longest run of words between its {{placeholders}} ("could not be delivered"). */
const wordsBetween = (template: string) =>
  template
    .split(/\{\{\w+\}\}/)
    .map((s) => s.replace(/^[\s.:]+|[\s.:]+$/g, ''))
    .sort((a, b) => b.length - a.length)[0];
const textOf = async (l: Locator) => plain(await l.innerText());
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// ---- Setting the stage through the API ----
const api = <T = unknown>(path: string, init: { method?: string; body?: unknown; token?: string } = {}) =>
  apiData<T>(server, path, { ...init, token: init.token ?? adminToken });
const demoWallet = async () => (await api<{ id: number; dealer_id: number }[]>('/wallets?q=DEMO'))[0];
interface Sale {
  id: number;
  reference: string;
  status: string;
  payment_state: string;
  profit?: string | null;
}
const saleOf = async (id: number) => (await api<{ recharge: Sale }>(`/recharges/${id}`)).recharge;
/** Waits until a sale leaves pending/processing (or reaches `until`). */
async function settled(id: number, until = /^(?!pending|processing)/): Promise<Sale> {
  let r!: Sale;
  await expect
    .poll(
      async () => {
        r = await saleOf(id);
        return r.status;
      },
      { timeout: 60_000, interval: 300 },
    )
    .toMatch(until);
  return r;
}
let keys = 0;
/** A purchase from the DEMO shop's storefront API (Hormuud 1 GB Daily, EVC Plus). */
async function buy(phone: string, payer: string): Promise<{ id: number; reference: string }> {
  const headers = { dealer_code: 'DEMO', 'content-type': 'application/json' };
  const providers = (await (await fetch(`${server.url}/api/v1/client/dealer/providers`, { headers })).json()).data.providers as {
    name: string;
    categories: { bundles: { id: number; name: string }[] }[];
  }[];
  const bundle = providers
    .find((p) => p.name === 'Hormuud')!
    .categories.flatMap((c) => c.bundles)
    .find((b) => b.name === '1 GB Daily')!;
  const methods = (await (await fetch(`${server.url}/api/v1/client/payment-methods`, { headers })).json()).data as { id: number; type: string }[];
  const res = await fetch(`${server.url}/api/v1/client/recharge`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      bundle_id: bundle.id,
      payment_method_id: methods.find((m) => m.type === 'evc_plus')!.id,
      phone,
      payer_phone: payer,
      idempotency_key: `second-pass-${Date.now()}-${++keys}`,
    }),
  });
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body.data;
}

interface Sent {
  messageId: string;
  number: string;
  message: string;
}
/** What the SMS stand-in was sent. */
const smsBook = async () => ((await (await fetch(`${standIn}/_standin/books`)).json()) as { sent: Sent[] }).sent;

// ---- The console and the storefront as people open them ----
async function consoleAt(who: typeof ADMIN, path: string, size: Size, lng: Lng = size.lng) {
  const { context, page, errors } = await newPage(browser, server.url);
  await page.setViewportSize(size.viewport);
  // Sign-in follows no redirect into /auth/ (the profile): those are opened once signed in.
  const first = path.startsWith('/auth/') ? '/dashboard' : path;
  await signIn(page, who, `/auth/login?redirect=${encodeURIComponent(first)}`);
  await page.waitForURL((u) => u.pathname === first);
  if (first !== path) await page.goto(path);
  if (lng !== 'en') {
    await page.evaluate((l) => localStorage.setItem('i18nextLng', l), lng);
    await page.reload();
    await expect.poll(() => page.evaluate(() => document.documentElement.dir)).toBe(lng === 'ae' ? 'rtl' : 'ltr');
  }
  return { page, errors, close: () => context.close() };
}
async function shopAt(size: Size): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({
    baseURL: server.url,
    locale: size.lng === 'ae' ? 'ar' : 'so',
    viewport: size.viewport,
    isMobile: size.phone,
    hasTouch: size.phone,
  });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  return { context, page, errors };
}
/** A screenshot once dialogs and drawers have finished moving in. */
async function shot(page: Page, name: string) {
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Infinity));
  await page.screenshot({ path: artifactPath(`second-pass-${name}.png`) });
}

describe('item 3: a sale settled "not delivered" says what became of the money', () => {
  for (const size of SIZES) {
    it(`${size.name}: never Refunded while its payment returns; Failed with its payment Returned`, { timeout: 120_000 }, async () => {
      const L = size.lng;
      // 0615554444: the operator's stand-in never says whether the bundle arrived, so the sale waits in review.
      const { id, reference } = await buy('0615554444', `06170055${size.n}1`);
      await settled(id, /^needs_review$/);
      const { page, errors, close } = await consoleAt(ADMIN, '/recharges/review', size);
      // From now on, on every page load: a sale's page that reads Refunded while its payment reads
      // Returning is remembered (the session keeps it across loads).
      await page.context().addInitScript(
        ([refunded, returning]) => {
          document.addEventListener('DOMContentLoaded', () =>
            new MutationObserver(() => {
              const dialog = document.querySelector('[role=dialog]')?.textContent ?? '';
              if (dialog.includes(refunded) && dialog.includes(returning)) sessionStorage.setItem('mixed', '1');
            }).observe(document.body, { childList: true, subtree: true, characterData: true }),
          );
        },
        [tr(L, 'recharges.status.refunded'), tr(L, 'recharges.payment_states.releasing')],
      );
      await page.reload();
      await page.locator('main').getByText(reference).first().click();
      const drawer = page.getByRole('region', { name: tr(L, 'recharges.settle.title') });
      await drawer.waitFor();
      await drawer.getByRole('radio', { name: tr(L, 'recharges.settle.not_delivered'), exact: true }).check();
      await drawer.getByRole('textbox', { name: new RegExp(escape(tr(L, 'recharges.settle.note'))) }).fill('Hormuud has no record of the bundle');
      await drawer.getByRole('button', { name: tr(L, 'recharges.settle.submit') }).click();
      const confirm = page.getByRole('dialog', { name: tr(L, 'recharges.settle.confirm_title.not_delivered', { reference }) });
      if (size.phone) await shot(page, 'settle-not-delivered-390-ae');
      await confirm.getByRole('button', { name: tr(L, 'recharges.settle.confirm.not_delivered') }).click();
      await confirm.waitFor({ state: 'detached' });
      // Meanwhile (and while the page shows it), never Refunded with the payment still returning.
      await page.goto(`/recharges/${id}`);
      let done!: Sale;
      // Kept, not thrown: an expect inside the poll would be retried away by the next poll.
      let mixed: string | undefined;
      await expect
        .poll(
          async () => {
            done = await saleOf(id);
            if (done.status === 'refunded' && done.payment_state === 'releasing') mixed ??= JSON.stringify(done);
            return `${done.status} ${done.payment_state}`;
          },
          { timeout: 60_000, interval: 200 },
        )
        .toMatch(/^(failed|refunded|refund_pending) (?!releasing)/);
      expect(mixed, 'refunded while its payment was still returning').toBeUndefined();
      // Nothing was delivered and the reserve was let go: the sale failed, its money back.
      expect(done.status).toBe('failed');
      // The sale's own page: the words for what happened to the money, agreeing with each other.
      await page.reload();
      const detail = page.getByRole('dialog', { name: tr(L, 'recharges.detail_title') });
      await detail.getByText(reference).first().waitFor();
      await detail.getByText(tr(L, 'recharges.status.failed'), { exact: true }).first().waitFor();
      await detail
        .getByRole('table', { name: tr(L, 'recharges.detail_title') })
        .getByText(tr(L, 'recharges.payment_states.released'), { exact: true })
        .waitFor();
      // (Somali says "La celiyay" both for a refunded sale and a returned payment: there the words cannot tell.)
      if (tr(L, 'recharges.status.refunded') !== tr(L, 'recharges.payment_states.released'))
        expect(await textOf(detail)).not.toContain(tr(L, 'recharges.status.refunded'));
      if (size.phone) await shot(page, 'settled-not-delivered-detail-390-ae');
      await detail.getByRole('button', { name: tr(L, 'common.close') }).click();
      // The list agrees.
      const row = size.phone
        ? page.locator('main').getByText('615554444').first().locator('xpath=ancestor::li[1]')
        : page.locator('main').getByRole('row').filter({ hasText: reference }).first();
      await expect.poll(() => textOf(row)).toContain(tr(L, 'recharges.status.failed'));
      if (tr(L, 'recharges.status.refunded') !== tr(L, 'recharges.payment_states.released'))
        expect(await textOf(row)).not.toContain(tr(L, 'recharges.status.refunded'));
      expect(await page.evaluate(() => sessionStorage.getItem('mixed'))).toBeNull();
      expect(errors).toEqual([]);
      await close();
    });
  }
});

describe('item 6: the sales CSV carries no profit for a failed or refunded sale', () => {
  for (const size of SIZES) {
    it(`${size.name}: the profit column holds 0.10 for the delivered sale and nothing for the failed and the refunded one`, { timeout: 120_000 }, async () => {
      const L = size.lng;
      // Delivered (profit 0.10), declined by the payer (…0000), delivered then refunded.
      const [delivered, declined, refunded] = await Promise.all([
        buy(`06156${size.n}0001`, '0617000021'),
        buy(`06156${size.n}0002`, '0617770000'),
        buy(`06156${size.n}0003`, '0617000021'),
      ]);
      expect((await settled(delivered.id)).status).toBe('completed');
      expect((await settled(declined.id)).status).toBe('failed');
      expect((await settled(refunded.id)).status).toBe('completed');
      await api(`/recharges/${refunded.id}/refund`, { method: 'POST' });
      expect((await saleOf(refunded.id)).status).toBe('refunded');

      const { page, errors, close } = await consoleAt(ADMIN, '/recharges', size);
      const exportButton = page.getByRole('button', { name: tr(L, 'common.export_csv') }).first();
      await exportButton.waitFor();
      const [download] = await Promise.all([page.waitForEvent('download'), exportButton.click()]);
      const csv = readFileSync(await download.path())
        .toString('utf8')
        .replace(/^\uFEFF/, '');
      const [header, ...lines] = csv.trim().split(/\r?\n/);
      const columns = header.split(',');
      const profitAt = columns.indexOf(tr(L, 'csv.columns.profit', {}, 'api'));
      expect(profitAt, header).toBeGreaterThan(0);
      const profitOf = (id: number) => {
        const line = lines.find((l) => l.startsWith(`${id},`));
        expect(line, `sale ${id} in the CSV`).toBeTruthy();
        return line!.split(',')[profitAt];
      };
      expect(Number(profitOf(delivered.id))).toBeCloseTo(0.1, 2);
      // No amount of profit on the others: empty (or zero), never 0.10.
      for (const s of [declined, refunded]) expect(Number(profitOf(s.id) || 0)).toBe(0);
      expect(errors).toEqual([]);
      await close();
    });
  }
});

describe("item 8: a log entry's change in words", () => {
  for (const size of SIZES) {
    it(`${size.name}: the field by its name and the cost in major units with the currency, never "cost_price 70 -> 90"`, async () => {
      const L = size.lng;
      const [bundle] = await api<{ h_id: string; name: string; cost_price: string }[]>('/bundles?q=500%20MB%20Daily&per_page=1');
      const before = bundle.cost_price;
      // Lowered (a raise above a shop's price asks first): a cent or two, so each size has its own entry.
      const minorBefore = Math.round(Number(before) * 100);
      const minorAfter = minorBefore - 1 - size.n;
      const after = (minorAfter / 100).toFixed(2);
      await api(`/bundles/${bundle.h_id}`, { method: 'PATCH', body: { cost_price: after } });
      const { page, errors, close } = await consoleAt(ADMIN, '/logs', size);
      // The newest entry about the bundle (the sign-in came after it).
      const entry = (size.phone ? page.locator('main').getByRole('listitem') : page.locator('main').getByRole('row')).filter({ hasText: /500/ }).first();
      // Its time (the sentence links to the bundle itself).
      await (size.phone ? entry : entry.getByRole('cell').first()).click();
      const change = page.getByRole('table', { name: tr(L, 'logs.change') });
      await change.waitFor();
      const row = change.getByRole('row').filter({ hasText: tr(L, 'logs.field_names.cost_price') });
      await expect.poll(() => textOf(row)).toContain(`${after} USD`);
      expect(await textOf(row)).toContain(`${before} USD`);
      const cells = await row.getByRole('cell').allInnerTexts();
      expect(cells.map(plain)).not.toContain(String(minorAfter));
      expect(cells.map(plain)).not.toContain(String(minorBefore));
      expect(await textOf(change)).not.toMatch(/cost_price|->/);
      if (size.phone) await shot(page, 'log-change-390-ae');
      expect(errors).toEqual([]);
      await close();
    });
  }
});

describe('item 13: the SMS receipt after a failure, and a dealer turning receipts off', () => {
  for (const size of SIZES) {
    it(
      `${size.name}: declined in the sheet, the SMS says it failed and no money was taken; the sheet names methods without "(company)"`,
      { timeout: 120_000 },
      async () => {
        const L = size.lng;
        const { context, page, errors } = await shopAt(size);
        await page.goto(`/dealer/DEMO?lng=${L}`);
        await page.getByRole('link', { name: L === 'ae' ? 'هرمود' : 'Hormuud' }).click();
        await page
          .getByRole('link', { name: L === 'ae' ? /يومي/ : /Maalinle/ })
          .first()
          .click();
        const bundle = L === 'ae' ? '1 جيجابايت يومي' : '1 GB Maalinle';
        await page.getByRole('button', { name: tr(L, 'shop.buy_named', { bundle }, 'storefront') }).click();
        const sheet = page.getByRole('dialog', { name: tr(L, 'purchase.title', { bundle }, 'storefront') });
        // The shop's payment methods by the names customers know, not the console's "(company)" labels.
        const methods = await textOf(sheet.getByRole('group').first());
        expect(methods).toContain('EVC Plus');
        expect(methods).not.toMatch(/company|الشركة|shirkadda/);
        // The stand-in gateway declines payers whose number ends in 0000.
        const payer = `0617${size.n}70000`;
        await sheet.getByLabel(tr(L, 'purchase.phone', {}, 'storefront')).fill(`0615${size.n}71234`);
        await sheet.getByLabel(tr(L, 'purchase.payer', {}, 'storefront')).fill(payer);
        await sheet.getByRole('button', { name: new RegExp(`^${escape(tr(L, 'purchase.confirm', {}, 'storefront').split('{{')[0].trim())}`) }).click();
        await sheet.getByRole('button', { name: tr(L, 'outcome.change_payer', {}, 'storefront') }).waitFor({ timeout: 60_000 });
        if (size.phone) await shot(page, 'shop-declined-390-ae');
        const reference = (await sheet.innerText()).match(/RC[A-Z0-9]{10}/)?.[0];
        expect(reference).toBeTruthy();
        // The receipt on the payer's phone: failed, no money taken, the order link, in the customer's language.
        let sms: Sent | undefined;
        await expect
          .poll(
            async () => {
              sms = (await smsBook()).find((s) => s.message.includes(reference!));
              return !!sms;
            },
            { timeout: 30_000, interval: 250 },
          )
          .toBe(true);
        expect(sms!.number).toBe(`+252${payer.slice(1)}`);
        expect(sms!.message).toContain(tr(L, 'sms.money.nothing_taken', {}, 'api'));
        expect(sms!.message).toContain(wordsBetween(tr(L, 'sms.receipt.failed', {}, 'api', true)));
        expect(sms!.message).not.toContain(wordsBetween(tr(L, 'sms.receipt.delivered', {}, 'api', true)));
        expect(sms!.message).toContain(`${APP_URL}/dealer/DEMO/order/${reference}`);
        expect(errors).toEqual([]);
        await context.close();
      },
    );
  }

  for (const size of SIZES) {
    it(`${size.name}: the dealer turns receipts off on its profile, the next sale sends none; on again, it does`, { timeout: 120_000 }, async () => {
      const L = size.lng;
      const { page, errors, close } = await consoleAt(DEALER, '/auth/profile', size);
      const card = page.locator('.MuiCard-root').filter({ has: page.getByRole('heading', { name: tr(L, 'sms.receipts_title') }) });
      const toggle = card.getByRole('switch', { name: tr(L, 'sms.receipts_switch') }).or(card.getByRole('checkbox', { name: tr(L, 'sms.receipts_switch') }));
      await expect.poll(() => toggle.isChecked()).toBe(true);
      await expect.poll(() => toggle.isEnabled()).toBe(true);
      await toggle.click();
      await page.getByText(tr(L, 'sms.receipts_off'), { exact: true }).first().waitFor();
      expect(await toggle.isChecked()).toBe(false);
      if (size.phone) await shot(page, 'receipts-off-390-ae');
      const off = await buy(`06158${size.n}1234`, `06178${size.n}1234`);
      expect((await settled(off.id)).status).toBe('completed');
      // Still off after a reload; on again, the next sale gets its receipt and the one made while off never does.
      await page.reload();
      await expect.poll(() => toggle.isChecked()).toBe(false);
      await expect.poll(() => toggle.isEnabled()).toBe(true);
      await toggle.click();
      await page.getByText(tr(L, 'sms.receipts_on'), { exact: true }).first().waitFor();
      const on = await buy(`06158${size.n}5678`, `06178${size.n}5678`);
      expect((await settled(on.id)).status).toBe('completed');
      await expect.poll(async () => (await smsBook()).some((s) => s.message.includes(on.reference)), { timeout: 30_000 }).toBe(true);
      expect((await smsBook()).some((s) => s.message.includes(off.reference))).toBe(false);
      expect(errors).toEqual([]);
      await close();
    });
  }
});

describe("item 10: the console's files come compressed", () => {
  for (const size of SIZES) {
    it(`${size.name}: every script of the first load of 1 KB or more is sent gzip or brotli`, async () => {
      const { context, page, errors } = await newPage(browser, server.url);
      await page.setViewportSize(size.viewport);
      await signIn(page);
      await page.waitForURL(/\/dashboard$/);
      await page.locator('main h1').first().waitFor();
      // The reader's language, then the console loaded afresh from the server (no cache): each
      // script and stylesheet, how it came and (when it came as it is) its size.
      await page.evaluate((l) => localStorage.setItem('i18nextLng', l), size.lng);
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
      const files: { path: string; encoding?: string; size: number }[] = [];
      page.on('response', (r) => {
        const path = new URL(r.url()).pathname;
        const headers = r.headers();
        // No length given: counted as big (it could be anything).
        if (/\.(js|css)$/.test(path)) files.push({ path, encoding: headers['content-encoding'], size: Number(headers['content-length'] ?? Infinity) });
      });
      await page.reload();
      await page.locator('main h1').first().waitFor();
      await page.waitForLoadState('networkidle');
      expect(files.length).toBeGreaterThan(3);
      // Under 1 KB a file is sent as it is (compressing it saves less than the headers cost); all others compressed.
      const compressed = (f: (typeof files)[number]) => /^(br|gzip)$/.test(f.encoding ?? '');
      expect(files.filter((f) => f.path.endsWith('.js') && compressed(f)).length).toBeGreaterThan(0);
      expect(files.filter((f) => !compressed(f) && f.size >= 1024).map((f) => `${f.path} (${f.size} B)`)).toEqual([]);
      if (size.phone) await shot(page, 'dashboard-390-ae');
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});

describe('item 10: the reports on a phone start with their figures, not their filters', () => {
  it('390 px, Arabic: the period in view, the other filters behind a button, the table on the first screen', { timeout: 90_000 }, async () => {
    const size = SIZES[0];
    const L = size.lng;
    const { page, errors, close } = await consoleAt(ADMIN, '/reports', size);
    const table = page.getByRole('table').first();
    await table.waitFor();
    // Eight filters stacked one per row pushed the figures to y = 780 of 844: now the filters end in
    // the screen's top half, and the table (under the chart when there are sales) starts on it.
    const more = page.getByRole('button', { name: tr(L, 'reports.more_filters') });
    const bar = (await page.locator('.MuiCard-root').filter({ has: more }).boundingBox())!;
    expect(bar.y + bar.height, `the filters end at y = ${bar.y + bar.height}`).toBeLessThan(size.viewport.height / 2);
    const top = (await table.boundingBox())!.y;
    expect(top, `the table starts at y = ${top}`).toBeLessThan(size.viewport.height);
    expect(await page.getByLabel(tr(L, 'reports.group_by')).count()).toBe(0);
    await shot(page, 'reports-390-ae');
    await more.click();
    await page.getByLabel(tr(L, 'reports.group_by')).waitFor();
    expect(await more.getAttribute('aria-expanded')).toBe('true');
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await shot(page, 'reports-390-ae-filters-open');
    expect(errors).toEqual([]);
    await close();
  });
});

describe("item 10: a dealer's My wallet over a slow phone link", () => {
  for (const size of SIZES) {
    it(`${size.name}: at 1.6 Mbps, the balance shows with what a 6 s wait carries (it took 10 s)`, { timeout: 90_000 }, async () => {
      const L = size.lng;
      const { page, errors, close } = await consoleAt(DEALER, '/dashboard', size);
      await page.locator('main h1').first().waitFor();
      // The link the issue measured on: 1.6 Mbps down, 750 kbps up, 150 ms; nothing from the cache.
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 150, downloadThroughput: 200_000, uploadThroughput: 93_750 });
      // What decides the wait on such a link is what crosses it: the bytes are counted and held to a
      // budget (the time is printed, not asserted: a busy machine would make it flake; npm run
      // bench:console measures first loads).
      let bytes = 0;
      cdp.on('Network.loadingFinished', (e: { encodedDataLength: number }) => {
        bytes += e.encodedDataLength;
      });
      const started = Date.now();
      await page.goto('/my-wallet');
      const balance = page.getByTestId('my-balance');
      await balance.waitFor({ timeout: 30_000 });
      const took = Date.now() - started;
      expect(await textOf(balance)).toMatch(/^\d+\.\d\d USD$/);
      await page.getByRole('heading', { level: 1, name: tr(L, 'menu.my_wallet') }).waitFor();
      if (size.phone) await shot(page, 'my-wallet-slow-390-ae');
      console.info(`My wallet at 1.6 Mbps, ${size.name}: balance after ${took} ms, ${Math.round(bytes / 1024)} KB transferred`);
      // 700 KB is 3.6 s at 1.6 Mbps, leaving room for the round trips within the 6 s aimed at.
      expect(bytes, `My wallet's load transferred ${bytes} bytes`).toBeLessThan(700 * 1024);
      expect(errors).toEqual([]);
      await close();
    });
  }
});

describe('item 3: a declined payment reaches the dealer\'s webhook as a failed sale, never "refunded"', () => {
  // A receiver on loopback (allowed outside production) that keeps what it gets.
  const got: { type: string; data: Record<string, unknown> }[] = [];
  let receiver: http.Server;
  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    await api('/dealer/webhook', { method: 'PUT', token: dealerToken, body: { url } });
  });
  afterAll(() => new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r())));

  for (const size of SIZES) {
    it(`${size.name}: the event says failed, and the delivery's page shows the body sent`, { timeout: 90_000 }, async () => {
      const L = size.lng;
      const declined = await buy(`06159${size.n}1234`, `06179${size.n}0000`);
      expect((await settled(declined.id)).status).toBe('failed');
      await expect.poll(() => got.some((e) => e.type === 'recharge.failed' && e.data.reference === declined.reference), { timeout: 30_000 }).toBe(true);
      const event = got.find((e) => e.type === 'recharge.failed' && e.data.reference === declined.reference)!;
      expect(event.data.status).toBe('failed');
      expect(got.filter((e) => e.data.reference === declined.reference).map((e) => e.type)).not.toContain('recharge.refunded');

      const { page, errors, close } = await consoleAt(DEALER, '/webhooks', size);
      const failedType = tr(L, 'webhooks.types.recharge_failed');
      await page.locator('main').getByText(failedType).first().click();
      const delivery = page.getByRole('region', { name: failedType });
      await delivery.getByText(tr(L, 'webhooks.body_sent')).waitFor();
      const body = plain(await delivery.innerText());
      expect(body).toContain(declined.reference);
      expect(body).toMatch(/"status": ?"failed"/);
      expect(body).not.toMatch(/"status": ?"refunded"/);
      if (size.phone) await shot(page, 'webhook-failed-390-ae');
      expect(errors).toEqual([]);
      await close();
    });
  }
});

describe("item 7a: a session whose cookie is gone, in the reader's language", () => {
  for (const size of SIZES) {
    it(`${size.name}: sign-in keeps ?redirect= and says the session ended`, async () => {
      const L = size.lng;
      const { page, errors, close } = await consoleAt(ADMIN, '/recharges', size);
      await page.locator('main h1').first().waitFor();
      await page.context().clearCookies({ name: 'auth_token' });
      await page.reload();
      await page.waitForURL(/\/auth\/login\?redirect=%2Frecharges$/);
      await page
        .getByRole('status')
        .filter({ hasText: tr(L, 'auth.session_ended') })
        .waitFor();
      expect(await page.evaluate(() => document.documentElement.dir)).toBe(L === 'ae' ? 'rtl' : 'ltr');
      if (size.phone) await shot(page, 'session-ended-390-ae');
      expect(errors).toEqual([]);
      await close();
    });
  }
});

describe("item 5a: a cost raised above a dealer's price takes the bundle off its shop, and the dealer's catalogue says why", () => {
  // 10 GB Monthly (cost 5.00): DEMO sells Hormuud's at its own 5.75 and Somtel's at 5.10.
  const cases = [
    [SIZES[0], 'Hormuud', 'هرمود', '5.75', '5.90'],
    [SIZES[1], 'Somtel', 'Somtel', '5.10', '5.50'],
  ] as const;
  for (const [size, operator, operatorName, price, cost] of cases) {
    it(
      `${size.name}: asked before and said after; the shop no longer offers it; the dealer's row reads "not on sale: priced below cost"`,
      { timeout: 120_000 },
      async () => {
        const L = size.lng;
        const [b] = (
          await api<{ id: number; h_id: string; cost_price: string; provider: { id: number; name: string }; category: { id: number } }[]>(
            '/bundles?q=10%20GB%20Monthly&per_page=50',
          )
        ).filter((x) => x.provider.name === operator);
        expect(b.cost_price).toBe('5.00');
        const bundle = L === 'ae' ? '10 جيجابايت شهري' : '10 GB Bille';
        const other = L === 'ae' ? '25 جيجابايت شهري' : '25 GB Bille';
        const buyButton = (p: Page, name: string) => p.getByRole('button', { name: tr(L, 'shop.buy_named', { bundle: name }, 'storefront'), exact: true });

        // The customer's view before: the shop offers it.
        const shop = await shopAt(size);
        await shop.page.goto(`/dealer/DEMO?lng=${L}`);
        await shop.page.getByRole('link', { name: operatorName }).click();
        await shop.page
          .getByRole('link', { name: L === 'ae' ? /شهري/ : /Bille/ })
          .first()
          .click();
        await buyButton(shop.page, bundle).waitFor();

        // The admin raises the cost: asked first (naming the shop and its price), told after.
        const admin = await consoleAt(ADMIN, `/internet-providers/${b.provider.id}/categories/${b.category.id}/bundles/${b.id}`, size);
        const costField = admin.page.getByLabel(new RegExp(`^${escape(tr(L, 'catalogue.fields.cost_price'))}`)).first();
        await expect.poll(() => costField.inputValue()).toBe('5.00');
        await costField.fill(cost);
        await admin.page.getByRole('button', { name: tr(L, 'ra.action.update') }).click();
        const dialog = admin.page.getByRole('dialog', { name: tr(L, 'catalogue.bundle.off_sale_confirm_title_one', { smart_count: '1' }) });
        await expect.poll(() => textOf(dialog)).toContain('Demo Dealer (DEMO)');
        expect(await textOf(dialog)).toContain(price);
        await dialog.getByRole('button', { name: tr(L, 'catalogue.bundle.off_sale_confirm_save') }).click();
        const saved = plain(tr(L, 'catalogue.bundle.off_sale_saved_one', { smart_count: '1' })).replace(/[\s.:]+$/, '');
        await expect.poll(() => textOf(admin.page.locator('body')), { timeout: 15_000 }).toContain(saved);
        expect((await api<{ cost_price: string }>(`/bundles/${b.h_id}`)).cost_price).toBe(cost);
        await admin.close();

        try {
          // The customer's view after: the bundle is gone from the same page, the rest of it still sold.
          await shop.page.reload();
          await buyButton(shop.page, other).waitFor();
          expect(await buyButton(shop.page, bundle).count()).toBe(0);
          if (size.phone) await shot(shop.page, 'cost-raise-shop-390-ae');
          expect(shop.errors).toEqual([]);
          await shop.context.close();

          // The dealer's catalogue: still switched on, but its row says it is not sold and why, with the way out.
          const dealer = await consoleAt(DEALER, `/dealer-providers/${b.provider.id}/categories/${b.category.id}/bundles`, size);
          const name = /10 (GB|جيجابايت) (Monthly|شهري|Bille)/;
          const row = size.phone
            ? dealer.page.locator('main').getByRole('listitem').filter({ hasText: name }).first()
            : dealer.page.locator('main').getByRole('row').filter({ hasText: name }).first();
          const offSale = row.getByText(tr(L, 'dealer_catalogue.not_on_sale_below_cost'), { exact: true });
          await offSale.waitFor();
          await offSale.hover();
          await dealer.page
            .getByRole('tooltip')
            .filter({ hasText: tr(L, 'dealer_catalogue.not_on_sale_help') })
            .waitFor();
          // No switch reading "on" for a bundle the shop does not sell; stopping is offered instead.
          expect(await row.getByRole('switch').count()).toBe(0);
          expect(await row.getByRole('checkbox', { checked: true }).count()).toBe(0);
          const stop = row.getByRole('button', { name: new RegExp(`^${escape(tr(L, 'dealer_catalogue.turn_off').trim())} .*10`) });
          // (Its text as written: the button shows it in capitals.)
          expect(plain((await stop.textContent()) ?? '').trim()).toBe(tr(L, 'dealer_catalogue.stop_offering'));
          // The other monthly bundles of the row's category keep their switch.
          const sibling = size.phone
            ? dealer.page
                .locator('main')
                .getByRole('listitem')
                .filter({ hasText: /25 (GB|جيجابايت)/ })
                .first()
            : dealer.page
                .locator('main')
                .getByRole('row')
                .filter({ hasText: /25 (GB|جيجابايت)/ })
                .first();
          expect(await sibling.getByText(tr(L, 'dealer_catalogue.not_on_sale_below_cost'), { exact: true }).count()).toBe(0);
          if (size.phone) await shot(dealer.page, 'cost-raise-dealer-row-390-ae');
          expect(dealer.errors).toEqual([]);
          await dealer.close();
        } finally {
          // Back to its cost, for the other tests.
          await api(`/bundles/${b.h_id}`, { method: 'PATCH', body: { cost_price: '5.00' } });
        }
      },
    );
  }
});

describe('item 6a: a refunded sale earned nothing, in the sales list and on its page', () => {
  for (const size of SIZES) {
    it(`${size.name}: no profit on a refunded or a failed sale, with the reason; the delivered one shows 0.10`, { timeout: 120_000 }, async () => {
      const L = size.lng;
      const phones = [`06158${size.n}0001`, `06158${size.n}0002`, `06158${size.n}0003`];
      // Delivered, delivered then refunded, declined by the payer (…0000).
      const [delivered, refunded, declined] = await Promise.all([buy(phones[0], '0617000021'), buy(phones[1], '0617000021'), buy(phones[2], '0617770000')]);
      expect((await settled(delivered.id)).profit).toBe('0.10');
      expect((await settled(refunded.id)).status).toBe('completed');
      expect((await settled(declined.id)).status).toBe('failed');
      await api(`/recharges/${refunded.id}/refund`, { method: 'POST' });
      expect((await saleOf(refunded.id)).status).toBe('refunded');

      const { page, errors, close } = await consoleAt(ADMIN, '/recharges', size);
      // A sale in the list: its reference in the table; on a phone (no reference shown) the number topped up.
      const listedSale = (s: { reference: string }, phone: string) =>
        size.phone
          ? page.locator('main').getByText(phone.slice(1)).first().locator('xpath=ancestor::li[1]')
          : page.locator('main').getByRole('row').filter({ hasText: s.reference }).first();
      const reasons = { refunded: tr(L, 'recharges.no_profit.refunded'), failed: tr(L, 'recharges.no_profit.not_delivered') };
      const row = listedSale(refunded, phones[1]);
      await row.waitFor();
      if (!size.phone) {
        // The profit column: a dash read as its reason, never an amount.
        for (const [s, phone, why] of [
          [refunded, phones[1], reasons.refunded],
          [declined, phones[2], reasons.failed],
        ] as const) {
          const profit = listedSale(s, phone).getByTestId('no-profit');
          expect(await profit.getAttribute('title')).toBe(why);
          expect((await profit.innerText()).trim()).toMatch(/^—/);
          expect(await textOf(listedSale(s, phone))).not.toContain('0.10');
        }
        await expect.poll(() => textOf(listedSale(delivered, phones[0]))).toContain('0.10');
      }
      // Its page: the profit row gives the reason and no amount.
      await row.click();
      const detail = page.getByRole('dialog', { name: tr(L, 'recharges.detail_title') });
      await detail.getByText(refunded.reference).first().waitFor();
      const profitRow = detail.getByRole('row').filter({ has: page.getByRole('rowheader', { name: tr(L, 'recharges.fields.profit'), exact: true }) });
      await profitRow.getByText(reasons.refunded).waitFor();
      expect(await textOf(profitRow)).not.toMatch(/\d\.\d\d/);
      if (size.phone) await shot(page, 'no-profit-refunded-390-ae');
      await detail.getByRole('button', { name: tr(L, 'common.close') }).click();
      await listedSale(declined, phones[2]).click();
      await detail.getByText(declined.reference).first().waitFor();
      await profitRow.getByText(reasons.failed).waitFor();
      expect(await textOf(profitRow)).not.toMatch(/\d\.\d\d/);
      await detail.getByRole('button', { name: tr(L, 'common.close') }).click();
      await listedSale(delivered, phones[0]).click();
      await detail.getByText(delivered.reference).first().waitFor();
      await expect.poll(() => textOf(profitRow)).toContain('0.10');
      expect(errors).toEqual([]);
      await close();
    });
  }
});
