import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createHarness, type Harness } from '../../../tests/api/harness.ts';
import { parseCsv } from '../../../tests/api/csv.ts';
import { buy, makeShop, moneyKit, walletBalance, type MoneyKit, type Shop } from '../recharges/recharge-fixtures.ts';
import type { RechargeMoney } from '../recharges/recharge.routes.ts';
import type { RoutingDeps } from '../routing/routing.routes.ts';
import { startOfZonedDay, toDbTime, zonedDay } from '../database/time.ts';
import { ledgerSum } from '../wallets/ledger.ts';
import { comparePayment, hadPayment, matchDay, type SaleView } from './daily-close-matcher.ts';
import { readDailyCloseEnv, refreshOpenDays } from './daily-close-job.ts';
import { dailyCloseDeps } from './daily-close.routes.ts';
import { refreshDay } from './daily-close.service.ts';
import { systemContext } from '../platform/context.ts';

/**
 * The daily close on a real database, over real HTTP, against the real stand-ins (the sandbox
 * gateway is the WaafiPay stand-in, the sandbox aggregator the Reloadly stand-in, whose books a test
 * may plant and amend). A company day gets one difference of each kind, each handled through the
 * API with each action; the close is refused until all are handled, then freezes the day; a refund
 * the next day is a correction of the next open day; two closes at once: one wins.
 */
const TZ = 'Africa/Mogadishu';
let h: Harness;
let root: string;
let shop: Shop;
let kit: MoneyKit;
const money: RechargeMoney = {};
const routing: RoutingDeps = {};

const shift = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
/** An instant of a company day, "HH:MM:SS" on its clock. */
const local = (day: string, hms: string) => {
  const [hh, mm, ss] = hms.split(':').map(Number);
  return new Date(startOfZonedDay(day, TZ).getTime() + ((hh * 60 + mm) * 60 + ss) * 1000);
};
const today = () => zonedDay(new Date(), TZ);

beforeAll(async () => {
  h = await createHarness({ rechargeMoney: money, routing });
  root = await h.adminToken();
  shop = await makeShop(h, root, 'cost', { balance: '30' });
  kit = await moneyKit(h, { money });
  routing.operators = kit.operators;
  routing.gateways = kit.gateways;
});
afterAll(async () => {
  await kit?.close();
  await h?.close();
});

const get = (path: string, token = root) => h.http().get(`/api/v1/daily-close${path}`).set(bearer(token));
const post = (path: string, body: object = {}, token = root) => h.http().post(`/api/v1/daily-close${path}`).set(bearer(token)).send(body);
const row = async (id: number) => h.knex('recharges').where({ id }).first();

/** A sale run to its end, then moved to `at` with its aggregator record (`recordAt`, default the same instant). */
async function sale(phone: string, at: Date, recordAt: Date | null = at, worker = kit.worker) {
  const res = await buy(h, shop, { phone });
  expect(res.status).toBe(201);
  await worker.drain();
  const id = res.body.data.id as number;
  await h
    .knex('recharges')
    .where({ id })
    .update({ created_at: toDbTime(at) });
  const r = await row(id);
  if (recordAt) kit.standIns.reloadly.amendTopUp(r.reference, { transactionDate: recordAt });
  return r;
}

describe('the matcher alone', () => {
  it('a record of another day is not a difference; one with no reference inside the day is only_theirs; a delivered sale without a record is only_ours', () => {
    const range = { start: new Date('2026-11-20T21:00:00Z'), end: new Date('2026-11-21T21:00:00Z') };
    const base: Omit<SaleView, 'id' | 'reference'> = {
      status: 'completed',
      payment_state: 'collected',
      delivery_state: 'delivered',
      payment_flow: 'preauthorize',
      payment_adapter: 'sandbox',
      payment_reference: 'T1',
      operator_adapter: 'reloadly',
      route_product: '0.40',
      amount: 55,
      cost: 40,
    };
    const rec = (ref: string | null, at: string, amount = 40) => ({
      vendorId: `V${ref ?? at}`,
      ourReference: ref,
      state: 'done' as const,
      amount,
      currency: 'USD',
      cost: null,
      costCurrency: null,
      phone: null,
      at,
    });
    const out = matchDay({
      sales: [
        { ...base, id: 1, reference: 'RCA' },
        { ...base, id: 2, reference: 'RCB' },
        { ...base, id: 3, reference: 'RCC' },
      ],
      range,
      reports: {
        reloadly: {
          status: 'ok',
          records: [
            rec('RCA', '2026-11-21T20:59:59Z'),
            // RCC: the vendor sent another amount.
            rec('RCC', '2026-11-21T10:00:00Z', 50),
            rec('RCOTHER', '2026-11-21T21:30:00Z'),
            rec(null, '2026-11-21T12:00:00Z'),
            // Outside the day (the margin): the neighbouring day's.
            rec(null, '2026-11-21T21:10:00Z'),
          ],
        },
      },
      otherDays: new Set(['RCOTHER']),
      lookups: new Map([[1, { vendor: 'sandbox', result: { status: 'found', state: 'committed', transactionId: 'T1', amount: 55 } }]]),
    });
    expect(out.differences.map((d) => [d.kind, d.source, d.key]).sort()).toEqual(
      [
        ['amount', 'aggregator', 'RCC'],
        ['only_ours', 'aggregator', 'RCB'],
        ['only_theirs', 'aggregator', '~V2026-11-21T12:00:00Z'],
      ].sort(),
    );
    expect(out.vendors.find((v) => v.kind === 'gateway')).toMatchObject({ vendor: 'sandbox', records: 1, matched: 1, amount: 55 });
  });
});

