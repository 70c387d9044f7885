import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { ADMIN, DEALER, ROOT, apiData, artifactPath, ensureAdminBuild, launchBrowser, startServer, type Server } from './harness';

/**
 * What the storefront's customer is told (issue 28, items 7 and 1), on a 390 px phone in Arabic
 * and on a 1366 px desktop in Somali:
 *  - a bundle switched off while the sheet is open: Pay shows the server's own sentence ("This
 *    bundle is not available in this shop."), never "Validation failed", and the bundle leaves the list;
 *  - the payment gateway not answering (a payer the stand-in WaafiPay never receives, ...0003): within
 *    its first 35 s the customer hears the prompt has not been sent and nothing is taken, and at the
 *    end that the payment could not be started, never that the bundle "could not be delivered";
 *  - "Done!" states the bundle, the number and the amount charged with its currency;
 *  - a shop closed since a visit: the returning visitor sees it closed at once (also offline), the
 *    page left open says so at Pay, and it opens again when the dealer is active again;
 *  - cash and bank transfer (one of them an old row that still names WaafiPay) are offered as paid
 *    in person: no PIN prompt, Pay off, nothing sent.
 *
 * One server for the file, with its data where the test can reach it (the old cash row) and the
 * gateway's wait for a payment (PAYMENT_TIMEOUT_MS) cut from 90 s to 35 s, so that a payment that
 * never starts ends within the test; the first words must come before that end whatever it is.
 */
const PAYMENT_TIMEOUT_MS = 35_000;

const env = {} as { server: Server; browser: Browser; dataDir: string; admin: string; dealer: string; dealerId: string };

beforeAll(async () => {
  ensureAdminBuild();
  env.dataDir = mkdtempSync(join(tmpdir(), 'e2e-told-'));
  [env.server, env.browser] = await Promise.all([startServer({ DATA_DIR: env.dataDir, PAYMENT_TIMEOUT_MS: String(PAYMENT_TIMEOUT_MS) }), launchBrowser()]);
  env.admin = (await apiData<{ token: string }>(env.server, '/auth/admin/login', { method: 'POST', body: ADMIN })).token;
  env.dealer = (await apiData<{ token: string }>(env.server, '/auth/admin/login', { method: 'POST', body: DEALER })).token;
  // DEMO sells at cost + profit: its wallet pays the bundles (it starts at 0.00).
  const [wallet] = await apiData<{ id: number; dealer_id: number }[]>(env.server, '/wallets?q=DEMO', { token: env.admin });
  env.dealerId = String(wallet.dealer_id);
  await apiData(env.server, `/wallets/${wallet.id}/top-up`, { method: 'POST', token: env.admin, body: { amount: '10.00', reference: 'customer-told-e2e' } });
});
afterAll(async () => {
  await env.browser?.close();
  await env.server?.stop();
  if (env.dataDir) rmSync(env.dataDir, { recursive: true, force: true });
});

type Lng = 'ae' | 'so';
const SIZES = [
  { size: 'phone', viewport: { width: 390, height: 844 }, mobile: true, lng: 'ae' as Lng, locale: 'ar' },
  { size: 'desktop', viewport: { width: 1366, height: 900 }, mobile: false, lng: 'so' as Lng, locale: 'so' },
] as const;
type Size = (typeof SIZES)[number];

/** The product's own words (locales/), with their {{placeholders}} filled. */
const LOCALES = Object.fromEntries(
  (['ae', 'so'] as const).map((lng) => [
    lng,
    {
      storefront: JSON.parse(readFileSync(join(ROOT, 'locales', lng, 'storefront.json'), 'utf8')),
      validation: JSON.parse(readFileSync(join(ROOT, 'locales', lng, 'validation.json'), 'utf8')),
      api: JSON.parse(readFileSync(join(ROOT, 'locales', lng, 'api.json'), 'utf8')),
    },
  ]),
) as Record<Lng, Record<'storefront' | 'validation' | 'api', Record<string, unknown>>>;
function word(lng: Lng, key: string, vars: Record<string, string> = {}, file: 'storefront' | 'validation' | 'api' = 'storefront'): string {
  const text = key.split('.').reduce<unknown>((at, part) => (at as Record<string, unknown>)?.[part], LOCALES[lng][file]);
  if (typeof text !== 'string') throw new Error(`no ${file} word ${lng} ${key}`);
  return text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => vars[name] ?? `{{${name}}}`);
}
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** "Pay $0.50" in the page's language: its words before the price. */
const payButton = (lng: Lng) => new RegExp(`^${escape(word(lng, 'purchase.confirm').split('{{')[0].trim())}`);

