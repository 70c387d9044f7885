import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createHarness, type Harness } from '../../../../tests/api/harness.ts';
import { ledgerSum } from '../../wallets/ledger.ts';
import { buy, makeShop, moneyKit, walletBalance, type MoneyKit, type Shop } from '../recharge-fixtures.ts';
import type { RechargeMoney } from '../recharge.routes.ts';
import { waafiPayAdapter } from '../../connectors/payments/waafipay/waafipay-adapter.ts';
import type { FetchLike } from '../../connectors/remote-call.ts';
import { databaseTrail } from '../remote-calls.ts';
import { WAAFIPAY_STAND_IN_CREDENTIALS } from '../../connectors/payments/waafipay/waafipay-stand-in.ts';

/**
 * Fulfilment at field scale (issue 24), on SQLite and MariaDB, through the real adapters and the
 * stand-ins over loopback HTTP: every payer prompted at once however many wait on their PIN; a
 * reconciliation that reaches every unsure sale however many older ones stay unsure; a gateway that
 * is down asked a bounded number of times a minute by every worker together; a sale settled by hand
 * while its payment was unsure followed up until its reserve is let go.
 */
let h: Harness;
let root: string;
const money: RechargeMoney = {};

beforeAll(async () => {
  h = await createHarness({ rechargeMoney: money });
  root = await h.adminToken();
});
afterAll(async () => {
  await h.close();
});

const row = async (id: number) => h.knex('recharges').where({ id }).first();
const lookups = async (ids: number[]) =>
  Number((await h.knex('remote_calls').whereIn('recharge_id', ids).where({ operation: 'HPP_GETTRANINFO' }).count({ n: '*' }).first())!.n);

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Sales bought one by one (so their ids and review times follow the order given). */
async function sales(shop: Shop, n: number, body: Parameters<typeof buy>[2] = {}): Promise<{ id: number; reference: string }[]> {
  const out = [];
  for (let i = 0; i < n; i++) {
    const res = await buy(h, shop, body);
    expect(res.status).toBe(201);
    out.push(await h.knex('recharges').where({ id: res.body.data.id }).first('id', 'reference'));
  }
  return out;
}

describe('payers at field PIN times', () => {
  it('120 sales waiting on their payers are all prompted before the first payer has approved (no slot per sale)', { timeout: 60_000 }, async () => {
    // Each payer takes 2-6 s to approve; the prompts must all go out well before.
    const kit = await moneyKit(h, { approvalMs: 4000, chargeTimeoutMs: 20_000 });
    const shop = await makeShop(h, root, 'cost', { balance: '100' });
    const made = await sales(shop, 120);
    const worker = kit.newWorker({ pollMs: 20, paymentTimeoutMs: 30_000, reviewAfterMs: 60_000 });
    const started = Date.now();
    worker.start();
    try {
      await waitFor(async () => made.every((s) => kit.standIns.waafipay.byReference(s.reference)), 10_000, 'every payer prompted');
      const prompted = made.map((s) => kit.standIns.waafipay.byReference(s.reference)!);
      const lastPrompt = Math.max(...prompted.map((t) => t.requestedAt));
      const firstAnswer = Math.min(...kit.standIns.waafipay.transactions().map((t) => t.answeredAt ?? Infinity));
      expect(lastPrompt).toBeLessThan(firstAnswer);
      expect(lastPrompt - started).toBeLessThan(2000);
      expect(worker.peakInFlight).toBeGreaterThanOrEqual(120);
      await waitFor(
        async () => (await h.knex('recharges').where({ dealer_id: shop.dealerId }).whereNot('status', 'completed').first('id')) === undefined,
        30_000,
        'every sale completed',
      );
    } finally {
      await worker.stop();
      await kit.close();
    }
    for (const s of made) expect(kit.standIns.waafipay.byReference(s.reference)).toMatchObject({ state: 'Committed', requests: 1 });
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(await walletBalance(h, shop.walletId));
  });
});

