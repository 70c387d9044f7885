import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Knex } from 'knex';
import { ALL_PERMISSIONS, type Permission } from '@app/contracts';
import { createHarness, bearer, TEST_DATABASE, type Harness } from '../../../tests/api/harness.ts';
import { DAY_TOTALS, DAY_TOTALS_STATE, IN_FLIGHT_STATUSES, rebuildDayTotals } from '../../../db/migrations/20261125A-recharge-day-totals.ts';
import { systemContext, type ServiceContext } from '../platform/context.ts';
import { unitOfWork } from '../database/unit-of-work.ts';
import { toDbTime, zonedDay } from '../database/time.ts';
import { encodeId } from '../http/ids.ts';
import { dashboard, dealerProfitReport, GROUPS, salesReport, type SalesFilters } from './reports.service.ts';
import { dayTotalsRebuild, readDayTotalsState, totalsCover } from './day-totals.ts';

/**
 * The day totals (recharge_day_totals, kept by triggers) against the recharges themselves, on
 * the engine under test: after random sequences of sales, status changes (any status to any),
 * moves in time, edits, deletions, removed operators, bundles and payment methods, and rebuilds
 * at other offsets, the table equals the recharges summed in JavaScript, and every report read
 * from it answers exactly what the live count answers. Then the same under concurrent changes,
 * a rebuild racing with sales, the migration's fill and rollback, and the switch that follows
 * the company's zone.
 */
let h: Harness;
const dealers: number[] = [];
const bundles: number[] = [];
const providers: number[] = [];
const methods: number[] = [];
let category = 0;
let seq = 0;
const STAMP = '2026-01-01 00:00:00.000';
const MIGRATION = '20261125A-recharge-day-totals.ts';
/** Zones without daylight saving, by offset. */
const ZONES: Record<number, string> = {
  180: 'Africa/Mogadishu',
  120: 'Africa/Johannesburg',
  [-300]: 'America/Bogota',
  330: 'Asia/Kolkata',
  345: 'Asia/Kathmandu',
};
const STATUSES = ['pending', 'processing', 'completed', 'failed', 'refunded', 'needs_review'];
const PROVIDER_NAMES = ['Hormuud', 'Somtel', 'Golis'];
const BUNDLE_NAMES = ['1 GB Daily', '3 GB Weekly', 'Unlimited'];
const CATEGORIES = ['Daily', 'Weekly'];

async function newProvider(name: string) {
  seq += 1;
  const [id] = await h
    .knex('providers')
    .insert({ name, code: `DT${seq}`, status: 'active', sort_order: 0, adapter_key: 'sandbox', created_at: STAMP, updated_at: STAMP });
  return (
    Number(id) ||
    (
      await h
        .knex('providers')
        .where({ code: `DT${seq}` })
        .first()
    ).id
  );
}
async function newBundle(name: string) {
  const [id] = await h
    .knex('bundles')
    .insert({ category_id: category, name, validity_days: 1, cost_price: 40, selling_price: 55, status: 'active', created_at: STAMP, updated_at: STAMP });
  return Number(id);
}
async function newMethod(name: string) {
  const [id] = await h.knex('payment_methods').insert({ dealer_id: null, name, type: 'cash', status: 'active', created_at: STAMP, updated_at: STAMP });
  return Number(id);
}

beforeAll(async () => {
  h = await createHarness();
  for (const [i, pricing] of (['cost', 'profit', 'cost'] as const).entries()) {
    const id = await h.insertUser({ name: `Totals Dealer ${i}`, email: `totals${i}@test.example`, user_type: 'dealer', dealer_code: `TOT${i}` }, 'dealer');
    await h.knex('dealer_details').insert({ user_id: id, brand_color: '#000000', pricing_model: pricing, created_at: STAMP, updated_at: STAMP });
    dealers.push(id);
  }
  providers.push(await newProvider('Hormuud'), await newProvider('Somtel'));
  const [cat] = await h.knex('categories').insert({ provider_id: providers[0], name: 'Daily', status: 'active', created_at: STAMP, updated_at: STAMP });
  category = Number(cat);
  bundles.push(await newBundle('1 GB Daily'), await newBundle('3 GB Weekly'));
  methods.push(await newMethod('Cash'), await newMethod('EVC'));
});
afterAll(() => h.close());

