import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ADMIN, apiData, artifactPath, buyFromDemoShop, ensureAdminBuild, freePort, launchBrowser, signedInAt, startServer, type Server } from './harness';

/**
 * Issue 28 item 13, a receipt on the customer's phone, and item 4, a release the gateway keeps
 * refusing, as people see them. A customer buys in Somali on the storefront; the receipt goes out
 * through the Africa's Talking stand-in in Somali with the reference, the bundle and the order link,
 * and staff read it and its delivery report in the sale's trail. A failed delivery report shows as
 * such (Arabic on a phone). A "not received" reply opens a case staff see in the review queue with
 * its evidence and close. A sale whose reserve the gateway will not let go sits in the review queue
 * once and stays there, round after round of the worker (short timers), saying why.
 * Each at 390 px and 1366 px.
 */
const SECRET = 'e2e-sms-callback-secret-0123';
// The receipts' links point at the public address (a receipt with a relative link means nothing on a phone).
const APP_URL = 'https://shop.example.so';
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 900 };
const SIZES = [
  ['390 px', PHONE],
  ['1366 px', DESKTOP],
] as const;
type Size = (typeof SIZES)[number];

const env = {} as { server: Server; browser: Browser; standIn: string; token: string };
beforeAll(async () => {
  ensureAdminBuild();
  const port = await freePort();
  env.standIn = `http://127.0.0.1:${port}`;
  [env.server, env.browser] = await Promise.all([
    startServer({
      // The embedded Africa's Talking stand-in on a known port, to read what it was sent.
      STAND_IN_AFRICASTALKING_PORT: String(port),
      SMS_CALLBACK_SECRET: SECRET,
      APP_URL,
      // Short worker timers: a PIN approved at once, lookups every second at most.
      PAYMENT_SANDBOX_APPROVAL_MS: '200',
      OPERATOR_SANDBOX_LATENCY_MS: '100',
      RECHARGE_RETRY_BASE_MS: '200',
      RECHARGE_RECONCILE_MS: '500',
      RECHARGE_CHECK_MAX_MS: '1000',
    }),
    launchBrowser(),
  ]);
  env.token = (await apiData<{ token: string }>(env.server, '/auth/admin/login', { method: 'POST', body: ADMIN })).token;
  const [wallet] = await apiData<{ id: number }[]>(env.server, '/wallets?q=DEMO', { token: env.token });
  await apiData(env.server, `/wallets/${wallet.id}/top-up`, { method: 'POST', token: env.token, body: { amount: '20.00', reference: 'sms-e2e' } });
});
afterAll(async () => {
  await env.browser?.close();
  await env.server?.stop();
});

interface Sent {
  messageId: string;
  number: string;
  message: string;
}

/** The SMS the stand-in accepted for a number, once one mentions the reference. */
async function smsTo(number: string, reference: string): Promise<Sent> {
  let found: Sent | undefined;
  await expect
    .poll(
      async () => {
        const books = (await (await fetch(`${env.standIn}/_standin/books`)).json()) as { sent: Sent[] };
        found = books.sent.find((s) => s.number === number && s.message.includes(reference));
        return !!found;
      },
      { timeout: 30_000, interval: 250 },
    )
    .toBe(true);
  return found!;
}