/** A visitor's browser at a size, in its language; a failing test leaves a screenshot. */
async function browse(ctx: TestContext, s: Size): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await env.browser.newContext({ baseURL: env.server.url, locale: s.locale, viewport: s.viewport, isMobile: s.mobile, hasTouch: s.mobile });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.setDefaultTimeout(30_000);
  ctx.onTestFailed(async () => {
    const name = ctx.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 80);
    for (const p of context.pages()) await p.screenshot({ path: artifactPath(`failed-told-${name}.png`), fullPage: true }).catch(() => undefined);
  });
  return { context, page, errors };
}

interface ShopBundle {
  id: number;
  name: string;
  price: string;
}
/** DEMO's Hormuud Daily bundles as the API names them in a language, and the page that lists them. */
async function hormuudDaily(lng: Lng) {
  const res = await fetch(`${env.server.url}/api/v1/client/dealer/providers`, {
    headers: { dealer_code: 'DEMO', 'accept-language': lng === 'ae' ? 'ar' : lng },
  });
  const providers = (await res.json()).data.providers as { id: number; code: string; categories: { id: number; bundles: ShopBundle[] }[] }[];
  const hormuud = providers.find((p) => p.code === 'HOR') ?? providers[0];
  const daily = hormuud.categories[0];
  return { path: `/dealer/DEMO/provider/${hormuud.id}/category/${daily.id}?lng=${lng}`, bundles: daily.bundles };
}

/** The buy sheet of a bundle opened from its category page, the number to top up typed in. */
async function openSheet(page: Page, lng: Lng, bundle: ShopBundle, payer?: string) {
  await page.getByRole('button', { name: word(lng, 'shop.buy_named', { bundle: bundle.name }) }).click();
  const dialog = page.getByRole('dialog', { name: word(lng, 'purchase.title', { bundle: bundle.name }) });
  await dialog.getByLabel(word(lng, 'purchase.phone')).fill('0615123456');
  if (payer) await dialog.getByLabel(word(lng, 'purchase.payer')).fill(payer);
  return dialog;
}

const setDealer = (status: 'active' | 'inactive') => apiData(env.server, `/users/${env.dealerId}`, { method: 'PATCH', token: env.admin, body: { status } });