describe("the gateway's answer against our payment", () => {
  const sale = (over: Partial<SaleView>): SaleView => ({
    id: 1,
    reference: 'RCP',
    status: 'completed',
    payment_state: 'collected',
    delivery_state: 'delivered',
    payment_flow: 'preauthorize',
    payment_adapter: 'waafipay',
    payment_reference: 'T1',
    operator_adapter: 'reloadly',
    route_product: null,
    amount: 55,
    cost: 40,
    ...over,
  });
  const kinds = (s: SaleView, result: Parameters<typeof comparePayment>[2]) => {
    const out = comparePayment('waafipay', s, result);
    return out === 'unknown' ? out : out.map((d) => d.kind);
  };
  it('collected but not found, cancelled or only held: a difference; let go but taken: a difference; unknown: none, to ask again', () => {
    expect(kinds(sale({}), { status: 'not_found' })).toEqual(['only_ours']);
    expect(kinds(sale({}), { status: 'found', state: 'cancelled', transactionId: 'T1' })).toEqual(['state']);
    expect(kinds(sale({}), { status: 'found', state: 'approved', transactionId: 'T1' })).toEqual(['state']);
    expect(kinds(sale({ payment_flow: 'purchase' }), { status: 'found', state: 'approved', transactionId: 'T1', amount: 55 })).toEqual([]);
    expect(kinds(sale({ status: 'refunded', payment_state: 'released' }), { status: 'found', state: 'committed', transactionId: 'T1' })).toEqual(['state']);
    expect(
      kinds(sale({ status: 'failed', payment_state: 'released', delivery_state: 'failed' }), { status: 'found', state: 'cancelled', transactionId: 'T1' }),
    ).toEqual([]);
    expect(kinds(sale({ status: 'failed', payment_state: 'absent', delivery_state: 'none' }), { status: 'not_found' })).toEqual([]);
    expect(kinds(sale({}), { status: 'unknown', error: 'timeout' })).toBe('unknown');
  });
  it('amounts in whole cents, as WaafiPay truncates', () => {
    expect(kinds(sale({}), { status: 'found', state: 'committed', transactionId: 'T1', amount: 55 })).toEqual([]);
    expect(kinds(sale({}), { status: 'found', state: 'committed', transactionId: 'T1', amount: 55.9 })).toEqual([]);
    expect(kinds(sale({}), { status: 'found', state: 'committed', transactionId: 'T1', amount: 54 })).toEqual(['amount']);
    expect(hadPayment(sale({ payment_flow: 'wallet', payment_state: 'none' }))).toBe(false);
    expect(hadPayment(sale({ payment_state: 'declined', payment_reference: null }))).toBe(false);
  });
});