/** Africa's Talking posting to a callback: a form, the secret in the URL. */
async function callback(path: 'delivery-reports' | 'inbound', fields: Record<string, string>) {
  const res = await fetch(`${env.server.url}/api/v1/sms/${path}?secret=${encodeURIComponent(SECRET)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
  expect(res.status).toBe(200);
  return (await res.json()).data as { outcome: string; case_id?: number | null };
}

interface Call {
  system: string;
  operation: string;
  outcome: string;
}
interface Sale {
  id: number;
  reference: string;
  status: string;
  operator_reference: string | null;
}
const saleOf = async (reference: string) => (await apiData<Sale[]>(env.server, `/recharges?q=${reference}`, { token: env.token }))[0];
const detailOf = (id: number) => apiData<{ recharge: Sale; remote_calls: Call[] }>(env.server, `/recharges/${id}`, { token: env.token });

/** A sale bought through the storefront's API, delivered, and its receipt accepted by the stand-in. */
async function deliveredWithReceipt(phone: string, payer: string, key: string) {
  const bought = await buyFromDemoShop(env.server, { phone, payerPhone: payer, idempotencyKey: key });
  expect(bought.status).toBe(201);
  const { reference } = bought.data;
  const sms = await smsTo(`+252${payer.slice(1)}`, reference);
  const sale = await saleOf(reference);
  // The send's line is written once the stand-in's answer is read.
  await expect.poll(async () => (await detailOf(sale.id)).remote_calls.some((c) => c.operation === 'send SMS receipt'), { timeout: 15_000 }).toBe(true);
  return { sale: await saleOf(reference), sms };
}

/** The console signed in as the admin at `path`, in a language (`ae` Arabic, `so` Somali). */
async function consoleAt(size: Size, lng: 'en' | 'ae' | 'so', path: string) {
  const opened = await signedInAt(env, ADMIN, path, size[1]);
  if (lng !== 'en') {
    await opened.page.evaluate((l) => localStorage.setItem('i18nextLng', l), lng);
    await opened.page.reload();
  }
  return opened;
}

const DRAWER = { en: 'Recharge', ae: 'عملية الشحن', so: 'Kordhinta' } as const;
const TRAIL = { en: 'Remote calls', ae: 'الاتصالات الخارجية', so: 'Wicitaannada dibadda' } as const;

/** The sale's remote-call trail in its drawer, and one line of it by operation. */
function trail(page: Page, lng: keyof typeof DRAWER) {
  const list = page.getByRole('dialog', { name: DRAWER[lng] }).getByRole('list', { name: TRAIL[lng] });
  return { list, line: (operation: string) => list.getByRole('listitem').filter({ has: page.getByText(operation, { exact: true }) }) };
}

describe("the receipt on the customer's phone", () => {
  for (const size of SIZES) {
    const [label] = size;
    const lng = label === '390 px' ? 'so' : 'en';
    it(
      `${label}: bought in Somali, delivered, the receipt arrives in Somali with the reference, the bundle and the order link; staff (${lng}) read it and its delivery report in the sale's trail`,
      { timeout: 150_000 },
      async () => {
        const n = label === '390 px' ? '1' : '2';
        const [phone, payer] = [`061500110${n}`, `061700110${n}`];
        const isMobile = size[1] === PHONE;
        const shop = await env.browser.newContext({ baseURL: env.server.url, locale: 'so', viewport: size[1], isMobile, hasTouch: isMobile });
        const customer = await shop.newPage();
        customer.setDefaultTimeout(30_000);
        const customerErrors: string[] = [];
        customer.on('pageerror', (e) => customerErrors.push(String(e)));
        await customer.goto('/dealer/DEMO?lng=so');
        await customer.getByRole('link', { name: 'Hormuud' }).click();
        await customer
          .getByRole('link', { name: /Maalinle/ })
          .first()
          .click();
        await customer.getByRole('button', { name: 'Iibso 1 GB Maalinle' }).click();
        const sheet = customer.getByRole('dialog', { name: 'Iibso 1 GB Maalinle' });
        await sheet.getByLabel('Lambarka la kordhinayo').fill(phone);
        await sheet.getByLabel('Lambarka lacagta bixinaya').fill(payer);
        await sheet.getByRole('button', { name: /^Bixi / }).click();
        await sheet.getByText('Waa dhammaatay! Xirmadaadu way shaqaynaysaa', { exact: true }).waitFor({ timeout: 60_000 });
        const orderPath = (await sheet.getByRole('link', { name: 'Fur bogga dalabkaaga' }).getAttribute('href'))!;
        const reference = orderPath.split('/').pop()!;
        expect(reference).toMatch(/^RC[A-Z0-9]{10}$/);

        // The SMS the payer's phone gets: Somali words, the reference, the order page.
        const sms = await smsTo(`+252${payer.slice(1)}`, reference);
        expect(sms.message).toContain('waxaa la gaarsiiyay');
        expect(sms.message).toContain(`Tix ${reference}`);
        const link = `${APP_URL}/dealer/DEMO/order/${reference}`;
        expect(sms.message).toContain(`Dalabkaaga: ${link}`);
        // The link opens the customer's order page (here on the test server, not the public host).
        await customer.goto(link.replace(APP_URL, env.server.url));
        await customer.getByRole('heading', { name: `Dalab ${reference}` }).waitFor();
        // The order page's own receipt (WhatsApp): the shop and the bundle as the customer saw them, in Somali.
        const share = decodeURIComponent((await customer.getByRole('link', { name: 'Kula wadaag WhatsApp' }).getAttribute('href'))!.split('?text=')[1]);
        const shown = /^Dalab \S+ ee (.+?): (.+?) · (.+?) loogu talagalay /.exec(share.replace(/[\u2066-\u2069]/g, ''));
        expect(shown, share).not.toBeNull();
        const [, shopName, , bundleName] = shown!;
        expect(bundleName).toBe('1 GB Maalinle');
        expect(customerErrors).toEqual([]);
        await shop.close();

        const sale = await saleOf(reference);
        await expect.poll(async () => (await detailOf(sale.id)).remote_calls.some((c) => c.operation === 'send SMS receipt'), { timeout: 15_000 }).toBe(true);
        // Africa's Talking reports the SMS delivered to the phone.
        expect((await callback('delivery-reports', { id: sms.messageId, status: 'Success', phoneNumber: sms.number, failureReason: '' })).outcome).not.toBe(
          'unknown_message',
        );

        const { page, errors, close } = await consoleAt(size, lng, `/recharges/${sale.id}`);
        const { line } = trail(page, lng);
        const send = line('send SMS receipt');
        await send.getByText("Africa's Talking", { exact: true }).waitFor();
        await send.getByText({ en: 'OK', so: 'Hagaag' }[lng], { exact: true }).waitFor();
        // Opened, the line shows the message as it was sent.
        await send.getByRole('button').click();
        const request = send.locator('pre').first();
        await expect.poll(() => request.textContent()).toContain(reference);
        expect(await request.textContent()).toContain('waxaa la gaarsiiyay');
        expect(await request.textContent()).toContain(link);
        const report = line('SMS delivery report: Success');
        await report.getByText("Africa's Talking", { exact: true }).waitFor();
        await report.getByText({ en: 'OK', so: 'Hagaag' }[lng], { exact: true }).waitFor();
        if (label === '390 px') {
          await report.scrollIntoViewIfNeeded();
          await page.screenshot({ path: artifactPath('sms-receipt-trail-390-so.png') });
          expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
        }
        expect(errors).toEqual([]);
        await close();
        // The SMS names the shop and the bundle as the storefront showed them to the customer: the
        // bundle by its Somali name (never the English "1 GB Daily"), the shop by its public name.
        expect.soft(sms.message, 'the bundle by its Somali name').toContain(bundleName);
        expect.soft(sms.message, 'not the English name').not.toContain('1 GB Daily');
        expect.soft(sms.message.split(': ')[0], 'the shop by the name the storefront shows').toBe(shopName);
      },
    );
  }
});