describe('a bundle switched off while the sheet is open', () => {
  for (const s of SIZES) {
    it(`${s.size}, ${s.lng}: Pay shows "This bundle is not available in this shop." in the page's language, and the bundle leaves the list`, async (ctx) => {
      const { context, page, errors } = await browse(ctx, s);
      const { path, bundles } = await hormuudDaily(s.lng);
      // Each size its own bundle (500 MB for the phone, 2 GB for the desktop): the other keeps selling.
      const bundle = s.mobile ? bundles[0] : bundles[bundles.length - 1];
      await page.goto(path);
      const dialog = await openSheet(page, s.lng, bundle);
      await apiData(env.server, `/dealer-bundles/${bundle.id}`, { method: 'PATCH', token: env.dealer, body: { status: 'inactive' } });
      try {
        await dialog.getByRole('button', { name: payButton(s.lng) }).click();
        const alert = dialog.getByRole('alert');
        await alert.getByText(word(s.lng, 'bundle_not_offered', {}, 'validation'), { exact: true }).waitFor();
        const said = await dialog.textContent();
        expect(said).not.toContain(word(s.lng, 'errors.validation', {}, 'api'));
        expect(said).not.toContain('Validation failed');
        // Nothing left to pay for.
        await expect(dialog.getByRole('button', { name: payButton(s.lng) }).isDisabled()).resolves.toBe(true);
        if (s.mobile) await page.screenshot({ path: artifactPath('customer-told-bundle-off-390-ae.png') });
        await dialog.getByRole('button', { name: word(s.lng, 'common.close') }).click();
        await dialog.waitFor({ state: 'detached' });
        // The shop asked again: the bundle is no longer offered, the others still are.
        await page.getByRole('button', { name: word(s.lng, 'shop.buy_named', { bundle: bundle.name }) }).waitFor({ state: 'detached' });
        await page.getByRole('button', { name: word(s.lng, 'shop.buy_named', { bundle: bundles[1].name }) }).waitFor();
      } finally {
        await apiData(env.server, `/dealer-bundles/${bundle.id}`, { method: 'PATCH', token: env.dealer, body: { status: 'active' } });
      }
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});

// The two sizes wait on the gateway side by side (each about 45 s).
describe.concurrent('the payment gateway not answering', () => {
  for (const s of SIZES) {
    it(
      `${s.size}, ${s.lng}: told within ${PAYMENT_TIMEOUT_MS / 1000} s that the prompt has not been sent and nothing is taken; then that the payment could not be started, never "could not be delivered"`,
      { timeout: 150_000 },
      async (ctx) => {
        const { context, page, errors } = await browse(ctx, s);
        const { path, bundles } = await hormuudDaily(s.lng);
        const bundle = bundles[1];
        await page.goto(path);
        // The stand-in WaafiPay never receives a charge from a payer ending in 0003 (the connection
        // is reset before it reaches the gateway, every time): a gateway that is down for this sale.
        const dialog = await openSheet(page, s.lng, bundle, s.mobile ? '0617770003' : '0617710003');
        await dialog.getByRole('button', { name: payButton(s.lng) }).click();
        const paidAt = Date.now();
        const outcome = dialog.locator('.outcome');
        // Approve on your phone first; on a loaded machine the first answer may already be the slow one.
        await outcome
          .getByText(word(s.lng, 'outcome.awaiting_payment'), { exact: true })
          .or(outcome.getByText(word(s.lng, 'outcome.payment_slow'), { exact: true }))
          .first()
          .waitFor();

        // Promptly, while the sale is still open (the issue: 92 s of waiting, then the wrong words).
        await outcome.getByText(word(s.lng, 'outcome.payment_slow'), { exact: true }).waitFor({ timeout: PAYMENT_TIMEOUT_MS });
        expect(Date.now() - paidAt).toBeLessThan(PAYMENT_TIMEOUT_MS);
        await outcome.getByText(word(s.lng, 'outcome.money_nothing_taken_yet'), { exact: true }).waitFor();
        await outcome.getByText(word(s.lng, 'outcome.payment_slow_todo'), { exact: true }).waitFor();
        expect(await outcome.textContent()).not.toContain(word(s.lng, 'outcome.not_delivered'));
        if (s.mobile) await page.screenshot({ path: artifactPath('customer-told-gateway-slow-390-ae.png') });

        // The gateway never had it: the payment could not be started, nothing was taken, try again.
        await outcome.getByText(word(s.lng, 'outcome.payment_not_started'), { exact: true }).waitFor({ timeout: 90_000 });
        await outcome.getByText(word(s.lng, 'outcome.payment_not_started_help'), { exact: true }).waitFor();
        await outcome.getByText(word(s.lng, 'outcome.money_nothing_taken'), { exact: true }).waitFor();
        const said = await dialog.textContent();
        expect(said).not.toContain(word(s.lng, 'outcome.not_delivered'));
        expect(said).not.toContain(word(s.lng, 'outcome.payment_slow'));
        await dialog.getByRole('button', { name: word(s.lng, 'outcome.try_again'), exact: true }).waitFor();
        if (s.mobile) await page.screenshot({ path: artifactPath('customer-told-gateway-not-started-390-ae.png') });
        expect(errors).toEqual([]);
        await context.close();
      },
    );
  }
});

describe('"Done!"', () => {
  for (const s of SIZES) {
    it(`${s.size}, ${s.lng}: states the bundle, the number topped up and the amount charged with its currency`, { timeout: 90_000 }, async (ctx) => {
      const { context, page, errors } = await browse(ctx, s);
      const { path, bundles } = await hormuudDaily(s.lng);
      const bundle = bundles[1];
      await page.goto(path);
      // Any other payer ending is approved by the stand-in WaafiPay.
      const dialog = await openSheet(page, s.lng, bundle, '0617005555');
      await dialog.getByRole('button', { name: payButton(s.lng) }).click();
      const outcome = dialog.locator('.outcome');
      await outcome.getByText(word(s.lng, 'outcome.delivered'), { exact: true }).waitFor({ timeout: 60_000 });
      await outcome.getByText(word(s.lng, 'outcome.delivered_help', { bundle: bundle.name, phone: '061 5123456' }), { exact: true }).waitFor();
      // The bundle's price, with its currency, as charged.
      await outcome.getByText(word(s.lng, 'outcome.charged', { amount: `$${bundle.price}` }), { exact: true }).waitFor();
      await expect(
        outcome
          .locator('bdi[dir="ltr"]')
          .filter({ hasText: `$${bundle.price}` })
          .count(),
      ).resolves.toBe(1);
      if (s.mobile) await page.screenshot({ path: artifactPath('customer-told-done-390-ae.png') });
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});

describe('a shop closed since the last visit', () => {
  for (const s of SIZES) {
    it(`${s.size}, ${s.lng}: the returning visitor sees it closed at once (offline too), a page left open says so at Pay, and it opens again`, async (ctx) => {
      const { context, page, errors } = await browse(ctx, s);
      const { path, bundles } = await hormuudDaily(s.lng);
      const closedTitle = word(s.lng, 'closed.title');
      const buyFirst = (p: Page) => p.getByRole('button', { name: word(s.lng, 'shop.buy_named', { bundle: bundles[0].name }) });
      // The first visit: the shop saved by the page and its worker (as a phone keeps it for offline use); then the visitor leaves.
      await page.goto(path);
      await buyFirst(page).waitFor();
      await page.waitForFunction(() => navigator.serviceWorker.ready.then(() => true));
      await page.reload();
      await page.waitForFunction(() => !!navigator.serviceWorker.controller);
      await buyFirst(page).waitFor();
      await page.close();
      // Another customer has the bundles open in another browser.
      const other = await browse(ctx, s);
      await other.page.goto(path);
      await buyFirst(other.page).waitFor();

      await setDealer('inactive');
      try {
        // The returning visitor, at the shop's address: closed at once, nothing offered.
        const again = await context.newPage();
        await again.goto('/dealer/DEMO');
        await again.getByRole('heading', { level: 1, name: closedTitle }).waitFor();
        await again.getByText(word(s.lng, 'closed.text'), { exact: true }).waitFor();
        await expect.poll(() => again.title(), { timeout: 5000 }).toBe(closedTitle);
        await expect(again.getByRole('heading', { name: word(s.lng, 'shop.choose_operator') }).count()).resolves.toBe(0);
        await expect(
          again
            .getByRole('button')
            .filter({ hasText: word(s.lng, 'shop.buy') })
            .count(),
        ).resolves.toBe(0);
        if (s.mobile) await again.screenshot({ path: artifactPath('customer-told-closed-390-ae.png') });
        // The page the first visit kept: closed too.
        await again.goto(path);
        await again.getByRole('heading', { level: 1, name: closedTitle }).waitFor();
        await expect(buyFirst(again).count()).resolves.toBe(0);
        // Offline, the phone remembers it closed (not the open copy it kept).
        await context.setOffline(true);
        await again.reload();
        await again.getByRole('heading', { level: 1, name: closedTitle }).waitFor();
        await expect(buyFirst(again).count()).resolves.toBe(0);
        await context.setOffline(false);

        // The page left open: Pay finds the shop closed, and the page says so (not only "check the dealer code").
        const dialog = await openSheet(other.page, s.lng, bundles[0], '0617005555');
        await dialog.getByRole('button', { name: payButton(s.lng) }).click();
        await other.page.getByRole('heading', { level: 1, name: closedTitle }).waitFor();
        await dialog.waitFor({ state: 'detached' });
        expect(other.errors).toEqual([]);
        await other.context.close();
      } finally {
        await setDealer('active');
      }
      // Open again: the next visit shows the shop, not a closed page remembered.
      const later = await context.newPage();
      await later.goto(path);
      await buyFirst(later).waitFor();
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});

describe('cash and bank transfer on the storefront', () => {
  const names = {
    cash: { en: 'Cash', ae: 'نقدًا', so: 'Lacag caddaan' },
    bank: { en: 'Bank transfer', ae: 'تحويل بنكي', so: 'Xawaalad bangi' },
  };
  beforeAll(async () => {
    const create = (type: 'cash' | 'bank', body: Record<string, unknown> = {}) =>
      apiData<{ id: number; gateway: string }>(env.server, '/payment-methods', {
        method: 'POST',
        token: env.admin,
        body: {
          name: names[type].en,
          type,
          dealer_id: env.dealerId,
          translations: { ae: { name: names[type].ae }, so: { name: names[type].so } },
          ...body,
        },
      });
    // The product's decision (api/src/settings/manual-payment-methods.test.ts): cash and bank are
    // paid in person; a gateway named with them is refused.
    await expect(create('bank', { account_number: 'SO12 3456', gateway: 'waafipay' })).rejects.toThrow(/422/);
    const cash = await create('cash');
    expect(cash.gateway).toBe('manual');
    // The "Cash" charged through WaafiPay: a row written before the rule still names the
    // gateway. The API no longer writes one, so the row is made so in the database itself.
    const db = new Database(join(env.dataDir, 'app.sqlite'));
    try {
      db.pragma('busy_timeout = 5000');
      db.prepare("UPDATE payment_methods SET gateway = 'waafipay' WHERE id = ?").run(cash.id);
    } finally {
      db.close();
    }
    // Created after the edit: the shop's cached answers are dropped with this change.
    await create('bank', { account_number: 'SO12 3456' });
  });

  for (const s of SIZES) {
    it(`${s.size}, ${s.lng}: offered as paid in person (the old WaafiPay cash row too): no PIN prompt, Pay off, nothing sent`, async (ctx) => {
      const { context, page, errors } = await browse(ctx, s);
      const purchases: string[] = [];
      page.on('request', (r) => void (r.url().includes('/api/v1/client/recharge') && r.method() === 'POST' && purchases.push(r.url())));
      const { path, bundles } = await hormuudDaily(s.lng);
      await page.goto(path);
      const dialog = await openSheet(page, s.lng, bundles[1]);
      const methods = dialog.getByRole('group', { name: word(s.lng, 'purchase.method') });
      const pinWords = word(s.lng, 'purchase.prompt_on', { phone: '061 5123456' });
      // A wallet prompts (the words looked for below exist on this sheet).
      await methods.getByText('EVC Plus', { exact: true }).click();
      await dialog.getByText(pinWords, { exact: true }).waitFor();
      for (const type of ['cash', 'bank'] as const) {
        const name = names[type][s.lng];
        await methods.getByText(name, { exact: true }).click();
        await dialog
          .locator('.instructions')
          .getByText(word(s.lng, 'purchase.in_person', { method: name }), { exact: true })
          .waitFor();
        await expect(dialog.getByText(pinWords).count(), type).resolves.toBe(0);
        await expect(dialog.getByText(/PIN/).count(), type).resolves.toBe(0);
        const pay = dialog.getByRole('button', { name: payButton(s.lng) });
        await expect(pay.isDisabled(), type).resolves.toBe(true);
        // Enter in the number field submits nothing either.
        await dialog.getByLabel(word(s.lng, 'purchase.phone')).press('Enter');
        if (s.mobile && type === 'cash') await page.screenshot({ path: artifactPath('customer-told-cash-390-ae.png') });
      }
      await methods.getByText('SO12 3456').waitFor();
      await page.waitForLoadState('networkidle');
      expect(purchases).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});
