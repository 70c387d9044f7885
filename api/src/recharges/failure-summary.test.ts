import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createHarness, type Harness } from '../../../tests/api/harness.ts';
import { csvRecords, parseCsv } from '../../../tests/api/csv.ts';
import { encodeId } from '../http/ids.ts';
import { buy, makeShop, moneyKit, type MoneyKit, type Shop } from './recharge-fixtures.ts';
import type { RechargeMoney } from './recharge.routes.ts';

/**
 * Issue 28 items 8/9: a failed sale's failure_summary says why it failed in the reader's language,
 * from its state (failure_reason keeps what was recorded, often the vendor's English), and the
 * recharges CSV writes its headers, statuses and that sentence in the request's language, its
 * amounts and times machine-readable. On SQLite and MariaDB.
 */
let h: Harness;
let root: string;
let kit: MoneyKit;
let shop: Shop;
const money: RechargeMoney = {};
const CASES = [
  'declined',
  'nothing_taken',
  'returned',
  'refund_due',
  'no_route',
  'settled_in_review',
  'payment_not_started',
  'wallet_refunded',
  'wallet_not_debited',
  'payment_open',
] as const;
const sales = {} as Record<(typeof CASES)[number] | 'completed' | 'delivered_refunded', number>;
const INJECTED = '=HYPERLINK("http://x.example","open"), the gateway said no';

beforeAll(async () => {
  h = await createHarness({ rechargeMoney: money });
  root = await h.adminToken();
  kit = await moneyKit(h, { money });
  shop = await makeShop(h, root, 'cost', { balance: '20' });
  sales.completed = (await buy(h, shop)).body.data.id;
  // The operator refuses a number ending in 9999 (its reserve let go); a payer ending in 0000 declines.
  sales.nothing_taken = (await buy(h, shop, { phone: '0615559999' })).body.data.id;
  for (const c of [
    'declined',
    'returned',
    'refund_due',
    'no_route',
    'settled_in_review',
    'payment_not_started',
    'wallet_refunded',
    'wallet_not_debited',
    'payment_open',
    'delivered_refunded',
  ] as const)
    sales[c] = (await buy(h, shop, { payer_phone: '0617770000' })).body.data.id;
  await kit.worker.drain();
  // The states the worker and the review leave behind (sale-steps.ts), set on declined sales.
  const set = (id: number, row: Record<string, unknown>) => h.knex('recharges').where({ id }).update(row);
  await set(sales.returned, {
    status: 'refunded',
    payment_flow: 'purchase',
    payment_state: 'released',
    delivery_state: 'failed',
    failure_reason: 'Operator busy',
  });
  await set(sales.refund_due, { status: 'failed', payment_state: 'refund_due', delivery_state: 'failed', failure_reason: INJECTED });
  await set(sales.no_route, {
    status: 'failed',
    payment_state: 'released',
    delivery_state: 'failed',
    failure_reason: 'No route can deliver this bundle: no active route',
  });
  await set(sales.settled_in_review, {
    status: 'failed',
    payment_state: 'released',
    delivery_state: 'failed',
    review_outcome: 'not_delivered',
    failure_reason: 'Not delivered (settled in review).',
  });
  await set(sales.payment_not_started, {
    status: 'failed',
    payment_state: 'absent',
    delivery_state: 'none',
    failure_reason: 'The payment never reached the gateway: nothing was taken.',
  });
  // A dealer's wallet sale whose debit failRecharge credited back: it is marked refunded.
  await set(sales.wallet_refunded, {
    status: 'refunded',
    payment_flow: 'wallet',
    payment_state: 'none',
    delivery_state: 'failed',
    failure_reason: 'Operator busy',
  });
  // One never debited (a zero-cost bundle): failRecharge had nothing to credit back, it stays failed.
  await set(sales.wallet_not_debited, {
    status: 'failed',
    payment_flow: 'wallet',
    payment_state: 'none',
    delivery_state: 'failed',
    failure_reason: 'Operator busy',
  });
  // Not delivered while the gateway's answer on the payment is still awaited.
  await set(sales.payment_open, {
    status: 'failed',
    payment_flow: 'purchase',
    payment_state: 'sent',
    delivery_state: 'failed',
    failure_reason: 'Operator busy',
  });
  // Delivered, then refunded by hand: it did not fail.
  await set(sales.delivered_refunded, {
    status: 'refunded',
    payment_flow: 'purchase',
    payment_state: 'refunded',
    delivery_state: 'delivered',
    failure_reason: null,
  });
});
afterAll(async () => {
  await kit.close();
  await h.close();
});