describe('a failed delivery report', () => {
  for (const size of SIZES) {
    const [label] = size;
    const lng = label === '390 px' ? 'ae' : 'en';
    it(`${label} (${lng}): the SMS that did not reach the phone shows as failed in the sale's trail, with the reason`, { timeout: 90_000 }, async () => {
      const n = label === '390 px' ? '3' : '4';
      const { sale, sms } = await deliveredWithReceipt(`061500110${n}`, `061700110${n}`, `sms-e2e-failed-${n}`);
      await callback('delivery-reports', { id: sms.messageId, status: 'Failed', phoneNumber: sms.number, failureReason: 'AbsentSubscriber' });

      const { page, errors, close } = await consoleAt(size, lng, `/recharges/${sale.id}`);
      const { line } = trail(page, lng);
      const failed = line('SMS delivery report: Failed');
      await failed.getByText({ en: 'Refused', ae: 'رُفض' }[lng], { exact: true }).waitFor();
      await failed.getByText('AbsentSubscriber', { exact: true }).waitFor();
      // The send itself went through: only the delivery failed.
      await line('send SMS receipt').getByText({ en: 'OK', ae: 'نجح' }[lng], { exact: true }).waitFor();
      if (lng === 'ae') {
        await expect(page.evaluate(() => document.documentElement.dir)).resolves.toBe('rtl');
        await failed.scrollIntoViewIfNeeded();
        await page.screenshot({ path: artifactPath('sms-failed-report-390-ae.png') });
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      }
      expect(errors).toEqual([]);
      await close();
    });
  }
});