const dayAt = (createdAt: string, offset: number) => new Date(Date.parse(`${createdAt.replace(' ', 'T')}Z`) + offset * 60_000).toISOString().slice(0, 10);
type Key = (string | number)[];

/** The recharges summed in JavaScript, as the totals should hold them at `offset`. */
async function expectedTotals(knex: Knex, offset: number) {
  const sums = new Map<string, number[]>();
  for (const r of await knex('recharges').select()) {
    if ((IN_FLIGHT_STATUSES as readonly string[]).includes(r.status)) continue;
    const key: Key = [
      dayAt(String(r.created_at), offset),
      r.status,
      Number(r.dealer_id),
      Number(r.provider_id ?? 0),
      Number(r.bundle_id ?? 0),
      Number(r.payment_method_id ?? 0),
      r.pricing_model,
      r.category_name,
      r.provider_name,
      r.bundle_name,
    ];
    const k = JSON.stringify(key);
    const s = sums.get(k) ?? [0, 0, 0, 0];
    sums.set(k, [s[0] + 1, s[1] + Number(r.amount), s[2] + Number(r.cost), s[3] + Number(r.profit)]);
  }
  return [...sums.entries()].map(([k, s]) => [k, ...s]).sort();
}
async function storedTotals(knex: Knex) {
  return (await knex(DAY_TOTALS).select())
    .map((r) => [
      JSON.stringify([
        r.day,
        r.status,
        Number(r.dealer_id),
        Number(r.provider_id),
        Number(r.bundle_id),
        Number(r.payment_method_id),
        r.pricing_model,
        r.category_name,
        r.provider_name,
        r.bundle_name,
      ]),
      Number(r.sales),
      Number(r.amount),
      Number(r.cost),
      Number(r.profit),
    ])
    .sort();
}
async function expectTotalsExact() {
  const state = await readDayTotalsState(h.knex);
  expect(state?.ready).toBe(true);
  expect(await storedTotals(h.knex)).toEqual(await expectedTotals(h.knex, state!.offset));
  return state!;
}

async function insertRecharge(v: {
  dealer: number;
  status: string;
  at: string;
  provider?: number | null;
  bundle?: number | null;
  method?: number | null;
  amount?: number;
  names?: [number, number, number];
}) {
  seq += 1;
  const [pn, bn, cn] = v.names ?? [0, 0, 0];
  const [id] = await h.knex('recharges').insert({
    dealer_id: v.dealer,
    provider_id: v.provider ?? null,
    bundle_id: v.bundle ?? null,
    payment_method_id: v.method ?? null,
    provider_name: PROVIDER_NAMES[pn],
    bundle_name: BUNDLE_NAMES[bn],
    category_name: CATEGORIES[cn],
    pricing_model: dealers.indexOf(v.dealer) === 1 ? 'profit' : 'cost',
    phone: '615000000',
    amount: v.amount ?? 55,
    cost: Math.floor((v.amount ?? 55) * 0.7),
    profit: (v.amount ?? 55) - Math.floor((v.amount ?? 55) * 0.7),
    currency: 'USD',
    status: v.status,
    idempotency_key: `dt-${seq}`,
    reference: `RCDT${String(seq).padStart(8, '0')}`,
    attempts: 1,
    created_at: v.at,
    updated_at: v.at,
  });
  return (
    Number(id) ||
    (
      await h
        .knex('recharges')
        .where({ reference: `RCDT${String(seq).padStart(8, '0')}` })
        .first()
    ).id
  );
}

// Times around the month's end in most zones (Oct 31 / Nov 1, 2026), around a week's start, and
// around now (the dashboard's today and month), to the millisecond.
const ANCHORS = [Date.parse('2026-10-31T21:00:00.000Z'), Date.parse('2026-11-01T21:00:00.000Z'), Date.parse('2026-11-08T22:00:00.000Z'), Date.now()];
const instant = fc
  .record({ anchor: fc.integer({ min: 0, max: ANCHORS.length - 1 }), minutes: fc.integer({ min: -2000, max: 2000 }), ms: fc.constantFrom(0, -1, 1, 999) })
  .map(({ anchor, minutes, ms }) => toDbTime(new Date(ANCHORS[anchor] + minutes * 60_000 + ms)));