const detail = async (id: number, lng = 'en') =>
  (await h.http().get(`/api/v1/recharges/${id}?lng=${lng}`).set(bearer(root))).body.data.recharge as {
    failure_summary: string | null;
    failure_reason: string | null;
  };
const exported = (query: string) =>
  h
    .http()
    .get(`/api/v1/recharges/export?dealer_id=${encodeId(shop.dealerId)}${query}`)
    .set(bearer(root));

describe('failure_summary', () => {
  it('says why each sale failed, for staff, and keeps what was recorded beside it; null for a delivered sale', async () => {
    const summaries = Object.fromEntries(await Promise.all(CASES.map(async (c) => [c, (await detail(sales[c])).failure_summary])));
    expect(summaries).toEqual({
      declined: 'Payment declined by the payer: nothing taken',
      nothing_taken: 'Not delivered; the reserved payment was let go: nothing taken',
      returned: "Not delivered; the customer's payment was returned",
      refund_due: 'Not delivered; the payment must be paid back by hand',
      no_route: 'No delivery route could sell this bundle',
      settled_in_review: 'Settled as not delivered in review',
      payment_not_started: 'The payment could not be started: nothing taken',
      wallet_refunded: "Not delivered; the cost went back to the dealer's wallet",
      wallet_not_debited: "Not delivered; nothing was taken from the dealer's wallet",
      payment_open: 'Not delivered; what became of the payment is still being checked',
    });
    expect(await detail(sales.settled_in_review)).toMatchObject({ failure_reason: 'Not delivered (settled in review).' });
    expect((await detail(sales.completed)).failure_summary).toBeNull();
    expect((await detail(sales.delivered_refunded)).failure_summary).toBeNull();
    // The list answers it too.
    const listed = await h
      .http()
      .get(`/api/v1/recharges?dealer_id=${encodeId(shop.dealerId)}&per_page=50`)
      .set(bearer(root));
    expect(listed.body.data.find((r: { id: number }) => r.id === sales.no_route).failure_summary).toBe('No delivery route could sell this bundle');
  });

  it("is in the reader's language", async () => {
    expect((await detail(sales.refund_due, 'ae')).failure_summary).toBe('لم يُسلّم؛ يجب إعادة المبلغ يدويًا');
    expect((await detail(sales.declined, 'so')).failure_summary).toBe('Bixiyaha ayaa diiday lacag bixinta: waxba lagama qaadin');
    expect((await detail(sales.wallet_not_debited, 'ae')).failure_summary).toBe('لم يُسلّم؛ لم يُخصم أي مبلغ من محفظة الوكيل');
    expect((await detail(sales.wallet_not_debited, 'so')).failure_summary).toBe('Lama gaarsiin; waxba lagama jarin boorsada wakiilka');
    const arabic = await h.http().get(`/api/v1/recharges/${sales.no_route}`).set(bearer(root)).set('Accept-Language', 'ar');
    expect(arabic.body.data.recharge.failure_summary).toBe('لا يوجد مسار تسليم يمكنه بيع هذه الباقة');
  });
});