describe('a company day closed after its differences were handled', () => {
  // Days in the company's zone: D is two days ago, D0 the day before it.
  let D: string;
  let D0: string;
  const sales: Record<string, any> = {};
  let firstIds: Record<string, number> = {};

  it('refresh finds one difference of each kind, and none for a sale crossing midnight', async () => {
    D = shift(today(), -2);
    D0 = shift(today(), -3);
    sales.ok = await sale('0615120010', local(D, '10:00:00'));
    // The aggregator lost it: its record is dated ten days away, outside anything pulled, and asked
    // by our reference it does not answer (so the refresh's lookup cannot find it either).
    sales.lost = await sale('0615120011', local(D, '11:00:00'), local(shift(D, -10), '11:00:00'));
    kit.standIns.reloadly.injectFault({ customIdentifier: sales.lost.reference }, '503', 1000);
    sales.amount = await sale('0615120012', local(D, '12:00:00'));
    // Our sale says 0.60; the gateway took 0.55.
    await h.knex('recharges').where({ id: sales.amount.id }).update({ amount: 60, profit: 20 });
    // Created 30 s before midnight; the aggregator recorded it 30 s after.
    sales.midnight = await sale('0615120013', local(D, '23:59:30'), local(shift(D, 1), '00:00:30'));
    // PROCESSING for ever at the aggregator: to review; the aggregator then says it delivered.
    sales.review = await sale('0615123333', local(D, '13:00:00'), null, kit.newWorker({ reviewAfterMs: 300 }));
    expect(sales.review.status).toBe('needs_review');
    kit.standIns.reloadly.amendTopUp(sales.review.reference, { status: 'SUCCESSFUL', transactionDate: local(D, '13:00:05') });
    // A delivery we never recorded.
    kit.standIns.reloadly.plantTopUp({ customIdentifier: null, requestedAmount: 0.4, transactionDate: local(D, '14:00:00') });

    const res = await post(`/${D}/refresh`);
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data).toMatchObject({ date: D, status: 'open', time_zone: TZ, starts_at: startOfZonedDay(D, TZ).toISOString(), refreshed_at: expect.any(String) });
    const found = data.differences.map((d: any) => [d.kind, d.source, d.reference]).sort();
    expect(found).toEqual(
      [
        ['amount', 'gateway', sales.amount.reference],
        ['only_ours', 'aggregator', sales.lost.reference],
        ['only_theirs', 'aggregator', null],
        ['state', 'aggregator', sales.review.reference],
      ].sort(),
    );
    expect(data.totals.differences).toEqual({ total: 4, unhandled: 4 });
    expect(data.totals.by_status).toMatchObject({ completed: 4, needs_review: 1 });
    expect(data.totals.sales).toMatchObject({ count: 4, amount: '2.25' });
    expect(data.totals.vendors.find((v: any) => v.kind === 'gateway' && v.vendor === 'sandbox')).toMatchObject({ records: 5, error: null });
    expect(data.differences.find((d: any) => d.kind === 'only_ours').evidence).toBe(
      `We recorded ${sales.lost.reference} as delivered through sandbox, which has no record of it.`,
    );
    // Our texts in the reader's language.
    const somali = await h.http().get(`/api/v1/daily-close/${D}?lng=so`).set(bearer(root));
    expect(somali.body.data.differences.find((d: any) => d.kind === 'only_ours').evidence).toMatch(/diiwaan/);
    firstIds = Object.fromEntries(data.differences.map((d: any) => [`${d.kind}`, d.id]));
  });

  it('close is refused with 409 while differences are unhandled', async () => {
    const res = await post(`/${D}/close`);
    expect(res.status).toBe(409);
    expect(res.body.message).toMatch(/4/);
  });

  it('each difference is handled through the API with each action; a note is required; twice is a 409', async () => {
    const diffs = (await get(`/${D}`)).body.data.differences as any[];
    const by = (kind: string) => diffs.find((d) => d.kind === kind)!;
    const resolve = (id: number, body: object) => post(`/${D}/differences/${id}/resolve`, body);

    const noNote = await resolve(by('amount').id, { action: 'accept', note: '  ' });
    expect(noNote.status).toBe(422);
    expect(Object.keys(noNote.body.errors)).toEqual(['note']);
    expect(noNote.body.errors.note[0]).toBe('Write down why');
    expect((await resolve(by('amount').id, { action: 'adjust', note: 'x' })).status).toBe(422);

    // Re-asked while the aggregator still has nothing: 200, still unhandled, new evidence.
    const still = await resolve(by('only_ours').id, { action: 'reask', note: 'Asking Reloadly again' });
    expect(still.status).toBe(200);
    expect(still.body.data).toMatchObject({ handled: false, action: null });
    // The aggregator's report was late: now it has the record inside the day.
    kit.standIns.reloadly.amendTopUp(sales.lost.reference, { transactionDate: local(D, '11:00:02') });
    const reasked = await resolve(by('only_ours').id, { action: 'reask', note: 'Reloadly had it after all' });
    kit.standIns.reloadly.clearFaults();
    expect(reasked.status).toBe(200);
    expect(reasked.body.data).toMatchObject({ handled: true, action: 'reask', note: 'Reloadly had it after all', handled_by: { name: 'Root Admin' } });

    const settled = await resolve(by('state').id, { action: 'settle', outcome: 'delivered', note: 'Reloadly shows it delivered' });
    expect(settled.status).toBe(200);
    expect(settled.body.data).toMatchObject({ handled: true, action: 'settle' });
    await kit.worker.drain();
    expect(await row(sales.review.id)).toMatchObject({ status: 'completed', review_outcome: 'delivered' });

    const before = await walletBalance(h, shop.walletId);
    const adjusted = await resolve(by('only_theirs').id, {
      action: 'adjust',
      note: 'Delivered for the shop by hand at Reloadly',
      wallet_id: shop.walletId,
      type: 'debit',
      amount: '0.40',
    });
    expect(adjusted.status).toBe(200);
    expect(adjusted.body.data).toMatchObject({ handled: true, action: 'adjust', details: { wallet_transaction_id: expect.any(Number) } });
    expect(await walletBalance(h, shop.walletId)).toBe(before - 40);
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(before - 40);
    const ledgerRows = await h.knex('wallet_transactions').where({ reference: `CLOSE-${D}-${by('only_theirs').id}` });
    expect(ledgerRows).toHaveLength(1);

    // Refused, nothing changed: a sale not in review cannot be settled; an unknown wallet; more than the wallet holds.
    expect((await resolve(by('amount').id, { action: 'settle', outcome: 'delivered', note: 'x' })).status).toBe(409);
    const noWallet = await resolve(by('amount').id, { action: 'adjust', note: 'x', wallet_id: 999999, type: 'credit', amount: '1.00' });
    expect(noWallet.status).toBe(422);
    expect(Object.keys(noWallet.body.errors)).toEqual(['wallet_id']);
    const short = await resolve(by('amount').id, { action: 'adjust', note: 'x', wallet_id: shop.walletId, type: 'debit', amount: '100000.00' });
    expect(short.status).toBe(422);
    expect(Object.keys(short.body.errors)).toEqual(['amount']);
    expect(await walletBalance(h, shop.walletId)).toBe(before - 40);
    // Five people at once: one handles it.
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => resolve(by('amount').id, { action: 'accept', note: `Price typed wrong by hand; the gateway is right (${i})` })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409]);
    const accepted = answers.find((a) => a.status === 200)!;
    expect(accepted.body.data).toMatchObject({ handled: true, action: 'accept' });
    expect((await resolve(by('amount').id, { action: 'accept', note: 'again' })).status).toBe(409);

    const logged = await h.knex('activity_log').where({ subject_type: 'daily_close_difference', action: 'daily_close_difference_resolved' });
    expect(logged).toHaveLength(4);
  });

  it('refresh keeps handled differences with their ids; the close freezes the day', async () => {
    const again = await post(`/${D}/refresh`);
    expect(again.status).toBe(200);
    const kept = Object.fromEntries(again.body.data.differences.map((d: any) => [d.kind, d.id]));
    expect(kept).toEqual(firstIds);
    expect(again.body.data.differences.every((d: any) => d.handled)).toBe(true);

    const closed = await post(`/${D}/close`);
    expect(closed.status).toBe(200);
    expect(closed.body.data).toMatchObject({ status: 'closed', closed_by: { name: 'Root Admin' }, cutoff_at: null, closed_at: expect.any(String) });
    expect(closed.body.data.totals.sales).toMatchObject({ count: 5 });
    sales.frozen = closed.body.data.totals;
    expect((await post(`/${D}/refresh`)).status).toBe(409);
    expect((await post(`/${D}/close`)).status).toBe(409);
    const logs = await h.http().get('/api/v1/logs?subject_type=daily_close').set(bearer(root));
    expect(logs.body.data.find((l: any) => l.action === 'daily_close_closed')).toMatchObject({
      actor: { name: 'Root Admin' },
      subject: { type: 'daily_close', name: D },
    });
  });

  it('a refund the next day is a correction of the next open day; the closed figures never change', async () => {
    const refund = await h.http().post(`/api/v1/recharges/${sales.ok.id}/refund`).set(bearer(root));
    expect(refund.status).toBe(200);
    // A read changes nothing: the corrections are found by a refresh (a close, the schedule).
    expect((await get(`/${today()}`)).body.data.corrections).toEqual([]);
    expect((await post(`/${today()}/refresh`)).status).toBe(200);
    const open = await get(`/${today()}`);
    expect(open.status).toBe(200);
    const correction = open.body.data.corrections.find((c: any) => c.reference === sales.ok.reference);
    expect(correction).toMatchObject({ day: D, amount: '-0.55', profit: '-0.15' });
    expect(correction.what).toMatch(/completed → refunded/);
    expect(open.body.data.totals.corrections).toMatchObject({ count: 1, amount: '-0.55' });
    // Found again: written once.
    expect((await post(`/${today()}/refresh`)).body.data.corrections).toHaveLength(1);
    const frozen = await get(`/${D}`);
    expect(frozen.body.data.totals).toEqual(sales.frozen);
    expect(frozen.body.data.status).toBe('closed');
  });

  it('two staff closing at once: one 200, one 409', async () => {
    expect((await post(`/${D0}/refresh`)).status).toBe(200);
    const answers = await Promise.all([post(`/${D0}/close`), post(`/${D0}/close`), post(`/${D0}/close`)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
  });

  it('the list of days, and the exports', async () => {
    const list = await get('?per_page=50');
    expect(list.status).toBe(200);
    const days = list.body.data.map((d: any) => d.date);
    expect(days).toEqual([...days].sort().reverse());
    expect(list.body.data.find((d: any) => d.date === D)).toMatchObject({ status: 'closed', sales_count: 5, differences_total: 4, differences_unhandled: 0 });
    expect(list.body.data.find((d: any) => d.date === D0)).toMatchObject({ status: 'closed' });
    expect(list.body.meta).toMatchObject({ current_page: 1, total: days.length });
    // An open day's line is summed in SQL: the same figures as the day's own answer.
    const live = (await get(`/${today()}`)).body.data.totals.sales;
    expect(list.body.data.find((d: any) => d.date === today())).toMatchObject({
      status: 'open',
      sales_count: live.count,
      amount: live.amount,
      margin: live.margin,
    });
    expect(list.body.data.find((d: any) => d.date === D).margin).toBe(sales.frozen.sales.margin);
    const paged = await get('?per_page=1&page=2');
    expect(paged.body.data.map((d: any) => d.date)).toEqual([days[1]]);

    const csv = await get(`/${D}/export?format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/text\/csv/);
    expect(csv.text).toContain(sales.lost.reference);
    expect(csv.text).toContain("Only in the vendor's records");
    expect(csv.text).toContain('Matched');
    // Closed: each sale's frozen figures; the refund of the next day shows only as "now".
    const lines = parseCsv(csv.text);
    const head = lines[0];
    const ok = lines.find((l) => l[0] === sales.ok.reference)!;
    expect(ok[head.indexOf('Status')]).toBe('Completed');
    expect(ok[head.indexOf('Amount')]).toBe('0.55');
    expect(ok[head.indexOf('Profit')]).toBe('0.15');
    expect(ok[head.indexOf('Status now')]).toBe('Refunded');
    expect(ok[head.indexOf('Created at')]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+03:00$/);
    const counted = lines.slice(1).filter((l) => l[head.indexOf('Status')] === 'Completed');
    const sum = counted.reduce((t, l) => t + Math.round(Number(l[head.indexOf('Amount')]) * 100), 0);
    expect(sum).toBe(Math.round(Number(sales.frozen.sales.amount) * 100));
    // In the reader's language: headers, statuses, states and matches are words; figures and times as they are.
    const arabicCsv = parseCsv((await get(`/${D}/export?format=csv&lng=ae`)).text);
    const ar = (l: string[], label: string) => l[arabicCsv[0].indexOf(label)];
    const okAr = arabicCsv.find((l) => l[0] === sales.ok.reference)!;
    expect([ar(okAr, 'الحالة'), ar(okAr, 'المبلغ'), ar(okAr, 'الحالة الآن')]).toEqual(['مكتملة', '0.55', 'مستردة']);
    expect(ar(okAr, 'التسليم')).toBe('سُلّم');
    expect(ar(okAr, 'تاريخ الإنشاء')).toBe(ok[head.indexOf('Created at')]);
    expect(arabicCsv.map((l) => ar(l, 'المطابقة'))).toContain('في سجلات المورّد فقط');
    const somali = parseCsv((await get(`/${D}/export?format=csv&lng=so`)).text);
    const okSo = somali.find((l) => l[0] === sales.ok.reference)!;
    expect([okSo[somali[0].indexOf('Xaaladda')], okSo[somali[0].indexOf('Xaaladda hadda')], okSo[somali[0].indexOf('Lacagta')]]).toEqual([
      'Dhammaaday',
      'La celiyay',
      '0.55',
    ]);
    const pdf = await h
      .http()
      .get(`/api/v1/daily-close/${D}/export?format=pdf&lng=so`)
      .set(bearer(root))
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(pdf.status).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect((pdf.body as Buffer).subarray(0, 4).toString()).toBe('%PDF');
    // Arabic: right to left, our texts translated.
    const arabic = await h.http().get(`/api/v1/daily-close/${D}/export?format=pdf&lng=ae`).set(bearer(root));
    expect(arabic.status).toBe(200);
    expect((await get(`/${D}/export?format=xls`)).status).toBe(422);
  });

  it('the schedule refreshes yesterday and today while open, and skips a closed day', async () => {
    expect(readDailyCloseEnv({}).DAILY_CLOSE_REFRESH_MINUTES).toBe(60);
    expect(readDailyCloseEnv({ DAILY_CLOSE_REFRESH_MINUTES: '0' }).DAILY_CLOSE_REFRESH_MINUTES).toBe(0);
    expect(() => readDailyCloseEnv({ DAILY_CLOSE_REFRESH_MINUTES: '-1' })).toThrow(/DAILY_CLOSE_REFRESH_MINUTES/);
    const deps = dailyCloseDeps(routing, money);
    const done = await refreshOpenDays(systemContext({ db: h.knex }), deps);
    expect(done).toEqual([shift(today(), -1), today()]);
    const rows = await h.knex('daily_closes').whereIn('day', done);
    expect(rows.every((r: { refreshed_at: string | null }) => r.refreshed_at)).toBe(true);
  });

  it("a sale after a day's cutoff is compared and corrected on the next open day", async () => {
    // D closed early (at 23:00): a sale at 23:30, which the aggregator never recorded.
    await h
      .knex('daily_closes')
      .where({ day: D })
      .update({ cutoff_at: toDbTime(local(D, '23:00:00')) });
    const late = await sale('0615120014', local(D, '23:30:00'), local(shift(D, -10), '23:30:00'));
    // Lost at the aggregator: asked by our reference, it does not answer either.
    kit.standIns.reloadly.injectFault({ customIdentifier: late.reference }, '503', 1000);
    const yesterday = shift(today(), -1);
    const res = await post(`/${yesterday}/refresh`);
    kit.standIns.reloadly.clearFaults();
    expect(res.status).toBe(200);
    expect(res.body.data.differences.map((d: any) => [d.kind, d.reference])).toContainEqual(['only_ours', late.reference]);
    expect(res.body.data.corrections.find((c: any) => c.reference === late.reference)).toMatchObject({ day: D, amount: '0.55' });
    expect((await get(`/${D}`)).body.data.totals).toEqual(sales.frozen);

    // Wallet activity after D's cutoff is counted in the next open day's ledger (it is in no closed one).
    const ledgerBefore = (await get(`/${yesterday}`)).body.data.totals.ledger;
    const moved = await h.knex('wallet_transactions').where('reference', 'like', `CLOSE-${D}-%`).first();
    expect(moved.type).toBe('debit');
    await h
      .knex('wallet_transactions')
      .where({ id: moved.id })
      .update({ created_at: toDbTime(local(D, '23:30:00')) });
    const ledgerAfter = (await get(`/${yesterday}`)).body.data.totals.ledger;
    expect(Math.round((Number(ledgerAfter.debits) - Number(ledgerBefore.debits)) * 100)).toBe(Number(moved.amount));
    // Before the cutoff it is the closed day's, in its frozen figures: not counted again.
    await h
      .knex('wallet_transactions')
      .where({ id: moved.id })
      .update({ created_at: toDbTime(local(D, '22:30:00')) });
    expect((await get(`/${yesterday}`)).body.data.totals.ledger).toEqual(ledgerBefore);
  });

  it('closing the current day sets the cutoff: a later sale stays out of the frozen figures', async () => {
    const day = today();
    const refreshed = await post(`/${day}/refresh`);
    expect(refreshed.status).toBe(200);
    const open = (await get(`/${day}`)).body.data;
    expect(open.differences.filter((d: any) => !d.handled)).toEqual([]);
    // A sale between the last refresh and the close was never compared: it is not frozen either.
    const between = await buy(h, shop, { phone: '0615120021' });
    await kit.worker.drain();
    const closed = await post(`/${day}/close`);
    expect(closed.status).toBe(200);
    expect(closed.body.data.cutoff_at).toBe(refreshed.body.data.refreshed_at);
    const frozenIds = Object.keys(JSON.parse((await h.knex('daily_closes').where({ day }).first()).snapshot));
    expect(frozenIds).not.toContain(String(between.body.data.id));
    expect(closed.body.data.totals.sales.count).toBe(open.totals.sales.count);
    const late = await buy(h, shop, { phone: '0615120020' });
    await kit.worker.drain();
    expect((await row(late.body.data.id)).status).toBe('completed');
    const after = await get(`/${day}`);
    expect(after.body.data.totals).toEqual(closed.body.data.totals);
  });

  it('cost, profit and margin only with "view bundles prices": null in JSON, left out of the CSV', async () => {
    const viewer = await h.userWith(['view daily close', 'export reports']);
    const mine = (await get(`/${D}`)).body.data;
    expect(mine.totals.sales.cost).toEqual(expect.any(String));
    expect(mine.totals.sales.margin).toEqual(expect.any(String));
    const theirs = (await get(`/${D}`, viewer.token)).body.data;
    expect(theirs.totals.sales).toMatchObject({
      cost: null,
      profit: null,
      gateway_charges: null,
      aggregator_cost: null,
      margin: null,
      amount: mine.totals.sales.amount,
    });
    expect(theirs.totals.corrections.profit).toBeNull();
    expect(theirs.corrections.every((c: any) => c.profit === null)).toBe(true);
    expect(theirs.differences.filter((d: any) => d.theirs && 'cost' in d.theirs).every((d: any) => d.theirs.cost === null)).toBe(true);
    // A gateway's record carries its charges: the company's cost too.
    expect(mine.differences.some((d: any) => typeof d.theirs?.charges === 'string')).toBe(true);
    expect(theirs.differences.filter((d: any) => d.theirs && 'charges' in d.theirs).every((d: any) => d.theirs.charges === null)).toBe(true);
    const list = (await get('?per_page=50', viewer.token)).body.data;
    expect(list.every((d: any) => d.margin === null)).toBe(true);
    const csv = await get(`/${D}/export?format=csv`, viewer.token);
    expect(csv.status).toBe(200);
    const head = parseCsv(csv.text)[0];
    expect(head).not.toContain('Cost');
    expect(head).not.toContain('Profit');
    expect(head).toContain('Amount');
    const pdf = await get(`/${D}/export?format=pdf`, viewer.token);
    expect(pdf.status).toBe(200);
  });

  it('refused: a dealer (even holding the permission), staff without it; bad days', async () => {
    expect((await get(`/${D}`, shop.token)).status).toBe(403);
    const dealerish = await h.userWith(['view daily close', 'manage daily close'], { user_type: 'dealer' });
    expect((await get(`/${D}`, dealerish.token)).status).toBe(403);
    expect((await get('', dealerish.token)).status).toBe(403);
    const staff = await h.userWith(['view recharges']);
    expect((await get(`/${D}`, staff.token)).status).toBe(403);
    const viewer = await h.userWith(['view daily close']);
    expect((await get(`/${D}`, viewer.token)).status).toBe(200);
    expect((await post(`/${D}/close`, {}, viewer.token)).status).toBe(403);
    expect((await get('/2026-02-30')).status).toBe(422);
    expect((await get(`/${shift(today(), 2)}`)).status).toBe(422);
    expect((await post(`/${D}/differences/999999/resolve`, { action: 'accept', note: 'x' })).status).toBe(404);
  });
});

describe('a day compared to its end, handled with the permissions its actions need', () => {
  let Y: string;
  let only: any;

  it('a sale delivered long after midnight is found by our reference, not only ours', async () => {
    Y = shift(today(), -5);
    // Made at 23:30, recorded by the aggregator at 02:00 the next day: outside the pulled window.
    const late = await sale('0615120030', local(Y, '23:30:00'), local(shift(Y, 1), '02:00:00'));
    kit.standIns.reloadly.plantTopUp({ customIdentifier: null, requestedAmount: 0.4, transactionDate: local(Y, '09:00:00') });
    const res = await post(`/${Y}/refresh`);
    expect(res.status).toBe(200);
    expect(res.body.data.differences.map((d: any) => d.reference)).not.toContain(late.reference);
    expect(res.body.data.differences.map((d: any) => d.kind)).toEqual(['only_theirs']);
    only = res.body.data.differences[0];
  });

  it('re-ask does the same: a delivery outside the window is found by our reference', async () => {
    const later = await sale('0615120031', local(Y, '22:00:00'), local(shift(Y, 1), '03:00:00'));
    // The lookup fails during this refresh: the sale stays only ours.
    kit.standIns.reloadly.injectFault({ customIdentifier: later.reference }, '503', 1000);
    const res = await post(`/${Y}/refresh`);
    kit.standIns.reloadly.clearFaults();
    const d = res.body.data.differences.find((x: any) => x.reference === later.reference);
    expect(d).toMatchObject({ kind: 'only_ours', source: 'aggregator', handled: false });
    const reasked = await post(`/${Y}/differences/${d.id}/resolve`, { action: 'reask', note: 'Ask Reloadly by our reference' });
    expect(reasked.status).toBe(200);
    expect(reasked.body.data).toMatchObject({ handled: true, action: 'reask', theirs: { state: 'done' } });
  });

  it('adjust needs "adjust wallets", settle needs "review recharges": 403, nothing changed', async () => {
    const clerk = await h.userWith(['view daily close', 'manage daily close']);
    const before = await walletBalance(h, shop.walletId);
    const adjust = await post(
      `/${Y}/differences/${only.id}/resolve`,
      { action: 'adjust', note: 'x', wallet_id: shop.walletId, type: 'credit', amount: '1.00' },
      clerk.token,
    );
    expect(adjust.status).toBe(403);
    expect(adjust.body.message).toBe('Writing an adjustment needs the "adjust wallets" permission.');
    const settle = await post(`/${Y}/differences/${only.id}/resolve`, { action: 'settle', outcome: 'delivered', note: 'x' }, clerk.token);
    expect(settle.status).toBe(403);
    expect(settle.body.message).toBe('Settling a sale needs the "review recharges" permission.');
    expect(await walletBalance(h, shop.walletId)).toBe(before);
    expect((await get(`/${Y}`)).body.data.differences.find((d: any) => d.id === only.id)).toMatchObject({ handled: false });
    // Accepting needs nothing more.
    const accepted = await post(`/${Y}/differences/${only.id}/resolve`, { action: 'accept', note: 'Known test record' }, clerk.token);
    expect(accepted.status).toBe(200);
  });

  it('a past day refreshed before its end plus an hour is refused: refresh first; then it closes', async () => {
    // As if the last refresh ran at 00:30 the next day, before the vendors' records were complete.
    await h
      .knex('daily_closes')
      .where({ day: Y })
      .update({ refreshed_at: toDbTime(local(shift(Y, 1), '00:30:00')) });
    const refused = await post(`/${Y}/close`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/Refresh the day/);
    const so = await h.http().post(`/api/v1/daily-close/${Y}/close?lng=so`).set(bearer(root));
    expect(so.body.message).toMatch(/Cusboonaysii/);
    expect((await post(`/${Y}/refresh`)).status).toBe(200);
    expect((await post(`/${Y}/close`)).status).toBe(200);
  });
});

describe('the schedule and the gateway; corrections of days closed long ago', () => {
  let Z: string;
  it('does not ask the gateway again about a sale that matched and has not changed; the console Refresh asks all', async () => {
    Z = shift(today(), -6);
    const one = await sale('0615120040', local(Z, '10:00:00'));
    const real = dailyCloseDeps(routing, money);
    let asked = 0;
    const counting = {
      of: (s: { payment_adapter?: string | null; payment_state?: string | null }) => {
        const g = real.gateways()?.of(s);
        if (!g) return g;
        const wrapped = Object.create(g);
        wrapped.lookup = (...args: Parameters<typeof g.lookup>) => {
          asked++;
          return g.lookup(...args);
        };
        return wrapped;
      },
    };
    const deps = { ...real, gateways: () => counting as never };
    const ctx = systemContext({ db: h.knex });
    const first = await refreshDay(ctx, deps, Z);
    expect(first.differences).toEqual([]);
    expect(asked).toBe(1);
    await refreshDay(ctx, deps, Z);
    expect(asked).toBe(1);
    // The figures stay whole: the kept answer is counted as a match.
    expect((await get(`/${Z}`)).body.data.totals.vendors.find((v: any) => v.kind === 'gateway')).toMatchObject({ records: 1, matched: 1 });
    // The row changed: asked again.
    await h
      .knex('recharges')
      .where({ id: one.id })
      .update({ updated_at: toDbTime(new Date(Date.now() + 1000)) });
    await refreshDay(ctx, deps, Z);
    expect(asked).toBe(2);
    await refreshDay(ctx, deps, Z, { askAll: true });
    expect(asked).toBe(3);
  });

  it('a change to a sale of a day closed 40 days ago is a correction of the next open day, past the closed days after it; a GET finds nothing itself', async () => {
    const W = shift(today(), -40);
    const W1 = shift(today(), -39);
    const old = await sale('0615120041', local(W, '10:00:00'));
    await sale('0615120042', local(W1, '10:00:00'));
    for (const d of [W, W1]) {
      expect((await post(`/${d}/refresh`)).status).toBe(200);
      expect((await post(`/${d}/close`)).status).toBe(200);
    }
    expect((await h.http().post(`/api/v1/recharges/${old.id}/refund`).set(bearer(root))).status).toBe(200);
    expect((await get(`/${Z}`)).body.data.corrections).toEqual([]);
    const res = await post(`/${Z}/refresh`);
    expect(res.status).toBe(200);
    expect(res.body.data.corrections.find((c: any) => c.reference === old.reference)).toMatchObject({ day: W, amount: '-0.55' });
    expect((await get(`/${W1}`)).body.data.corrections).toEqual([]);
    // Found again by the next run: written once.
    expect((await post(`/${Z}/refresh`)).body.data.corrections.filter((c: any) => c.reference === old.reference)).toHaveLength(1);
  });
});