describe('the reconciliation cannot starve', () => {
  let kit: MoneyKit;
  beforeAll(async () => {
    // Dozens of sales ask the stand-ins at once, in this test's own process: answers get seconds, not 400 ms.
    kit = await moneyKit(h, { money, reviewAfterMs: 300, callTimeoutMs: 3000 });
  });
  afterAll(async () => {
    await kit.close();
  });

  /** Sales whose charge was approved but answered by a reset, and whose every status question fails: they end in review. */
  async function unsureInReview(shop: Shop, n: number) {
    const made = await sales(shop, n);
    for (const s of made) {
      kit.standIns.waafipay.injectFault({ serviceName: 'API_PREAUTHORIZE', referenceId: s.reference }, 'reset-after');
      kit.standIns.waafipay.injectFault({ serviceName: 'HPP_GETTRANINFO', referenceId: s.reference }, '503', 1_000_000);
    }
    await kit.newWorker({ downVendorLookupsPerMinute: 100_000 }).drain();
    for (const s of made) expect(await row(s.id)).toMatchObject({ status: 'needs_review', payment_state: 'sent' });
    return made;
  }

  it('more unsure sales than a round takes: newer ones whose answers were only lost are asked within the next rounds and resume', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '50' });
    const stuck = await unsureInReview(shop, 12);
    const fresh = await unsureInReview(shop, 3);
    // The gateway answers again, except about the 12 older sales.
    kit.standIns.waafipay.clearFaults();
    for (const s of stuck) kit.standIns.waafipay.injectFault({ serviceName: 'HPP_GETTRANINFO', referenceId: s.reference }, '503', 1_000_000);
    const worker = kit.newWorker({ reconcileBatch: 5, downVendorLookupsPerMinute: 100_000 });
    const before = await lookups(stuck.map((s) => s.id));
    // Five a round, oldest due first: the 12 stuck ones are asked once each and wait their turn again.
    for (let round = 0; round < 4; round++) await worker.reconcile();
    for (const s of fresh) expect((await row(s.id)).status).toBe('pending');
    expect(await lookups(stuck.map((s) => s.id))).toBe(before + stuck.length);
    for (const s of stuck) expect(await row(s.id)).toMatchObject({ status: 'needs_review', checks: 1, last_check_note: expect.stringContaining('503') });
    await worker.drain();
    for (const s of fresh) {
      expect(await row(s.id)).toMatchObject({ status: 'completed', payment_state: 'collected' });
      expect(kit.standIns.waafipay.byReference(s.reference)).toMatchObject({ state: 'Committed', requests: 1 });
    }
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(await walletBalance(h, shop.walletId));
  });

  it('a commit the gateway keeps refusing stays in review: the reconciliation does not send it back to be refused again', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '50' });
    // 0005: approved, then every commit and cancel answers 503.
    const [sale] = await sales(shop, 1, { payer_phone: '0617770005' });
    const worker = kit.newWorker({ checkMaxMs: 20, downVendorLookupsPerMinute: 100_000 });
    await worker.drain();
    expect(await row(sale.id)).toMatchObject({ status: 'needs_review', delivery_state: 'delivered', payment_state: 'committing' });
    for (let round = 0; round < 3; round++) {
      await new Promise((res) => setTimeout(res, 40));
      await worker.reconcile();
      expect(await row(sale.id)).toMatchObject({ status: 'needs_review', last_check_note: expect.stringContaining('approved') });
    }
    const log = (await h.knex('activity_log').where({ subject_type: 'recharge', subject_id: sale.id })).map((l: { action: string }) => l.action);
    expect(log.filter((a: string) => a === 'recharge_needs_review')).toHaveLength(1);
    expect(log).not.toContain('recharge_resumed');
  });

  it('a release the gateway keeps refusing stays in review: asked on its backoff, never resumed to be refused again', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '50' });
    // 0005: approved, then every commit and cancel answers 503; ...9999: the operator refuses the top-up.
    const [sale] = await sales(shop, 1, { payer_phone: '0617770005', phone: '0615559999' });
    const worker = kit.newWorker({ checkMaxMs: 20, downVendorLookupsPerMinute: 100_000 });
    await worker.drain();
    expect(await row(sale.id)).toMatchObject({ status: 'needs_review', delivery_state: 'failed', payment_state: 'releasing' });
    const cancels = async () =>
      Number(
        ((await h.knex('remote_calls').where({ recharge_id: sale.id }).where('operation', 'like', '%CANCEL%').count({ n: '*' }).first()) as { n: number }).n,
      );
    const before = await cancels();
    for (let round = 0; round < 3; round++) {
      await new Promise((res) => setTimeout(res, 40));
      await worker.reconcile();
      await worker.drain();
      expect(await row(sale.id)).toMatchObject({ status: 'needs_review', last_check_note: expect.stringContaining('approved') });
    }
    // Asked (lookups), never sent again to be refused: the cancel calls are the worker's own.
    expect(await cancels()).toBe(before);
    const log = (await h.knex('activity_log').where({ subject_type: 'recharge', subject_id: sale.id })).map((l: { action: string }) => l.action);
    expect(log.filter((a: string) => a === 'recharge_needs_review')).toHaveLength(1);
    expect(log).not.toContain('recharge_resumed');
  });

  it('a release the gateway refuses outright stays in review: its lookups never send it back to be refused again', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '50' });
    // 0006: approved, then every commit, cancel and refund refused (E10320) while the lookup says Approved; ...9999: the operator refuses the top-up.
    const [sale] = await sales(shop, 1, { payer_phone: '0617770006', phone: '0615559999' });
    const worker = kit.newWorker({ checkMaxMs: 20, downVendorLookupsPerMinute: 100_000 });
    await worker.drain();
    await waitFor(async () => (await row(sale.id)).status === 'needs_review', 10_000, 'the sale in review');
    expect(await row(sale.id)).toMatchObject({ status: 'needs_review', delivery_state: 'failed', payment_state: 'releasing' });
    const calls = async () => Number(((await h.knex('remote_calls').where({ recharge_id: sale.id }).count({ n: '*' }).first()) as { n: number }).n);
    const settles = async () =>
      Number(
        ((await h.knex('remote_calls').where({ recharge_id: sale.id }).whereNot('operation', 'HPP_GETTRANINFO').count({ n: '*' }).first()) as { n: number }).n,
      );
    const [callsBefore, settlesBefore] = [await calls(), await settles()];
    // Two seconds of short timers: the reconciliation asks on its backoff and nothing more.
    const until = Date.now() + 2000;
    while (Date.now() < until) {
      await worker.reconcile();
      await worker.drain();
      await new Promise((res) => setTimeout(res, 40));
    }
    // The refusal stays the sale's note (the review queue shows it), whatever the lookups say.
    expect(await row(sale.id)).toMatchObject({
      status: 'needs_review',
      payment_state: 'releasing',
      last_check_note: expect.stringMatching(/^The gateway refused to let the reserve go \(E10320/),
    });
    expect(await settles()).toBe(settlesBefore);
    // A handful of lookups (5 s doubling backoff from 20 ms capped at 20 ms here), never a loop of settlements.
    expect((await calls()) - callsBefore).toBeLessThan(200);
    const log = (await h.knex('activity_log').where({ subject_type: 'recharge', subject_id: sale.id })).map((l: { action: string }) => l.action);
    expect(log.filter((a: string) => a === 'recharge_needs_review')).toHaveLength(1);
    expect(log).not.toContain('recharge_resumed');
    // Why it waits, as a code and in the reader's language; the system's sentence with the gateway's code kept beside it.
    expect(await row(sale.id)).toMatchObject({ review_code: 'return_refused' });
    const inArabic = await h.http().get(`/api/v1/recharges/${sale.id}?lng=ae`).set(bearer(root));
    expect(inArabic.body.data.recharge ?? inArabic.body.data).toMatchObject({
      review_code: 'return_refused',
      review_summary: 'رفضت بوابة الدفع إعادة المبلغ. قرّر ما حدث؛ قد يلزم رده يدويًا.',
      review_reason: expect.stringContaining('E10320'),
    });
    const inSomali = await h.http().get(`/api/v1/recharges?status=needs_review&lng=so`).set(bearer(root));
    expect(inSomali.body.data.find((r: { id: number }) => r.id === sale.id)?.review_summary).toMatch(/^Adeegga lacag bixintu wuu diiday celinta lacagta/);
    // A person settles it as not delivered: the refused cancel is not sent again, the payment only looked up.
    // Nothing was taken (a reserve): the sale is Failed, never Refunded, while the reserve stands.
    const settled = await h.http().post(`/api/v1/recharges/${sale.id}/settle`).set(bearer(root)).send({ outcome: 'not_delivered', note: 'Nothing arrived.' });
    expect(settled.status).toBe(200);
    const after = Date.now() + 1500;
    while (Date.now() < after) {
      await worker.drain();
      await worker.reconcile();
      await new Promise((res) => setTimeout(res, 40));
    }
    expect(await row(sale.id)).toMatchObject({
      status: 'failed',
      payment_state: 'releasing',
      last_check_note: expect.stringMatching(/^The gateway refused to let the reserve go/),
    });
    expect(await settles()).toBe(settlesBefore);
    expect(kit.standIns.waafipay.byReference(sale.reference)?.state).toBe('Approved');
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(await walletBalance(h, shop.walletId));
  });

  it('a purchase the gateway will not reverse is to be paid back by hand, and Refunded only once it is', async () => {
    const purchases = await moneyKit(h, { money, flow: 'purchase', reviewAfterMs: 300, callTimeoutMs: 3000 });
    try {
      const shop = await makeShop(h, root, 'cost', { balance: '50' });
      const [sale] = await sales(shop, 1, { payer_phone: '0617770006', phone: '0615559999' });
      const worker = purchases.newWorker({ checkMaxMs: 20, downVendorLookupsPerMinute: 100_000 });
      await worker.drain();
      await waitFor(async () => (await row(sale.id)).status === 'needs_review', 10_000, 'the sale in review');
      const settled = await h.http().post(`/api/v1/recharges/${sale.id}/settle`).set(bearer(root)).send({ outcome: 'not_delivered', note: 'Nothing arrived.' });
      expect(settled.status).toBe(200);
      await waitFor(
        async () => {
          await worker.drain();
          await worker.reconcile();
          return (await row(sale.id)).payment_state === 'refund_due';
        },
        10_000,
        'the payment to be paid back by hand',
      );
      // Taken and not yet given back: Failed, not Refunded. The refused reversal was sent once, by the worker, never again.
      expect(await row(sale.id)).toMatchObject({ status: 'failed', payment_state: 'refund_due' });
      const reversals = await h.knex('remote_calls').where({ recharge_id: sale.id, operation: 'API_CANCELPURCHASE' });
      expect(reversals).toHaveLength(1);
      const paid = await h.http().post(`/api/v1/recharges/${sale.id}/paid-back`).set(bearer(root)).send({ note: 'Sent back by EVC Plus', reference: 'EVC-1' });
      expect(paid.status).toBe(200);
      expect(paid.body.data).toMatchObject({ status: 'refunded', payment_state: 'paid_back' });
      const log = (await h.knex('activity_log').where({ subject_type: 'recharge', subject_id: sale.id })).map((l: { action: string }) => l.action);
      expect(log).toEqual(expect.arrayContaining(['recharge_failed', 'recharge_paid_back_by_hand', 'recharge_refunded']));
      expect(await ledgerSum(h.knex, shop.walletId)).toBe(await walletBalance(h, shop.walletId));
    } finally {
      await purchases.close();
    }
  });

  it('two workers reconciling at the same moment ask about each due sale once (its lease)', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '50' });
    const made = await unsureInReview(shop, 20);
    const ids = made.map((s) => s.id);
    const [a, b] = [kit.newWorker({ downVendorLookupsPerMinute: 100_000 }), kit.newWorker({ downVendorLookupsPerMinute: 100_000 })];
    const before = await lookups(ids);
    const asked = await Promise.all([a.reconcile(), b.reconcile(), a.reconcile(), b.reconcile()]);
    // (Sales of the tests before may be due too.)
    expect(asked.reduce((x, y) => x + y, 0)).toBeGreaterThanOrEqual(20);
    expect(await lookups(ids)).toBe(before + 20);
    for (const id of ids) expect(await row(id)).toMatchObject({ status: 'needs_review', checks: 1, check_leased_until: null });
  });

  it('a sale settled by hand while its payment is unsure keeps being asked until the reserve is let go', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '50' });
    const [sale] = await unsureInReview(shop, 1);
    const settled = await h
      .http()
      .post(`/api/v1/recharges/${sale.id}/settle`)
      .set(bearer(root))
      .send({ outcome: 'not_delivered', note: 'The customer says nothing arrived.' });
    expect(settled.status).toBe(200);
    const worker = kit.newWorker({ checkMaxMs: 30, downVendorLookupsPerMinute: 100_000 });
    await worker.drain();
    // The dealer has its money back; the customer's reserve is still held at the gateway: Failed, not Refunded.
    expect(await row(sale.id)).toMatchObject({ status: 'failed', payment_state: 'sent' });
    expect((await row(sale.id)).next_check_at).not.toBeNull();
    expect(kit.standIns.waafipay.byReference(sale.reference)?.state).toBe('Approved');
    // The gateway is still unreachable: asked, and asked again at its next time.
    const asked = await lookups([sale.id]);
    await worker.reconcile();
    await new Promise((r) => setTimeout(r, 60));
    await worker.reconcile();
    expect(await lookups([sale.id])).toBe(asked + 2);
    expect(kit.standIns.waafipay.byReference(sale.reference)?.state).toBe('Approved');
    // It answers: the reserve is let go, and the questions stop.
    kit.standIns.waafipay.clearFaults();
    await new Promise((r) => setTimeout(r, 60));
    await worker.reconcile();
    expect(kit.standIns.waafipay.byReference(sale.reference)?.state).toBe('Cancelled');
    // A reserve let go took nothing: still Failed (nothing to refund).
    expect(await row(sale.id)).toMatchObject({ status: 'failed', payment_state: 'released', next_check_at: null });
    const settledLookups = await lookups([sale.id]);
    await new Promise((r) => setTimeout(r, 60));
    await worker.reconcile();
    expect(await lookups([sale.id])).toBe(settledLookups);
    const log = (await h.knex('activity_log').where({ subject_type: 'recharge', subject_id: sale.id }).orderBy('id')).map((l: { action: string }) => l.action);
    expect(log).toEqual(['recharge_created', 'recharge_needs_review', 'recharge_settled_in_review', 'recharge_failed', 'recharge_payment_reconciled']);
  });

  it('a gateway that is down gets a bounded number of lookups a minute from every worker together', async () => {
    const shop = await makeShop(h, root, 'cost', { balance: '50' });
    const made = await unsureInReview(shop, 30);
    const ids = made.map((s) => s.id);
    // The gateway stops answering anything.
    kit.standIns.waafipay.injectFault({ serviceName: 'HPP_GETTRANINFO' }, '503', 1_000_000);
    const budget = 8;
    const workers = [0, 1, 2].map(() => kit.newWorker({ checkMaxMs: 20, downVendorLookupsPerMinute: budget }));
    // The first round of each worker asks before any answer can tell it the gateway is down.
    await Promise.all(workers.map((w) => w.reconcile()));
    // A new minute starts (the budget of the one before went to the drain above).
    await h.knex('vendor_health').update({ window_started_at: null, window_lookups: 0 });
    const before = await lookups(ids);
    // Rounds for 1.5 s, longer on a loaded machine until one lookup went (at most 15 s: well within
    // the minute the budget is for).
    const started = Date.now();
    while (Date.now() - started < 1500 || ((await lookups(ids)) === before && Date.now() - started < 15_000)) {
      await Promise.all(workers.map((w) => w.reconcile()));
      await new Promise((r) => setTimeout(r, 25));
    }
    const sent = (await lookups(ids)) - before;
    // Down, it is asked within the minute's budget, by the three workers together.
    expect(sent).toBeLessThanOrEqual(budget);
    expect(sent).toBeGreaterThan(0);
    // Every sale still has its next check, and stays in review with the gateway's words.
    for (const id of ids) expect(await row(id)).toMatchObject({ status: 'needs_review', next_check_at: expect.anything() });
    // The gateway is back. A minute later (moved back here) the budget lets a lookup through, its
    // answer lifts the budget, and every sale is told.
    kit.standIns.waafipay.clearFaults();
    await h.knex('vendor_health').update({ window_started_at: '2000-01-01 00:00:00.000' });
    await h.knex('recharges').whereIn('id', ids).update({ next_check_at: '2000-01-01 00:00:00.000' });
    // Rounds until every sale is told (each round is cut at checkMaxMs, so a loaded machine needs more
    // of them); within seconds, which the minute's budget alone (8 lookups for 30 sales) could not do.
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && (await h.knex('recharges').whereIn('id', ids).where('status', 'needs_review').first('id'))) {
      await workers[0].reconcile();
      await h.knex('recharges').whereIn('id', ids).where('status', 'needs_review').update({ next_check_at: '2000-01-01 00:00:00.000' });
    }
    expect(await h.knex('recharges').whereIn('id', ids).where('status', 'needs_review').first('id')).toBeUndefined();
    await workers[0].drain();
    for (const id of ids) expect((await row(id)).status).toBe('completed');
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(await walletBalance(h, shop.walletId));
  });
});