describe('a "not received" reply', () => {
  for (const size of SIZES) {
    const [label] = size;
    // The customer replies in Arabic to an Arabic console on the phone, in Somali to a Somali one on the desktop.
    const lng = label === '390 px' ? 'ae' : 'so';
    it(`${label} (${lng}): opens a case staff see in the review queue with its evidence, and close`, { timeout: 90_000 }, async () => {
      const n = label === '390 px' ? '5' : '6';
      const payer = `061700110${n}`;
      const { sale, sms } = await deliveredWithReceipt(`061500110${n}`, payer, `sms-e2e-case-${n}`);
      await callback('delivery-reports', { id: sms.messageId, status: 'Success', phoneNumber: sms.number, failureReason: '' });
      const reply = lng === 'ae' ? 'الباقة لم تصل' : `Xirmada lama helin ${sale.reference}`;
      const answer = await callback('inbound', { from: sms.number, to: '12345', text: reply, date: '2026-11-28 10:01:00', id: `in-e2e-${n}` });
      expect(answer.outcome).toBe('case_opened');

      const words = {
        ae: {
          title: 'لم يصل: ردّ عميل واحد على إيصال الرسائل القصيرة',
          reply: 'الرد',
          receipt: 'الإيصال',
          delivered: 'وصل إلى الهاتف',
          opRef: 'مرجع المشغّل',
          close: 'تم التسليم: إغلاق',
          closed: 'أُغلقت الحالة.',
        },
        so: {
          title: 'Lama helin: 1 macmiil ayaa ka jawaabay rasiidhka SMS-ka',
          reply: 'Jawaab',
          receipt: 'Rasiidh',
          delivered: 'Taleefanka gaaray',
          opRef: 'Tixraaca shirkadda isgaarsiinta',
          close: 'Waa la gaarsiiyay: xir',
          closed: 'Kiiska waa la xiray.',
        },
      }[lng];
      const { page, errors, close } = await consoleAt(size, lng, '/recharges/review');
      const cases = page.getByRole('region', { name: words.title });
      await cases.waitFor();
      const card = cases.locator('.MuiCard-root').filter({ hasText: sale.reference });
      await expect(card.count()).resolves.toBe(1);
      // The evidence: the customer's words and number, the receipt delivered to the phone, the operator's reference.
      await card.getByText(reply, { exact: true }).waitFor();
      await card.getByText(sms.number, { exact: true }).waitFor();
      await card.getByText(`${words.reply}:`, { exact: true }).waitFor();
      await card.getByText(`${words.receipt}:`, { exact: true }).waitFor();
      await card.getByText(words.delivered, { exact: true }).waitFor();
      await card.getByText(`${words.opRef}:`, { exact: true }).waitFor();
      expect(sale.operator_reference).toBeTruthy();
      await card.getByText(sale.operator_reference!, { exact: true }).waitFor();
      if (lng === 'ae') {
        await card.scrollIntoViewIfNeeded();
        await page.screenshot({ path: artifactPath('sms-case-390-ae.png') });
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      }
      // The case's sale opens from it.
      await card.getByRole('button', { name: sale.reference }).click();
      await page.getByRole('dialog', { name: DRAWER[lng] }).getByText(sale.reference).first().waitFor();
      await page.goBack();
      await page.getByRole('dialog', { name: DRAWER[lng] }).waitFor({ state: 'detached' });
      // Closed as delivered after all: said so, and gone from the queue (also after a reload).
      await card.getByRole('button', { name: words.close }).click();
      await page.getByText(words.closed, { exact: true }).first().waitFor();
      await cases.waitFor({ state: 'detached' });
      await page.reload();
      await page.locator('main h1').first().waitFor();
      await page.waitForLoadState('networkidle');
      await expect(page.getByText(sale.reference).count()).resolves.toBe(0);
      expect(errors).toEqual([]);
      await close();
    });
  }
});

