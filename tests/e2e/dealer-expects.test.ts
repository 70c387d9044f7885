import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startMailCatcher } from '../api/mail-catcher';
import { ADMIN, DEALER, ROOT, apiData, artifactPath, buyFromDemoShop, newPage, signIn, useServerAndBrowser } from './harness';

/**
 * Issue 28 item 12, "what people expect and do not find", in Chromium against the real server, each
 * at 390 px and 1366 px, in Arabic and Somali where words matter: a dealer's own shop (link, QR
 * code, its face on the storefront); a "Profit Only" dealer's payout, approved by an admin from the
 * menu badge and the dashboard card; "where to pay" in the top-up dialog; dealers under their
 * low-balance alert; the welcome email of a new account; a percentage markup; recharges and the
 * ledger sorted by date; the company's name and logo in the header and the title.
 */
const env = useServerAndBrowser();

type Lang = 'en' | 'ae' | 'so';
const SIZES = [
  { name: '390 px', viewport: { width: 390, height: 844 }, phone: true },
  { name: '1366 px', viewport: { width: 1366, height: 900 }, phone: false },
] as const;
type Size = (typeof SIZES)[number];

// ---------------------------------------------------------------------------------------------
// Words as the console, the API and the storefront say them (plural forms as i18next picks them).
type Book = 'admin' | 'api';
const BOOKS = Object.fromEntries(
  (['en', 'ae', 'so'] as const).map((l) => {
    const read = (f: string) => JSON.parse(readFileSync(join(ROOT, 'locales', l, f), 'utf8'));
    return [l, { admin: { ...read('admin.json'), ...read('ra.json') }, api: read('api.json') }];
  }),
) as Record<Lang, Record<Book, Record<string, unknown>>>;

function word(lang: Lang, key: string, vars: Record<string, string | number> = {}, book: Book = 'admin'): string {
  const get = (k: string) => k.split('.').reduce<unknown>((o, p) => (o as Record<string, unknown> | undefined)?.[p], BOOKS[lang][book]);
  let text = get(key);
  if (typeof text !== 'string' && typeof vars.smart_count === 'number') {
    const n = vars.smart_count;
    const form = new Intl.PluralRules(lang === 'ae' ? 'ar' : lang).select(n);
    text = (n === 0 ? get(`${key}_zero`) : undefined) ?? get(`${key}_${form}`) ?? get(`${key}_other`);
  }
  if (typeof text !== 'string') throw new Error(`no ${book} word ${key} in ${lang}`);
  return text.replace(/\{\{(\w+)\}\}/g, (all, v: string) => (v in vars ? String(vars[v]) : all));
}
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A form label, with or without react-admin's required mark. */
const labelled = (text: string) => new RegExp(`^${esc(text)}\\s*\\*?$`);
/** Text with the bidi isolates the console puts around numbers taken out. */
const plain = (s: string) => s.replace(/[\u2066-\u2069\u200e\u200f]/g, '');

// ---------------------------------------------------------------------------------------------
// Setup through the API (what is not the point of a test).
let admin = '';
const api = <T = unknown>(path: string, init: Parameters<typeof apiData>[2] = {}) => apiData<T>(env.server, path, { token: admin, ...init });

/** A PNG of one colour (a logo that shows), made here: no image files in the repository needed. */
function png(size: number, [r, g, b]: [number, number, number]): Buffer {
  const table = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const byte of buf) c = table[(c ^ byte) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: size }, () => [r, g, b]).flat())]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: size }, () => row)));
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', header), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))]);
}

/** A multipart call (a logo file beside the fields), as the console makes it. */
async function multipart<T>(method: string, path: string, fields: Record<string, string>, file: { field: string; bytes: Buffer }): Promise<T> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append(file.field, new Blob([new Uint8Array(file.bytes)], { type: 'image/png' }), 'logo.png');
  const res = await fetch(`${env.server.url}/api/v1${path}`, { method, headers: { Authorization: `Bearer ${admin}`, Accept: 'application/json' }, body: form });
  const json = await res.json();
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data as T;
}