describe('an answer nobody classified', () => {
  it('never completes or fails a sale: asked again with backoff, then it waits for a person with the raw answer, and resumes once the gateway answers plainly', async () => {
    const kit = await moneyKit(h, { reviewAfterMs: 600 });
    const shop = await makeShop(h, root, 'cost', { balance: '20' });
    // Every status question gets an answer that is in no table (codes and words nobody listed).
    let strange = true;
    const gateway: FetchLike = async (url, init) => {
      const request = JSON.parse(String(init?.body ?? '{}')) as { serviceName?: string };
      if (strange && request.serviceName === 'HPP_GETTRANINFO')
        return Response.json({
          schemaVersion: '1.0',
          timestamp: new Date().toISOString(),
          responseId: 'R1',
          responseCode: '5399',
          errorCode: 'E99999',
          responseMsg: 'RCS_SOMETHING_NEW',
          params: { description: 'Something new happened' },
        });
      return fetch(url, init);
    };
    const payment = waafiPayAdapter(
      { url: kit.standIns.waafipayUrl, ...WAAFIPAY_STAND_IN_CREDENTIALS, flow: 'preauthorize', chargeTimeoutMs: 1500, timeoutMs: 400 },
      { trail: databaseTrail(h.knex), fetch: gateway },
    );
    const worker = kit.newWorker({ payment, checkMaxMs: 30 });
    try {
      const [sale] = await sales(shop, 1);
      // The charge is approved, its answer lost: only a status question can tell.
      kit.standIns.waafipay.injectFault({ serviceName: 'API_PREAUTHORIZE', referenceId: sale.reference }, 'reset-after');
      await worker.drain();
      const r = await row(sale.id);
      expect(r).toMatchObject({ status: 'needs_review', payment_state: 'sent', delivery_state: 'none' });
      expect(r.review_reason).toContain('Unclassified answer 5399/E99999 RCS_SOMETHING_NEW: Something new happened');
      // Asked again and again within the review window, never completed, failed or refunded.
      expect(await lookups([sale.id])).toBeGreaterThan(2);
      expect(kit.standIns.waafipay.byReference(sale.reference)?.state).toBe('Approved');
      expect(kit.standIns.reloadly.transactions().filter((t) => t.customIdentifier === sale.reference)).toEqual([]);
      expect((await h.knex('wallet_transactions').where({ recharge_id: sale.id })).map((t: { kind: string }) => t.kind)).toEqual(['recharge_debit']);
      // The review queue shows the raw answer.
      const queue = await h.http().get('/api/v1/recharges').query({ status: 'needs_review' }).set(bearer(root));
      expect(queue.body.data.find((x: { id: number }) => x.id === sale.id)?.review_reason).toContain('RCS_SOMETHING_NEW');
      // The reconciliation keeps asking and keeps the words; it does not decide on them.
      await worker.reconcile();
      expect(await row(sale.id)).toMatchObject({ status: 'needs_review', last_check_note: expect.stringContaining('RCS_SOMETHING_NEW') });
      // The gateway answers plainly again: the sale resumes and completes, charged once.
      strange = false;
      await new Promise((res) => setTimeout(res, 60));
      await worker.reconcile();
      expect((await row(sale.id)).status).toBe('pending');
      await worker.drain();
      expect(await row(sale.id)).toMatchObject({ status: 'completed', payment_state: 'collected' });
      expect(kit.standIns.waafipay.byReference(sale.reference)).toMatchObject({ state: 'Committed', requests: 1 });
    } finally {
      await kit.close();
    }
  });
});