describe('the recharges CSV', () => {
  it('has readable English headers and words, numbers and company-time instants as they were, and no formula', async () => {
    const csv = await exported('&lng=en');
    expect(csv.status).toBe(200);
    expect(csv.text.startsWith('\uFEFF')).toBe(true);
    expect(parseCsv(csv.text)[0].join(',')).toBe(
      "ID,Reference,Created at,Dealer,Operator,Bundle,Phone,Status,Amount,Cost,Profit,Currency,Payment reference,Operator reference,Failure reason,Vendor's words",
    );
    const byId = new Map(csvRecords(csv.text).map((r) => [Number(r.ID), r]));
    expect(byId.get(sales.completed)).toMatchObject({ Status: 'Completed', Amount: '0.55', 'Failure reason': '', "Vendor's words": '' });
    expect(byId.get(sales.completed)!['Created at']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+03:00$/);
    expect(byId.get(sales.returned)).toMatchObject({
      Status: 'Refunded',
      'Failure reason': "Not delivered; the customer's payment was returned",
      "Vendor's words": 'Operator busy',
    });
    // The vendor's text is never read as a formula.
    expect(byId.get(sales.refund_due)).toMatchObject({ Status: 'Failed', "Vendor's words": `'${INJECTED}` });
  });

  it('is in Arabic with ?lng=ae or Accept-Language: ar, and in Somali with ?lng=so', async () => {
    for (const csv of [await exported('&lng=ae'), await exported('').set('Accept-Language', 'ar')]) {
      const [header] = parseCsv(csv.text);
      expect(header.slice(0, 3)).toEqual(['المعرّف', 'المرجع', 'تاريخ الإنشاء']);
      expect(header.slice(-2)).toEqual(['سبب الفشل', 'نص المورّد']);
      const rows = new Map(
        parseCsv(csv.text)
          .slice(1)
          .map((r) => [Number(r[0]), r]),
      );
      expect(rows.get(sales.completed)![header.indexOf('الحالة')]).toBe('مكتملة');
      expect(rows.get(sales.declined)![header.indexOf('الحالة')]).toBe('فاشلة');
      expect(rows.get(sales.declined)![header.indexOf('سبب الفشل')]).toBe('رفض الدافع الدفع: لم يُؤخذ شيء');
      // Amounts and times stay machine-readable.
      expect(rows.get(sales.completed)![header.indexOf('المبلغ')]).toBe('0.55');
      expect(rows.get(sales.completed)![header.indexOf('تاريخ الإنشاء')]).toMatch(/\+03:00$/);
    }
    const somali = csvRecords((await exported('&lng=so')).text);
    expect(Object.keys(somali[0]).slice(0, 3)).toEqual(['Aqoonsi', 'Tixraaca', 'Waqtiga la sameeyay']);
    const declined = somali.find((r) => Number(r.Aqoonsi) === sales.declined)!;
    expect(declined).toMatchObject({ Xaaladda: 'Fashilmay', 'Sababta fashilka': 'Bixiyaha ayaa diiday lacag bixinta: waxba lagama qaadin' });
    expect(declined['Waqtiga la sameeyay']).toMatch(/\+03:00$/);
  });

  it('with headers=keys writes the column keys and the status codes, the same in any language', async () => {
    for (const lng of ['en', 'ae', 'so']) {
      const csv = await exported(`&lng=${lng}&headers=keys`);
      expect(csv.status).toBe(200);
      expect(parseCsv(csv.text)[0].join(',')).toBe(
        'id,reference,created_at,dealer,provider,bundle,phone,status,amount,cost,profit,currency,payment_reference,operator_reference,failure_summary,failure_reason',
      );
      const byId = new Map(csvRecords(csv.text).map((r) => [Number(r.id), r]));
      expect(byId.get(sales.completed)).toMatchObject({ status: 'completed', amount: '0.55' });
      expect(byId.get(sales.returned)).toMatchObject({ status: 'refunded', failure_reason: 'Operator busy' });
      expect(byId.get(sales.declined)!.status).toBe('failed');
      expect(byId.get(sales.completed)!.created_at).toMatch(/\+03:00$/);
    }
    const refused = await exported('&headers=yes');
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toHaveProperty('headers');
  });
});