let dealerSeq = 0;
/** A new dealer made by an admin (its wallet at `credit`, as profit or money paid in). */
async function makeDealer(pricing: 'cost' | 'profit', credit?: string) {
  const code = `EXP${++dealerSeq}${Date.now() % 10000}`;
  const who = { name: `Hodan ${code}`, email: `${code.toLowerCase()}@dealers.example`, password: 'Dealer#Kite42', phone: '+252615550123' };
  const user = await multipart<{ id: number }>(
    'POST',
    '/users',
    {
      name: who.name,
      email: who.email,
      password: who.password,
      password_confirmation: who.password,
      phone: who.phone,
      user_type: 'dealer',
      dealer_code: code,
      pricing_model: pricing,
    },
    { field: 'dealer_logo', bytes: png(8, [15, 118, 110]) },
  );
  const [wallet] = await api<{ id: number }[]>(`/wallets?q=${code}`);
  if (credit)
    await api(`/wallets/${wallet.id}/adjust`, { method: 'POST', body: { type: 'credit', amount: credit, reference: `PROFIT-${code}`, note: 'Profit so far' } });
  return { ...who, id: user.id, code, walletId: wallet.id };
}

let mail: Awaited<ReturnType<typeof startMailCatcher>>;
/** Three sales a second apart (for the date sort) and a dealer under its low-balance alert. */
const setup = { sales: [] as string[], below: { name: '', code: '' } };
beforeAll(async () => {
  mail = await startMailCatcher();
  admin = (await apiData<{ token: string }>(env.server, '/auth/admin/login', { method: 'POST', body: ADMIN })).token;
  await api('/settings/mail', {
    method: 'PUT',
    body: { host: '127.0.0.1', port: mail.port, security: 'none', from_address: 'noreply@example.so', from_name: 'Somali Data' },
  });
  const [demo] = await api<{ id: number }[]>('/wallets?q=DEMO');
  await api(`/wallets/${demo.id}/top-up`, { method: 'POST', body: { amount: '5.00', reference: 'expects-e2e' } });
  for (let i = 0; i < 3; i++) {
    if (i) await new Promise((r) => setTimeout(r, 1100));
    const sale = await buyFromDemoShop(env.server, { phone: `061555010${i}`, idempotencyKey: `expects-sale-${i}` });
    expect(sale.status).toBe(201);
    setup.sales.push(sale.data.reference);
  }
  const below = await makeDealer('cost');
  await api(`/wallets/${below.walletId}/low-balance-alert`, { method: 'PUT', body: { threshold: 10 } });
  setup.below = { name: below.name, code: below.code };
}, 120_000);
afterAll(() => mail?.close());

// ---------------------------------------------------------------------------------------------
// Pages as people open them.

/** The console signed in as `who` at `path`, at the size, in the language (set after the English sign-in). */
async function consoleAt(who: { email: string; password: string }, path: string, size: Size, lang: Lang = 'en') {
  const { context, page, errors } = await newPage(env.browser, env.server.url);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.server.url });
  await page.setViewportSize(size.viewport);
  await signIn(page, who, `/auth/login?redirect=${encodeURIComponent(path)}`);
  await page.waitForURL((u) => u.pathname === path);
  if (lang !== 'en') {
    await page.evaluate((l) => localStorage.setItem('i18nextLng', l), lang);
    await page.reload();
    await expect.poll(() => page.evaluate(() => document.documentElement.dir)).toBe(lang === 'ae' ? 'rtl' : 'ltr');
  }
  return { page, errors, close: () => context.close() };
}

/** The storefront as a customer's phone or a desktop opens it. */
async function storefrontAt(path: string, size: Size) {
  const context = await env.browser.newContext({
    baseURL: env.server.url,
    locale: 'en-US',
    viewport: size.viewport,
    isMobile: size.phone,
    hasTouch: size.phone,
  });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  await page.goto(path);
  return { page, close: () => context.close() };
}

/** A toast (the console's snackbar) with these words. */
const toastSays = (page: Page, text: string) => page.locator('.MuiSnackbar-root').filter({ hasText: text }).first();

/** The main menu: on a phone behind the top bar's toggle. */
async function mainMenu(page: Page, size: Size, lang: Lang) {
  if (size.phone) await page.getByRole('button', { name: word(lang, 'topbar.toggle_sidebar') }).click();
  const nav = page.getByRole('navigation', { name: word(lang, 'layout.main_menu') });
  await nav.waitFor();
  return nav;
}

const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

// ---------------------------------------------------------------------------------------------