type Op =
  | {
      op: 'sale';
      dealer: number;
      status: string;
      at: string;
      provider: number;
      bundle: number;
      method: number;
      amount: number;
      names: [number, number, number];
    }
  | { op: 'status'; pick: number; status: string }
  | { op: 'move'; pick: number; at: string }
  | { op: 'edit'; pick: number; amount: number; names: [number, number, number]; dealer: number }
  | { op: 'delete'; pick: number }
  | { op: 'bulk'; dealer: number; from: string; to: string }
  | { op: 'dropParent'; which: 'provider' | 'bundle' | 'method' }
  | { op: 'rebuild'; offset: number };

const names = fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 1 }));
const status = fc.constantFrom(...STATUSES);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('sale' as const),
      dealer: fc.integer({ min: 0, max: 2 }),
      status,
      at: instant,
      provider: fc.integer({ min: -1, max: 1 }),
      bundle: fc.integer({ min: -1, max: 1 }),
      method: fc.integer({ min: -1, max: 1 }),
      amount: fc.integer({ min: 0, max: 100_000 }),
      names,
    }),
  },
  { weight: 5, arbitrary: fc.record({ op: fc.constant('status' as const), pick: fc.nat(), status }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('move' as const), pick: fc.nat(), at: instant }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('edit' as const),
      pick: fc.nat(),
      amount: fc.integer({ min: 0, max: 5000 }),
      names,
      dealer: fc.integer({ min: 0, max: 2 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('bulk' as const), dealer: fc.integer({ min: 0, max: 2 }), from: status, to: status }) },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('dropParent' as const), which: fc.constantFrom('provider' as const, 'bundle' as const, 'method' as const) }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('rebuild' as const), offset: fc.constantFrom(180, 120, -300, 330, 345) }) },
);

async function apply(op: Op, ids: number[]) {
  const pick = (n: number) => ids[n % ids.length];
  const pool = (list: number[], n: number) => (n < 0 ? null : list[list.length - 1 - (n % Math.min(2, list.length))]);
  switch (op.op) {
    case 'sale':
      ids.push(
        await insertRecharge({
          dealer: dealers[op.dealer],
          status: op.status,
          at: op.at,
          provider: pool(providers, op.provider),
          bundle: pool(bundles, op.bundle),
          method: pool(methods, op.method),
          amount: op.amount,
          names: op.names,
        }),
      );
      return;
    case 'rebuild':
      expect(await rebuildDayTotals(h.knex, op.offset, { force: true })).toBe(true);
      return;
    case 'dropParent': {
      // A parent with sales removed for good: ON DELETE SET NULL on the sales (a fresh one takes its place).
      const [list, table, make] = {
        provider: [providers, 'providers', () => newProvider('Golis')],
        bundle: [bundles, 'bundles', () => newBundle('Unlimited')],
        method: [methods, 'payment_methods', () => newMethod('eDahab')],
      }[op.which] as [number[], string, () => Promise<number>];
      const gone = list.pop()!;
      // The first provider holds the bundles' category: never that one.
      if (op.which === 'provider' && gone === providers[0]) {
        list.push(gone);
        return;
      }
      await h.knex(table).where({ id: gone }).delete();
      list.push(await make());
      return;
    }
  }
  if (!ids.length) return;
  if (op.op === 'status')
    await h
      .knex('recharges')
      .where({ id: pick(op.pick) })
      .update({ status: op.status, updated_at: toDbTime() });
  if (op.op === 'move')
    await h
      .knex('recharges')
      .where({ id: pick(op.pick) })
      .update({ created_at: op.at });
  if (op.op === 'edit') {
    const [pn, bn, cn] = op.names;
    await h
      .knex('recharges')
      .where({ id: pick(op.pick) })
      .update({
        amount: op.amount,
        cost: Math.floor(op.amount / 2),
        profit: op.amount - Math.floor(op.amount / 2),
        provider_name: PROVIDER_NAMES[pn],
        bundle_name: BUNDLE_NAMES[bn],
        category_name: CATEGORIES[cn],
        dealer_id: dealers[op.dealer],
      });
  }
  if (op.op === 'delete') {
    const id = pick(op.pick);
    await h.knex('recharges').where({ id }).delete();
    ids.splice(ids.indexOf(id), 1);
  }
  if (op.op === 'bulk') await h.knex('recharges').where({ dealer_id: dealers[op.dealer], status: op.from }).update({ status: op.to });
}