describe('a release the gateway keeps refusing (item 4)', () => {
  for (const size of SIZES) {
    const [label] = size;
    const lng = label === '390 px' ? 'ae' : 'en';
    it(`${label} (${lng}): the sale waits in review once and stays there round after round, saying why`, { timeout: 120_000 }, async () => {
      const n = label === '390 px' ? '1' : '2';
      // Payer ...0006: approved, then every release refused (E10320) while the lookup says Approved; ...9999: the operator refuses the top-up.
      const bought = await buyFromDemoShop(env.server, { phone: `06155${n}9999`, payerPhone: `06177${n}0006`, idempotencyKey: `sms-e2e-release-${n}` });
      expect(bought.status).toBe(201);
      const { reference } = bought.data;
      const sale = await saleOf(reference);
      await expect.poll(async () => (await saleOf(reference)).status, { timeout: 30_000 }).toBe('needs_review');

      // Whatever the page shows between two looks, the sale is watched throughout: it must never leave review.
      const seen = new Set<string>();
      let watching = true;
      const watcher = (async () => {
        while (watching) {
          seen.add(
            await detailOf(sale.id).then(
              (d) => d.recharge.status,
              (e: Error) => `unreadable: ${e.message}`,
            ),
          );
          await new Promise((r) => setTimeout(r, 150));
        }
      })();
      const { page, errors, close } = await consoleAt(size, lng, '/recharges/review');
      try {
        const entries = page.locator('main').getByText(reference);
        await entries.first().waitFor();
        await expect(entries.count()).resolves.toBe(1);
        await entries.first().click();
        const drawer = page.getByRole('dialog', { name: DRAWER[lng] });
        // Why it waits: the refused release, with the gateway's code.
        const why = drawer.getByRole('alert').filter({ hasText: { en: /^Waiting for review for /, ae: /^بانتظار المراجعة منذ / }[lng] });
        await why.getByText(/E10320/).waitFor();
        const { list } = trail(page, lng);
        const count = (operation: string) => list.getByText(operation, { exact: true }).count();
        await list.waitFor();
        const lookups = await count('HPP_GETTRANINFO');
        const releases = await count('API_PREAUTHORIZE_CANCEL');
        expect(releases).toBeGreaterThanOrEqual(1);
        // Two more rounds of the worker asking the gateway (the trail, reloaded, shows each lookup).
        await expect
          .poll(
            async () => {
              await page.reload();
              await list.waitFor();
              return count('HPP_GETTRANINFO');
            },
            { timeout: 45_000, interval: 1000 },
          )
          .toBeGreaterThanOrEqual(lookups + 2);
        watching = false;
        await watcher;
        expect([...seen]).toEqual(['needs_review']);
        // The refused release was not sent again; the sale went to review once and never resumed.
        expect(await count('API_PREAUTHORIZE_CANCEL')).toBe(releases);
        const sentForReview = { en: 'Sent for review', ae: 'أحيلت إلى المراجعة' }[lng];
        const resumed = { en: /Resumed/, ae: /استُؤنفت/ }[lng];
        await expect(drawer.getByText(new RegExp(`· ${sentForReview}$`)).count()).resolves.toBe(1);
        await expect(drawer.getByText(resumed).count()).resolves.toBe(0);
        // The reason in the reader's words; the system's own sentence (with the gateway's code) kept beside it, isolated.
        const reason = await why.evaluate((el) => {
          const copy = el.cloneNode(true) as HTMLElement;
          copy.querySelectorAll('bdi').forEach((b) => b.remove());
          return copy.textContent ?? '';
        });
        // Still one entry in the queue.
        await page.goBack();
        await drawer.waitFor({ state: 'detached' });
        await entries.first().waitFor();
        await expect(entries.count()).resolves.toBe(1);
        if (lng === 'ae') await page.screenshot({ path: artifactPath('sms-release-refused-review-390-ae.png') });
        expect(errors).toEqual([]);
        // Why, in the reader's words: an Arabic reader is not told in English (the gateway's code may stay as it is).
        if (lng === 'en') expect(reason).toMatch(/refused/);
        else expect(reason, reason).not.toMatch(/The payment gateway|refused|returning/);
      } finally {
        watching = false;
        await watcher;
        await close();
      }
    });
  }
});