describe('1. My shop: the link, the QR code and the face customers see', () => {
  for (const size of SIZES) {
    it(`${size.name}: the dealer copies its link, sees the QR code, edits its shop; the storefront shows it`, { timeout: 180_000 }, async () => {
      const lang: Lang = size.phone ? 'ae' : 'en';
      const tag = size.phone ? 'phone' : 'desk';
      const face = {
        name: `Hodan Data ${tag}`,
        colour: size.phone ? '#7B1FA2' : '#C2185B',
        description: `Bundles for every network, from Hodan (${tag}).`,
        email: `shop-${tag}@hodan.example`,
        phone: size.phone ? '+252 61 5123456' : '+252 61 7654321',
      };
      const { page, errors, close } = await consoleAt(DEALER, '/my-shop', size, lang);
      await page.getByRole('heading', { name: word(lang, 'my_shop.link_title') }).waitFor();
      const url = `${env.server.url}/dealer/DEMO`;
      await expect.poll(() => page.getByTestId('shop-link').innerText()).toContain(url);
      // The QR code of the same link, drawn.
      const qr = page.getByRole('img', { name: word(lang, 'my_shop.qr_label', { link: url }) });
      await qr.locator('svg').waitFor();
      const box = (await qr.boundingBox())!;
      expect(box.width).toBeGreaterThan(150);
      expect(box.x + box.width).toBeLessThanOrEqual(size.viewport.width);
      await page.getByRole('button', { name: word(lang, 'my_shop.copy') }).click();
      await toastSays(page, word(lang, 'my_shop.copied')).waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
      expect(await page.getByRole('link', { name: word(lang, 'my_shop.open') }).getAttribute('href')).toBe(url);

      // Its face: name, colour, description, contacts.
      const field = (key: string) => page.getByRole('textbox', { name: word(lang, `my_shop.fields.${key}`), exact: true });
      await field('company_name').fill(face.name);
      await field('brand_color').fill(face.colour);
      await field('description').fill(face.description);
      await field('contact_email').fill(face.email);
      await field('contact_phone').fill(face.phone);
      await page.getByRole('button', { name: word(lang, 'my_shop.save'), exact: true }).click();
      await toastSays(page, word(lang, 'dealer_shop.saved', {}, 'api')).waitFor();
      if (size.phone) await page.screenshot({ path: artifactPath('dealer-expects-my-shop-390-ae.png'), fullPage: true });
      // Read again: what was saved.
      await page.reload();
      await expect.poll(() => field('company_name').inputValue()).toBe(face.name);
      expect(errors).toEqual([]);
      await close();

      // The customer's storefront (Somali on the phone: the dealer's own words have no translation and show as typed).
      const shop = await storefrontAt(size.phone ? '/dealer/DEMO?lng=so' : '/dealer/DEMO', size);
      const header = shop.page.locator('header.top');
      await header.getByText(face.name).waitFor();
      await expect.poll(() => header.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(rgb(face.colour));
      await shop.page.getByText(face.description).waitFor();
      if (size.phone) await shop.page.screenshot({ path: artifactPath('dealer-expects-storefront-390-so.png'), fullPage: true });
      // The contacts typed on My shop reach the shop's contacts (how customers reach the dealer).
      const contacts = shop.page.locator('section[aria-labelledby="contacts-title"]');
      await contacts.waitFor();
      expect.soft(await contacts.innerText(), 'the contact email saved on My shop is not on the storefront').toContain(face.email);
      expect.soft(await contacts.innerText(), 'the contact phone saved on My shop is not on the storefront').toContain(face.phone);
      await shop.close();
    });
  }
});

describe('2. A "Profit Only" dealer asks for a payout; an admin approves it', () => {
  for (const size of SIZES) {
    it(
      `${size.name}: payout asked (no top-up offered), seen on the menu badge and the dashboard card, approved with a confirmation, in the ledger`,
      { timeout: 180_000 },
      async () => {
        const lang: Lang = size.phone ? 'ae' : 'so';
        const profit = await makeDealer('profit', '40.00');
        const dealer = await consoleAt(profit, '/my-wallet', size, lang);
        const d = dealer.page;
        await d.getByRole('heading', { name: word(lang, 'menu.my_wallet'), level: 1 }).waitFor();
        await d.getByRole('button', { name: word(lang, 'wallets.request_payout') }).waitFor();
        expect(await d.getByRole('button', { name: word(lang, 'wallets.request_top_up') }).count()).toBe(0);
        await d.getByRole('button', { name: word(lang, 'wallets.request_payout') }).click();
        const ask = d.getByRole('dialog');
        await ask.getByText(word(lang, 'wallets.request_payout')).first().waitFor();
        expect(plain(await ask.innerText())).toContain('40.00 USD');
        await ask.getByLabel(word(lang, 'wallets.fields.amount'), { exact: true }).fill('12.50');
        expect(await ask.getByLabel(word(lang, 'wallets.payout_phone')).inputValue()).toBe(profit.phone);
        if (size.phone) await d.screenshot({ path: artifactPath('dealer-expects-payout-ask-390-ae.png') });
        await ask.getByRole('button', { name: word(lang, 'wallets.send_request') }).click();
        await toastSays(d, word(lang, 'wallets.payout_sent', {}, 'api')).waitFor();
        await ask.waitFor({ state: 'detached' });
        await d
          .getByRole('cell', { name: word(lang, 'wallets.request_kinds.payout') })
          .first()
          .waitFor();
        expect(dealer.errors).toEqual([]);
        await dealer.close();

        // The admin: the dashboard card and the Wallets badge count what waits.
        const waiting = (await api<{ count: number }>('/wallet-top-up-requests/pending-count')).count;
        expect(waiting).toBeGreaterThan(0);
        const staff = await consoleAt(ADMIN, '/dashboard', size, lang);
        const a = staff.page;
        const card = a
          .getByRole('link')
          .filter({ has: a.getByRole('heading', { name: word(lang, 'dashboard.attention_requests', { smart_count: waiting }) }) });
        await card.waitFor();
        const nav = await mainMenu(a, size, lang);
        await nav
          .getByRole('status', { name: word(lang, 'menu.waiting', { smart_count: waiting }) })
          .first()
          .waitFor();
        if (size.phone) {
          await a.screenshot({ path: artifactPath('dealer-expects-menu-badges-390-ae.png') });
          await a.keyboard.press('Escape');
          await nav.waitFor({ state: 'hidden' });
        }
        await card.click();
        await a.waitForURL((u) => u.pathname === '/wallets');
        const request = a
          .locator('#money-requests > div > div > div')
          .filter({ hasText: profit.name })
          .filter({ hasText: word(lang, 'wallets.request_kinds.payout') });
        await request.waitFor();
        await request.getByRole('button', { name: word(lang, 'wallets.approve') }).click();
        // Asked first: the amount and who, and where to send it.
        const confirm = a.getByRole('dialog');
        await confirm.waitFor();
        const asked = plain(await confirm.innerText());
        expect(asked).toContain(profit.name);
        expect(asked).toContain('12.50');
        expect(asked).toContain(profit.phone.replace('+252', ''));
        await confirm.getByRole('button', { name: word(lang, 'wallets.approve') }).click();
        await confirm.waitFor({ state: 'detached' });
        const said = a.locator('.MuiSnackbar-root').first();
        await said.waitFor();
        // A payout takes money out: it must not be called a top-up credited.
        expect.soft(await said.innerText(), 'approving a payout is announced as a top-up').not.toBe(word(lang, 'wallets.request_approved', {}, 'api'));
        await request.waitFor({ state: 'detached' });

        // The ledger shows the payout, taken from the wallet.
        await a.goto(`/wallet-transactions?dealer=${profit.id}`);
        const line = a
          .locator('main')
          .locator('tr, li')
          .filter({ hasText: word(lang, 'wallets.kinds.payout') });
        await line.first().waitFor();
        expect(plain(await line.first().innerText())).toContain('−12.50');
        // The balance after it (a phone's line shows the movement only).
        if (!size.phone) expect(plain(await line.first().innerText())).toContain('27.50');
        expect(staff.errors).toEqual([]);
        await staff.close();
      },
    );
  }
});

describe('3. The top-up dialog says where to pay', () => {
  for (const size of SIZES) {
    it(`${size.name}: the company's accounts, their instructions and its phone, in the reader's language`, { timeout: 120_000 }, async () => {
      const lang: Lang = size.phone ? 'ae' : 'so';
      const details = await apiData<{ phone: string; methods: { name: string; account_number: string | null; instructions: string | null }[] }>(
        env.server,
        `/wallet-top-up-requests/payment-details?lng=${lang}`,
        { token: (await apiData<{ token: string }>(env.server, '/auth/admin/login', { method: 'POST', body: DEALER })).token },
      );
      expect(details.methods.length).toBeGreaterThan(0);
      const { page, errors, close } = await consoleAt(DEALER, '/my-wallet', size, lang);
      await page.getByRole('button', { name: word(lang, 'wallets.request_top_up') }).click();
      const dialog = page.getByRole('dialog');
      const where = dialog.getByRole('region', { name: word(lang, 'wallets.where_to_pay_title') });
      await where.waitFor();
      await where.getByText(word(lang, 'wallets.where_to_pay_help')).waitFor();
      for (const m of details.methods) {
        await where.getByText(m.name, { exact: true }).waitFor();
        if (m.account_number) await where.getByText(m.account_number, { exact: true }).waitFor();
        if (m.instructions) await where.getByText(m.instructions).waitFor();
      }
      expect(plain(await where.innerText())).toContain(plain(word(lang, 'wallets.where_to_pay_phone', { phone: details.phone })));
      // Where to pay comes before the reference it asks for, all inside the screen.
      const box = (await where.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(size.viewport.width);
      expect(box.y).toBeLessThan((await dialog.getByLabel(word(lang, 'wallets.fields.reference')).boundingBox())!.y);
      if (size.phone) await page.screenshot({ path: artifactPath('dealer-expects-where-to-pay-390-ae.png') });
      expect(errors).toEqual([]);
      await close();
    });
  }
});

describe('4. Dealers under their low-balance alert', () => {
  for (const size of SIZES) {
    it(`${size.name}: the red pill on Wallets, the dashboard card, and "Below their alert only"`, { timeout: 120_000 }, async () => {
      const lang: Lang = size.phone ? 'so' : 'ae';
      const below = (await api<{ count: number }>('/wallets/below-alert-count')).count;
      expect(below).toBe(1);
      const { page, errors, close } = await consoleAt(ADMIN, '/dashboard', size, lang);
      const card = page
        .getByRole('link')
        .filter({ has: page.getByRole('heading', { name: word(lang, 'dashboard.attention_below_alert', { smart_count: 1 }) }) });
      await card.waitFor();
      const nav = await mainMenu(page, size, lang);
      const pill = nav.getByRole('status', { name: word(lang, 'menu.below_alert', { smart_count: 1 }) }).first();
      await pill.waitFor();
      expect((await pill.innerText()).trim()).toBe('1');
      // Red: money running out.
      const [r, g, b] = (await pill.evaluate((el) => getComputedStyle(el).backgroundColor)).match(/\d+/g)!.map(Number);
      expect(r).toBeGreaterThan(150);
      expect(r).toBeGreaterThan(g + 60);
      expect(r).toBeGreaterThan(b + 60);
      if (size.phone) {
        await page.keyboard.press('Escape');
        await nav.waitFor({ state: 'hidden' });
      }
      // The card opens the wallets filtered to them.
      await card.click();
      await page.waitForURL((u) => u.pathname === '/wallets');
      const onlyBelow = page.getByLabel(word(lang, 'wallets.alert.filter'));
      await expect.poll(() => onlyBelow.isChecked()).toBe(true);
      const main = page.locator('main');
      await main.getByText(setup.below.name).first().waitFor();
      await main.getByText(word(lang, 'wallets.alert.below'), { exact: true }).first().waitFor();
      await expect.poll(() => main.getByText('Demo Dealer').count()).toBe(0);
      if (!size.phone) await page.screenshot({ path: artifactPath('dealer-expects-below-alert-1366-ae.png') });
      // Off: every wallet; on again: only those under their alert, kept in the address.
      await onlyBelow.uncheck();
      await main.getByText('Demo Dealer').first().waitFor();
      if (size.phone && (await onlyBelow.count()) === 0) {
        // A phone keeps a filter without a value behind the Filter button.
        await page.getByRole('button', { name: word(lang, 'ra.action.add_filter') }).click();
        await page.getByRole('menu').getByText(word(lang, 'wallets.alert.filter'), { exact: true }).click();
      }
      await onlyBelow.check();
      await expect.poll(() => main.getByText('Demo Dealer').count()).toBe(0);
      expect(decodeURIComponent(page.url())).toContain('"below_alert":true');
      await main.getByText(setup.below.name).first().waitFor();
      expect(errors).toEqual([]);
      await close();
    });
  }
});

describe('5. A new account gets a welcome email with a set-password link', () => {
  for (const size of SIZES) {
    it(`${size.name}: created in the console, mailed, the link sets the password and the user signs in`, { timeout: 180_000 }, async () => {
      const lang: Lang = size.phone ? 'ae' : 'en';
      const who = { name: `Amina ${size.phone ? 'phone' : 'desk'}`, email: `amina-${size.phone ? 'phone' : 'desk'}@staff.example`, password: 'Typed#Pass41' };
      const chosen = 'Harbour#Kite42';
      const { page, errors, close } = await consoleAt(ADMIN, '/admin', size, lang);
      await page.getByRole('button', { name: word(lang, 'users.new_title.admin') }).click();
      const form = page.getByRole('dialog');
      await form.getByRole('heading', { name: word(lang, 'users.new_title.admin') }).waitFor();
      await form.getByLabel(labelled(word(lang, 'users.fields.name'))).fill(who.name);
      await form.getByLabel(labelled(word(lang, 'users.fields.email'))).fill(who.email);
      await form.getByLabel(labelled(word(lang, 'users.fields.password'))).fill(who.password);
      await form.getByLabel(labelled(word(lang, 'users.fields.password_confirmation'))).fill(who.password);
      await form.getByRole('combobox', { name: new RegExp(esc(word(lang, 'users.fields.role_id'))) }).click();
      await page.getByRole('option').first().click();
      await form.getByRole('button', { name: word(lang, 'common.save'), exact: true }).click();
      await toastSays(page, word(lang, 'users.welcome_sent', { email: who.email }, 'api')).waitFor();
      if (size.phone) await page.screenshot({ path: artifactPath('dealer-expects-welcome-sent-390-ae.png') });
      expect(errors).toEqual([]);
      await close();

      const until = Date.now() + 20_000;
      while (!mail.mails.some((m) => m.to.includes(who.email)) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      const raw = mail.mails.find((m) => m.to.includes(who.email))?.body ?? '';
      const text = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
      const link = /\/auth\/reset-password\?token=[A-Za-z0-9_-]+/.exec(text)?.[0];
      expect(link, 'no set-password link in the welcome email').toBeTruthy();

      // The new user, on its own device, in its language.
      const own = await newPage(env.browser, env.server.url);
      await own.page.setViewportSize(size.viewport);
      await own.page.addInitScript((l) => localStorage.setItem('i18nextLng', l), lang);
      await own.page.goto(link!);
      await own.page.getByRole('heading', { name: word(lang, 'auth.welcome_title') }).waitFor();
      await own.page.getByText(word(lang, 'auth.reset_for', { email: who.email })).waitFor();
      await own.page.getByLabel(word(lang, 'auth.new_password'), { exact: true }).fill(chosen);
      await own.page.getByLabel(word(lang, 'auth.confirm_password'), { exact: true }).fill(chosen);
      await own.page.getByRole('button', { name: word(lang, 'auth.save_password') }).click();
      await own.page.waitForURL(/\/auth\/login$/);
      await own.page.getByLabel(word(lang, 'auth.email'), { exact: true }).fill(who.email);
      await own.page.getByLabel(word(lang, 'auth.password'), { exact: true }).fill(chosen);
      await own.page.getByRole('button', { name: word(lang, 'auth.sign_in'), exact: true }).click();
      await own.page.waitForURL((u) => !u.pathname.startsWith('/auth/'));
      await own.page.getByRole('heading', { level: 1 }).first().waitFor();
      expect(own.errors).toEqual([]);
      await own.context.close();
    });
  }
});

describe('6. A percentage markup', () => {
  it('1366 px: a dealer sets 10% on one bundle; the row and the storefront show cost + 10%', { timeout: 120_000 }, async () => {
    const size = SIZES[1];
    const { page, errors, close } = await consoleAt(DEALER, '/dealer-providers/1/categories/1/bundles', size);
    const name = '2 GB Daily';
    const row = page.getByRole('row').filter({ hasText: name });
    await row.waitFor();
    expect(await row.innerText()).toContain('0.70'); // its cost
    await row
      .getByRole('group', { name: word('en', 'dealer_catalogue.price_mode_of', { name }) })
      .getByRole('button', { name: word('en', 'dealer_catalogue.mode_markup_short') })
      .click();
    const markup = row.getByLabel(word('en', 'dealer_catalogue.markup_percent_of', { name }));
    await markup.fill('10');
    await row.getByText(word('en', 'dealer_catalogue.price_preview', { price: '0.77' })).waitFor();
    await row.getByRole('button', { name: word('en', 'dealer_catalogue.save_price') }).click();
    await toastSays(page, word('en', 'dealer_catalogue.price_saved')).waitFor();
    // Back to the price itself, 0.77, with a profit of 0.07.
    await expect.poll(() => row.getByLabel(word('en', 'dealer_catalogue.your_price_of', { name })).inputValue()).toBe('0.77');
    expect(await row.getByRole('cell', { name: '0.07', exact: true }).count()).toBe(1);
    expect(errors).toEqual([]);
    await close();

    const shop = await storefrontAt('/dealer/DEMO', size);
    await shop.page.getByRole('link', { name: 'Hormuud' }).click();
    await shop.page.getByRole('link', { name: /Daily/ }).first().click();
    const line = shop.page.locator('li.row').filter({ has: shop.page.getByRole('button', { name: `Buy ${name}` }) });
    await line.getByText('$0.77').waitFor();
    await shop.close();
  });

  it(
    '390 px, Arabic: a dealer applies 10% to a category from its phone; the rows and the storefront show cost + 10%; one bundle can be priced too',
    { timeout: 120_000 },
    async () => {
      const size = SIZES[0];
      const lang: Lang = 'ae';
      const dealerToken = (await apiData<{ token: string }>(env.server, '/auth/admin/login', { method: 'POST', body: DEALER })).token;
      const [daily] = await apiData<{ id: number; name: string }[]>(env.server, '/dealer-categories?provider_id=2', { token: dealerToken });
      const path = `/dealer-providers/2/categories/${daily.id}/bundles`;
      const bundles = await apiData<{ id: number; name: string; cost_price: string }[]>(env.server, `/dealer-bundles?category_id=${daily.id}&lng=${lang}`, {
        token: dealerToken,
      });
      // cost + 10%, rounded half up to the cent.
      const expected = bundles.map((b) => {
        const cents = Math.round(Number(b.cost_price) * 100);
        return { ...b, price: ((cents + Math.floor((cents * 10 + 50) / 100)) / 100).toFixed(2) };
      });
      const { page, errors, close } = await consoleAt(DEALER, path, size, lang);
      await page.getByRole('button', { name: word(lang, 'dealer_catalogue.apply_profit') }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: word(lang, 'dealer_catalogue.mode_markup') }).click();
      await dialog.getByLabel(word(lang, 'dealer_catalogue.markup')).fill('10');
      await dialog.getByText(plain(word(lang, 'dealer_catalogue.each_cost_plus_percent', { amount: '10', example: '1.10' }))).waitFor();
      await page.screenshot({ path: artifactPath('dealer-expects-markup-390-ae.png') });
      await dialog.getByRole('button', { name: word(lang, 'dealer_catalogue.apply'), exact: true }).click();
      await dialog.waitFor({ state: 'detached' });
      const main = page.locator('main');
      for (const b of expected) await main.locator('li').filter({ hasText: b.name }).filter({ hasText: b.price }).first().waitFor();

      // One bundle by itself, as on a laptop: a row's price, profit or markup (a phone shows no editor today).
      const one = expected[0];
      const modes = page.getByRole('group', { name: word(lang, 'dealer_catalogue.price_mode_of', { name: one.name }) });
      expect
        .soft(
          await modes.waitFor({ timeout: 5000 }).then(
            () => true,
            () => false,
          ),
          'a phone cannot price one bundle (no price/profit/markup editor on its row)',
        )
        .toBe(true);
      expect(errors).toEqual([]);
      await close();

      const shop = await storefrontAt(`/dealer/DEMO/provider/2/category/${daily.id}?lng=so`, size);
      for (const b of expected) await shop.page.getByText(`$${b.price}`, { exact: true }).first().waitFor();
      await shop.close();
    },
  );
});

describe('7. Recharges and the ledger sort by date', () => {
  /** The references of the rows shown, top to bottom. */
  const shownRefs = (page: Page, refs: string[]) =>
    page.locator('main').evaluate((el, all) => {
      const text = (el as HTMLElement).innerText;
      return all
        .map((r) => ({ r, at: text.indexOf(r) }))
        .filter((x) => x.at >= 0)
        .sort((x, y) => x.at - y.at)
        .map((x) => x.r);
    }, refs);

  for (const size of SIZES) {
    it(`${size.name}: a click on Date turns the order around, on recharges and on the ledger`, { timeout: 150_000 }, async () => {
      const lang: Lang = size.phone ? 'so' : 'ae';
      // A phone's line shows the number bought for, not the reference: the sales are told apart by it.
      const listed = await api<{ reference: string; phone: string }[]>('/recharges?per_page=100');
      const marks = size.phone ? setup.sales.map((r) => listed.find((x) => x.reference === r)!.phone) : setup.sales;
      const newestFirst = [...marks].reverse();
      const { page, errors, close } = await consoleAt(ADMIN, '/recharges', size, lang);
      await expect.poll(() => shownRefs(page, marks), { timeout: 30_000 }).toEqual(newestFirst);
      const sortBy = async () => {
        if (size.phone) {
          // A phone shows no column headers: a sort control by date is what is expected.
          await page.getByRole('button', { name: new RegExp(esc(word(lang, 'ra.action.sort'))) }).click({ timeout: 5000 });
          await page.getByRole('menuitem', { name: new RegExp(esc(word(lang, 'recharges.fields.created_at'))) }).click();
        } else {
          const header = page.getByRole('columnheader', { name: word(lang, 'recharges.fields.created_at') }).getByRole('button');
          await header.click();
          // As a person does: the header shows itself as the sort before it is clicked again.
          await expect.poll(() => header.getAttribute('class')).toContain('Mui-active');
          await page.waitForLoadState('networkidle');
        }
      };
      // The first click sorts newest first (the header's own order); the second, oldest first.
      await sortBy();
      await page.waitForURL(/created_at/);
      await sortBy();
      await expect.poll(() => shownRefs(page, marks)).toEqual(marks);
      if (!size.phone) await page.screenshot({ path: artifactPath('dealer-expects-recharges-sorted-1366-ae.png') });

      // The ledger: the oldest movement comes first once sorted oldest first.
      const ends = async (order: 'asc' | 'desc') =>
        (await api<{ reference: string | null }[]>(`/wallet-transactions?sort=created_at&order=${order}&per_page=100`))
          .map((t) => t.reference)
          .filter((r): r is string => !!r);
      const [oldest, newest] = [(await ends('asc'))[0], (await ends('desc'))[0]];
      const refs = [...new Set(await ends('asc'))];
      await page.goto('/wallet-transactions');
      await page.getByRole('heading', { name: word(lang, 'menu.wallet_transactions'), level: 1 }).waitFor();
      await expect.poll(async () => (await shownRefs(page, refs))[0], { timeout: 30_000 }).toBe(newest);
      if (size.phone) {
        await page.getByRole('button', { name: new RegExp(esc(word(lang, 'ra.action.sort'))) }).click({ timeout: 5000 });
        await page.getByRole('menuitem', { name: new RegExp(esc(word(lang, 'wallets.fields.date'))) }).click();
        await page.getByRole('button', { name: new RegExp(esc(word(lang, 'ra.action.sort'))) }).click();
        await page.getByRole('menuitem', { name: new RegExp(esc(word(lang, 'wallets.fields.date'))) }).click();
      } else {
        const header = page.getByRole('columnheader', { name: word(lang, 'wallets.fields.date') }).getByRole('button');
        await header.click();
        await page.waitForURL(/created_at/);
        await expect.poll(() => header.getAttribute('class')).toContain('Mui-active');
        await page.waitForLoadState('networkidle');
        await header.click();
      }
      await expect.poll(async () => (await shownRefs(page, refs))[0]).toBe(oldest);
      expect(errors).toEqual([]);
      await close();
    });
  }
});

describe("8. The company's name and logo in the header and the browser title", () => {
  const company = 'Hiiraan Data Bundles';
  beforeAll(async () => {
    const current = await api<Record<string, string | null>>('/settings/company');
    const fields = Object.fromEntries(
      ['address', 'phone', 'email', 'currency', 'timezone', 'footer_text'].filter((k) => current[k] != null).map((k) => [k, String(current[k])]),
    );
    await multipart('PUT', '/settings/company', { ...fields, company_name: company }, { field: 'logo', bytes: png(64, [200, 16, 46]) });
  });

  for (const size of SIZES) {
    it(`${size.name}: set in Settings -> Company, shown in the top bar and the title`, { timeout: 120_000 }, async () => {
      const lang: Lang = size.phone ? 'ae' : 'so';
      const { page, errors, close } = await consoleAt(ADMIN, '/dashboard', size, lang);
      const home = page.locator('header').getByRole('link', { name: `${company} · ${word(lang, 'topbar.home')}` });
      await home.waitFor();
      const logo = home.locator('img');
      await logo.waitFor();
      await expect.poll(() => logo.evaluate((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth)).toBe(64);
      const box = (await logo.boundingBox())!;
      expect(box.height).toBeGreaterThanOrEqual(24);
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(size.viewport.width);
      // The name itself is read beside the logo where there is room (a phone keeps the logo alone).
      if (!size.phone) await home.getByText(company, { exact: true }).waitFor();
      await expect.poll(() => page.title(), { timeout: 30_000 }).toBe(`${word(lang, 'menu.dashboard')} | ${company}`);
      await page.goto('/wallets');
      await expect.poll(() => page.title(), { timeout: 30_000 }).toBe(`${word(lang, 'menu.wallets')} | ${company}`);
      await page
        .locator('header')
        .first()
        .screenshot({ path: artifactPath(`dealer-expects-brand-${size.phone ? '390-ae' : '1366-so'}.png`) });
      expect(errors).toEqual([]);
      await close();
    });
  }
});