const adminCtx = (): ServiceContext => systemContext({ db: h.knex });
const withoutCost = (): ServiceContext => {
  const ctx = adminCtx();
  return { ...ctx, actor: { ...ctx.actor, permissions: new Set(ALL_PERMISSIONS.filter((p) => p !== 'view bundles prices')) as ReadonlySet<Permission> } };
};
const dealerCtx = (id: number): ServiceContext => ({
  ...adminCtx(),
  actor: { kind: 'user', id, user: null, userType: 'dealer', permissions: new Set(ALL_PERMISSIONS), isSuperAdmin: false },
});

/** Every report, read from the totals where they cover it, equals the live count. */
async function expectReportsEqual(timeZone: string) {
  const today = zonedDay(new Date(), timeZone);
  const state = await readDayTotalsState(h.knex);
  const ranges: [string, string][] = [
    ['2026-10-30', '2026-11-10'],
    ['2026-10-31', '2026-10-31'],
    [`${today.slice(0, 8)}01`, today],
  ];
  for (const [from, to] of ranges) expect(totalsCover(state, from, to, timeZone)).toBe(true);
  const same = async (ctx: ServiceContext, f: SalesFilters) =>
    expect(await salesReport(ctx, f, timeZone)).toEqual(await salesReport(ctx, f, timeZone, { live: true }));
  const [from, to] = ranges[0];
  for (const group_by of GROUPS) for (const s of [undefined, 'all', 'refunded', 'pending']) await same(adminCtx(), { from, to, group_by, status: s });
  for (const [a, b] of ranges.slice(1)) for (const group_by of ['day', 'bundle'] as const) await same(adminCtx(), { from: a, to: b, group_by, status: 'all' });
  const filters: Partial<SalesFilters>[] = [
    { dealer_id: String(dealers[1]) },
    { dealer_id: 'nonsense' },
    { provider_id: encodeId(providers[0]) },
    { provider_id: 'x' },
    { payment_method_id: String(methods.at(-1)) },
    { payment_method_id: '0' },
    { category: 'Weekly' },
  ];
  for (const extra of filters) await same(adminCtx(), { from, to, group_by: 'provider', status: 'all', ...extra });
  await same(withoutCost(), { from, to, group_by: 'week', status: 'all' });
  await same(dealerCtx(dealers[0]), { from, to, group_by: 'dealer', status: 'all', dealer_id: String(dealers[1]) });
  await same(dealerCtx(dealers[2]), { from, to, group_by: 'month' });
  for (const [ctx, dealer_id] of [
    [adminCtx(), undefined],
    [adminCtx(), String(dealers[0])],
    [dealerCtx(dealers[1]), undefined],
  ] as const) {
    expect(await dealerProfitReport(ctx, { from, to, dealer_id }, timeZone)).toEqual(
      await dealerProfitReport(ctx, { from, to, dealer_id }, timeZone, { live: true }),
    );
  }
  for (const ctx of [adminCtx(), dealerCtx(dealers[0]), withoutCost()])
    expect(await dashboard(ctx, timeZone)).toEqual(await dashboard(ctx, timeZone, { live: true }));
}

describe(`day totals on ${TEST_DATABASE}`, () => {
  it('equal the recharges after any sequence of sales, status changes, moves, edits, deletions and rebuilds; so do the reports', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 40, size: 'max' }), async (ops) => {
        // A clean start, even after a failed run (while fast-check shrinks it).
        await h.knex('recharges').delete();
        await h.knex(DAY_TOTALS).delete();
        await rebuildDayTotals(h.knex, 180, { force: true });
        const ids: number[] = [];
        for (const op of ops) await apply(op, ids);
        const state = await expectTotalsExact();
        await expectReportsEqual(ZONES[state.offset]);
        // Deleting every sale takes every total with it.
        await h.knex('recharges').delete();
        expect(await h.knex(DAY_TOTALS).count({ n: '*' }).first()).toMatchObject({ n: 0 });
      }),
      { numRuns: TEST_DATABASE === 'mysql' ? 12 : 25 },
    );
    await rebuildDayTotals(h.knex, 180);
  }, 300_000);

  it('move the sales of a removed operator, bundle or payment method to "none" (ON DELETE SET NULL)', async () => {
    await h.knex('recharges').delete();
    const at = toDbTime(new Date(Date.now() - 3_600_000));
    const provider = await newProvider('Golis');
    const bundle = await newBundle('Unlimited');
    const method = await newMethod('eDahab');
    for (const [i, s] of ['completed', 'completed', 'failed', 'pending'].entries()) {
      await insertRecharge({ dealer: dealers[0], status: s, at, provider, bundle, method, names: [2, 2, 0] });
      // The same sale already without them: the moved totals merge into its row.
      if (i === 0) await insertRecharge({ dealer: dealers[0], status: s, at, names: [2, 2, 0] });
    }
    for (const [table, id] of [
      ['bundles', bundle],
      ['providers', provider],
      ['payment_methods', method],
    ] as const) {
      await h.knex(table).where({ id }).delete();
      await expectTotalsExact();
    }
    expect(await h.knex(DAY_TOTALS).where({ dealer_id: dealers[0], status: 'completed' }).first('sales', 'bundle_id', 'provider_id')).toEqual({
      sales: 3,
      bundle_id: 0,
      provider_id: 0,
    });
    await expectReportsEqual('Africa/Mogadishu');
  });

  it('stay exact when many sales change at once (each in its own transaction), and while a rebuild runs', async () => {
    await h.knex('recharges').delete();
    const at = toDbTime(new Date(Date.now() - 3_600_000));
    // Forty sales of the same day, bundle and operator: the same few totals rows for everyone.
    const ids: number[] = [];
    for (let i = 0; i < 40; i++)
      ids.push(
        await insertRecharge({ dealer: dealers[i % 2], status: ['processing', 'completed', 'failed'][i % 3], at, provider: providers[0], bundle: bundles[0] }),
      );
    const settle = (id: number, i: number) =>
      unitOfWork(async (trx) => {
        const r = await trx('recharges').where({ id }).first();
        if (r.status === 'processing')
          await trx('recharges')
            .where({ id })
            .update({ status: i % 2 ? 'completed' : 'failed' });
        if (r.status === 'completed') await trx('recharges').where({ id }).update({ status: 'refunded' });
        if (r.status === 'failed' || (r.status === 'processing' && !(i % 2))) {
          // failRecharge's two steps: failed, then refunded with the money back, in one transaction.
          await trx('recharges').where({ id }).update({ status: 'failed' });
          await trx('recharges').where({ id }).update({ status: 'refunded' });
        }
      }, h.knex);
    await Promise.all(ids.map(settle));
    await expectTotalsExact();
    // New sales, more changes and moves in time while the totals are rebuilt at another offset.
    const rebuilt = rebuildDayTotals(h.knex, 330);
    await Promise.all([
      ...ids.map((id, i) =>
        unitOfWork(
          (trx) =>
            trx('recharges')
              .where({ id })
              .update({ status: STATUSES[i % STATUSES.length] }),
          h.knex,
        ),
      ),
      ...ids.slice(0, 10).map((id, i) =>
        unitOfWork(
          (trx) =>
            trx('recharges')
              .where({ id })
              .update({ created_at: toDbTime(new Date(Date.now() - i * 7_200_000)) }),
          h.knex,
        ),
      ),
      ...Array.from({ length: 10 }, (_, i) =>
        insertRecharge({ dealer: dealers[2], status: 'completed', at: toDbTime(new Date(Date.now() - i * 86_400_000)), bundle: bundles[0] }),
      ),
    ]);
    expect(await rebuilt).toBe(true);
    expect((await expectTotalsExact()).offset).toBe(330);
    await expectReportsEqual('Asia/Kolkata');
    await rebuildDayTotals(h.knex, 180);
    await expectTotalsExact();
  });

  it('follow the company time zone: live answers until rebuilt in the background, then the totals again', async () => {
    const before = await h
      .http()
      .get('/api/v1/reports/sales?from=2026-10-30&to=2026-11-10&group_by=day&status=all')
      .set(bearer(await h.adminToken()));
    await h.knex('settings').insert({ group: 'company', key: 'timezone', value: 'Asia/Kathmandu', is_encrypted: false, created_at: STAMP, updated_at: STAMP });
    try {
      const root = await h.adminToken();
      const ask = () => h.http().get('/api/v1/reports/sales?from=2026-10-30&to=2026-11-10&group_by=day&status=all').set(bearer(root));
      // The totals are at +03:00, so this first answer is counted live (and starts the rebuild).
      expect(totalsCover(await readDayTotalsState(h.knex), '2026-10-30', '2026-11-10', 'Asia/Kathmandu')).toBe(false);
      const first = await ask();
      expect(first.status).toBe(200);
      expect(first.body.data).toEqual(
        JSON.parse(
          JSON.stringify({
            ...(await salesReport(adminCtx(), { from: '2026-10-30', to: '2026-11-10', group_by: 'day', status: 'all' }, 'Asia/Kathmandu', { live: true })),
            from: '2026-10-30',
            to: '2026-11-10',
            group_by: 'day',
          }),
        ),
      );
      // Started by that request: still running, or already done.
      expect(await (dayTotalsRebuild() ?? true)).toBe(true);
      expect((await expectTotalsExact()).offset).toBe(345);
      expect((await ask()).body).toEqual(first.body);
      await expectReportsEqual('Asia/Kathmandu');
    } finally {
      await h.knex('settings').where({ group: 'company', key: 'timezone' }).delete();
      await rebuildDayTotals(h.knex, 180);
    }
    expect(
      (
        await h
          .http()
          .get('/api/v1/reports/sales?from=2026-10-30&to=2026-11-10&group_by=day&status=all')
          .set(bearer(await h.adminToken()))
      ).body,
    ).toEqual(before.body);
  });

  it('are read only where the offset holds: a zone with daylight saving counts live across its change', async () => {
    await h.knex('recharges').delete();
    for (const at of ['2026-01-10 22:59:59.999', '2026-01-10 23:00:00.000', '2026-03-28 23:30:00.000', '2026-03-29 22:30:00.000', '2026-07-01 21:59:00.000'])
      await insertRecharge({ dealer: dealers[0], status: 'completed', at, bundle: bundles[0] });
    expect(await rebuildDayTotals(h.knex, 60)).toBe(true);
    await expectTotalsExact();
    const state = await readDayTotalsState(h.knex);
    const zone = 'Europe/Berlin';
    expect(totalsCover(state, '2026-01-01', '2026-01-31', zone)).toBe(true);
    expect(totalsCover(state, '2026-03-20', '2026-04-05', zone)).toBe(false);
    expect(totalsCover(state, '2026-07-01', '2026-07-02', zone)).toBe(false);
    for (const [from, to] of [
      ['2026-01-01', '2026-01-31'],
      ['2026-03-20', '2026-04-05'],
      ['2026-07-01', '2026-07-02'],
      ['2025-12-01', '2026-12-31'],
    ])
      for (const group_by of ['day', 'week', 'month'] as const) {
        const f = { from, to, group_by, status: 'all' };
        expect(await salesReport(adminCtx(), f, zone)).toEqual(await salesReport(adminCtx(), f, zone, { live: true }));
      }
    await rebuildDayTotals(h.knex, 180);
  });

  it('are filled by the migration from the recharges already there (at the company zone), and rolled back with their triggers', async () => {
    await h.knex('recharges').delete();
    await h.knex.migrate.down({ name: MIGRATION });
    expect(await h.knex.schema.hasTable(DAY_TOTALS)).toBe(false);
    expect(await h.knex.schema.hasTable(DAY_TOTALS_STATE)).toBe(false);
    // No trigger left behind: sales are written without the totals.
    for (const [i, s] of STATUSES.entries())
      await insertRecharge({
        dealer: dealers[i % 3],
        status: s,
        at: toDbTime(new Date(Date.parse('2026-10-31T18:00:00Z') + i * 3_600_000)),
        bundle: bundles[0],
      });
    await h.knex('settings').insert({ group: 'company', key: 'timezone', value: 'Asia/Kolkata', is_encrypted: false, created_at: STAMP, updated_at: STAMP });
    try {
      await h.knex.migrate.up({ name: MIGRATION });
      expect((await expectTotalsExact()).offset).toBe(330);
      expect(await h.knex(DAY_TOTALS).count({ n: '*' }).first()).toMatchObject({ n: 3 });
    } finally {
      await h.knex('settings').where({ group: 'company', key: 'timezone' }).delete();
    }
    await rebuildDayTotals(h.knex, 180);
    await expectTotalsExact();
  });
});
