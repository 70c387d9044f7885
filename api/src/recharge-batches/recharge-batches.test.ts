import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, type Harness } from '../../../tests/api/harness.ts';
import { toDbTime } from '../database/time.ts';
import { ledgerSum } from '../wallets/ledger.ts';
import { makeShop, moneyKit, walletBalance, type MoneyKit, type Shop } from '../recharges/recharge-fixtures.ts';
import { BatchProcessor } from './recharge-batch-processor.ts';
import { onBatchCreated } from './recharge-batch.service.ts';

/**
 * Bulk sales on the real app, database, sale path and worker (the stand-ins over loopback): a
 * 1,000-line batch with bad lines mixed in, replays under one Idempotency-Key, the preview, two
 * batches racing for one wallet, processors run twice at once and restarted mid-batch, the
 * completion's webhook event, and who may read or send what.
 */
let h: Harness;
let root: string;
let kit: MoneyKit;
let shop: Shop;
let key: string;

const newKey = () => `batch-${Math.random().toString(36).slice(2)}-${Date.now()}`;

async function madeKey(s: Shop, scopes: string[]): Promise<{ key: string; id: string }> {
  const made = await h
    .http()
    .post('/api/v1/dealer/api-keys')
    .set(bearer(s.token))
    .send({ name: `K${Math.random()}`, scopes });
  expect(made.status).toBe(201);
  return { key: made.body.data.key, id: String(made.body.data.api_key.h_id) };
}
const keyFor = async (s: Shop, scopes: string[]) => (await madeKey(s, scopes)).key;

const send = (body: unknown, idempotencyKey: string | null = newKey(), withKey = key) => {
  const req = h.http().post('/api/reseller/v1/recharge-batches').set('Authorization', `Bearer ${withKey}`);
  return (idempotencyKey ? req.set('Idempotency-Key', idempotencyKey) : req).send(body as object);
};
const get = (path: string, withKey = key) => h.http().get(`/api/reseller/v1${path}`).set('Authorization', `Bearer ${withKey}`);
const processor = (opts: { stopAfterLines?: number; leaseMs?: number } = {}) => new BatchProcessor({ db: h.knex, ...opts });

/** Every line of the batch, in order (pages of 100, the most a list gives). */
async function allLines(ref: string, withKey = key) {
  const lines: {
    line_no: number;
    status: string;
    recharge: { id: number; reference: string; status: string } | null;
    error: { code: string; message: string } | null;
  }[] = [];
  for (let page = 1; ; page++) {
    const res = await get(`/recharge-batches/${ref}?per_page=100&page=${page}`, withKey);
    expect(res.status).toBe(200);
    lines.push(...res.body.data.lines);
    if (page >= res.body.data.lines_meta.last_page) return lines;
  }
}

const salesOfBatch = async (ref: string) => {
  const batch = await h.knex('recharge_batches').where({ reference: ref }).first();
  return h.knex('recharges').where('idempotency_key', 'like', `rb/${batch.id}/%`).select('id', 'idempotency_key', 'status');
};

beforeAll(async () => {
  h = await createHarness({ env: { API_KEY_RATE_LIMIT_PER_MINUTE: '5000' } });
  root = await h.adminToken();
  // Roomy call timeouts and a bounded worker: 1,000 sales at once must not time out against the loopback stand-ins.
  kit = await moneyKit(h, { callTimeoutMs: 5_000, reviewAfterMs: 120_000, worker: { concurrency: 100 } });
  shop = await makeShop(h, root, 'cost', { balance: '500.00' });
  key = await keyFor(shop, ['catalogue:read', 'recharges:write', 'recharges:read', 'wallet:read']);
});
afterAll(async () => {
  await kit.close();
  await h.close();
});

describe('a batch of 1,000 lines with bad lines mixed in', () => {
  it('sells every good line once, refuses every bad line with its reason, counts right, wallet = ledger, completion event written', async () => {
    // The dealer has a webhook endpoint: the completion is written to its outbox.
    const now = toDbTime();
    await h.knex('webhook_endpoints').insert({ dealer_id: shop.dealerId, url: 'https://example.com/hook', secret: 'sealed', created_at: now, updated_at: now });
    const bad = new Map<number, string>();
    const lines = Array.from({ length: 1000 }, (_, i) => {
      const n = i + 1;
      if (n % 97 === 0) {
        bad.set(n, 'phone.wrong_operator');
        return { phone: `0905${String(n).padStart(6, '0')}`, bundle_id: shop.bundleId };
      }
      if (n % 89 === 0) {
        bad.set(n, 'bundle.unavailable');
        return { phone: `06150${String(n).padStart(5, '0')}`, bundle_id: 999_999 };
      }
      if (n % 83 === 0) {
        bad.set(n, 'validation.phone_somali_invalid');
        return { phone: `61-abc-${n}`, bundle_id: shop.bundleId };
      }
      return { phone: `+252 61 5${String(n).padStart(6, '0')}`, bundle_id: shop.bundleId, client_reference: `line-${n}` };
    });
    const good = 1000 - bad.size;
    const before = await walletBalance(h, shop.walletId);
    const res = await send({ client_reference: 'payroll-nov', lines });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({
      status: 'queued',
      lines_total: 1000,
      lines_pending: 1000,
      lines_accepted: 0,
      client_reference: 'payroll-nov',
      progress: 0,
    });
    expect(res.body.data.id).toMatch(/^RB[A-Z0-9]{10}$/);
    const ref = res.body.data.id as string;

    const started = Date.now();
    expect(await processor().runOnce()).toBe(1000);
    const processedMs = Date.now() - started;

    const done = await get(`/recharge-batches/${ref}`);
    expect(done.body.data).toMatchObject({
      status: 'completed',
      lines_total: 1000,
      lines_pending: 0,
      lines_accepted: good,
      lines_refused: bad.size,
      progress: 100,
    });
    const all = await allLines(ref);
    expect(all.map((l) => l.line_no)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    for (const l of all) {
      if (bad.has(l.line_no)) {
        expect(l, `line ${l.line_no}`).toMatchObject({ status: 'refused', recharge: null, error: { code: bad.get(l.line_no) } });
        expect(l.error!.message).not.toMatch(/^validation:/);
      } else expect(l, `line ${l.line_no}`).toMatchObject({ status: 'accepted', error: null, recharge: { reference: expect.stringMatching(/^RC/) } });
    }
    // One sale per good line, none for a bad one; each carries its line's client_reference.
    const sales = await salesOfBatch(ref);
    expect(sales).toHaveLength(good);
    expect(new Set(all.filter((l) => l.recharge).map((l) => l.recharge!.id)).size).toBe(good);
    expect(await h.knex('recharges').where({ client_reference: 'line-1', dealer_id: shop.dealerId }).first('phone')).toEqual({ phone: '615000001' });
    expect(await walletBalance(h, shop.walletId)).toBe(before - good * 40);
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(await walletBalance(h, shop.walletId));

    // The completion's event, written with the batch's completion: the lines' sales as they were then.
    const events = await h.knex('webhook_events').where({ dealer_id: shop.dealerId, type: 'recharge_batch.completed' });
    expect(events).toHaveLength(1);
    const data = JSON.parse(events[0].body).data;
    expect(data).toMatchObject({ id: ref, client_reference: 'payroll-nov', status: 'completed', lines_total: 1000 });
    expect(data.lines_delivered + data.lines_failed + data.lines_pending).toBe(1000);
    expect(data.lines_failed).toBeGreaterThanOrEqual(bad.size);

    // The worker delivers them through the stand-ins.
    const delivering = Date.now();
    await kit.worker.drain({ timeoutMs: 120_000 });
    const deliveredMs = Date.now() - delivering;
    const after = await get(`/recharge-batches/${ref}`);
    expect(after.body.data.sales).toEqual({ delivered: good, failed: 0, in_progress: 0 });
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(await walletBalance(h, shop.walletId));
    // Measured on 2 shared cores: SQLite about 7 s to process and 9 s to deliver, MariaDB 12-25 s and 5 s.
    // The bound is loose so a busy machine does not fail it; a regression to per-line seconds would.
    expect(processedMs + deliveredMs).toBeLessThan(90_000);
  }, 180_000);
});

describe('idempotency', () => {
  it('the same key and body answer the same batch (Idempotent-Replayed), sell nothing more; another body is a 422; no key is a 400', async () => {
    const b = {
      lines: [
        { phone: '0615100001', bundle_id: shop.bundleId },
        { phone: '0615100002', bundle_id: shop.bundleId },
      ],
    };
    const k = newKey();
    const first = await send(b, k);
    expect(first.status).toBe(202);
    await processor().runOnce();
    const again = await send(b, k);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data).toMatchObject({ id: first.body.data.id, status: 'completed', lines_accepted: 2 });
    expect(await processor().runOnce()).toBe(0);
    expect(await salesOfBatch(first.body.data.id)).toHaveLength(2);
    expect(await h.knex('recharge_batches').where({ dealer_id: shop.dealerId, idempotency_key: `rs/${k}` })).toHaveLength(1);

    const other = await send({ lines: [...b.lines, { phone: '0615100003', bundle_id: shop.bundleId }] }, k);
    expect(other.status).toBe(422);
    expect(other.body.errors.idempotency_key).toBeTruthy();

    const none = await send(b, null);
    expect(none.status).toBe(400);
    expect(none.body.errors.idempotency_key).toBeTruthy();
    const malformed = await send(b, 'short');
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors.idempotency_key).toBeTruthy();
  });

  it('20 calls at once under one key make one batch', async () => {
    const b = { lines: [{ phone: '0615100011', bundle_id: shop.bundleId }] };
    const k = newKey();
    const answers = await Promise.all(Array.from({ length: 20 }, () => send(b, k)));
    expect(answers.every((a) => a.status === 202 || a.status === 200)).toBe(true);
    expect(new Set(answers.map((a) => a.body.data.id)).size).toBe(1);
    expect(answers.filter((a) => a.status === 202)).toHaveLength(1);
    await processor().runOnce();
  });

  it('refuses an empty batch and one over 1,000 lines with their messages, writing nothing', async () => {
    const count = Number((await h.knex('recharge_batches').count({ n: '*' }).first())!.n);
    const empty = await send({ lines: [] });
    expect(empty.status).toBe(422);
    expect(empty.body.errors.lines[0]).toMatch(/at least one line/);
    const many = await send({ lines: Array.from({ length: 1001 }, () => ({ phone: '0615100001', bundle_id: shop.bundleId })) });
    expect(many.status).toBe(422);
    expect(many.body.errors.lines[0]).toMatch(/1,000/);
    expect(Number((await h.knex('recharge_batches').count({ n: '*' }).first())!.n)).toBe(count);
  });
});

describe('the preview', () => {
  it('flags every bad line, warns of duplicates, marks the lines beyond the balance, and sells nothing', async () => {
    const small = await makeShop(h, root, 'cost', { balance: '1.00' });
    const smallKey = await keyFor(small, ['recharges:write', 'recharges:read']);
    const sales = Number((await h.knex('recharges').count({ n: '*' }).first())!.n);
    const res = await h
      .http()
      .post('/api/reseller/v1/recharge-batches/preview')
      .set('Authorization', `Bearer ${smallKey}`)
      .send({
        lines: [
          { phone: '0615200001', bundle_id: small.bundleId },
          { phone: '0905200001', bundle_id: small.bundleId },
          { phone: '0615200001', bundle_id: 999_999 },
          { phone: 'not a number', bundle_id: small.bundleId },
          { phone: '+252615200001', bundle_id: small.bundleId },
          { phone: '0615200003', bundle_id: small.bundleId },
        ],
      });
    expect(res.status).toBe(200);
    const lines = res.body.data.lines;
    expect(lines[0]).toMatchObject({ line_no: 1, ok: true, phone: '615200001', cost: '0.40', problems: [] });
    expect(lines[1]).toMatchObject({ ok: false, problems: [{ field: 'phone', code: 'phone.wrong_operator', level: 'error' }] });
    expect(lines[1].problems[0].message).toContain('Hormuud');
    expect(lines[2]).toMatchObject({ ok: false, problems: [{ field: 'bundle_id', code: 'bundle.unavailable' }] });
    expect(lines[3]).toMatchObject({ ok: false, problems: [{ field: 'phone', code: 'validation.phone_somali_invalid' }] });
    // The same number and bundle as line 1 (written another way): a warning, still sold.
    expect(lines[4]).toMatchObject({ ok: true, problems: [{ field: 'line', code: 'validation.batch_line_duplicate', level: 'warning' }] });
    // 1.00 pays two lines of 0.40: the third sellable line is beyond the balance.
    expect(lines[5]).toMatchObject({ ok: false, problems: [{ field: 'payment', code: 'validation.batch_line_beyond_balance', level: 'error' }] });
    expect(res.body.data.totals).toEqual({
      lines: 6,
      ok: 2,
      refused: 4,
      warnings: 1,
      total_cost: '0.80',
      balance: '1.00',
      beyond_balance: 1,
      currency: 'USD',
    });
    expect(Number((await h.knex('recharges').count({ n: '*' }).first())!.n)).toBe(sales);
    expect(await walletBalance(h, small.walletId)).toBe(100);
    // In another language.
    const so = await h
      .http()
      .post('/api/reseller/v1/recharge-batches/preview?lng=so')
      .set('Authorization', `Bearer ${smallKey}`)
      .send({ lines: [{ phone: '0905200001', bundle_id: small.bundleId }] });
    expect(so.body.data.lines[0].problems[0].message).not.toBe(lines[1].problems[0].message);
  });
});

describe('a batch racing single sales for one wallet', () => {
  it('never goes below zero: the lines beyond the balance are refused under the code a single sale answers, wallet = ledger', async () => {
    const racing = await makeShop(h, root, 'cost', { balance: '2.00' });
    const raceKey = await keyFor(racing, ['recharges:write', 'recharges:read']);
    const a = await send(
      { lines: Array.from({ length: 4 }, (_, i) => ({ phone: `06153${String(i).padStart(5, '0')}`, bundle_id: racing.bundleId })) },
      newKey(),
      raceKey,
    );
    expect(a.status).toBe(202);
    // The processor sells the batch while four single sales spend from the same wallet at once.
    const single = (i: number) =>
      h
        .http()
        .post('/api/reseller/v1/recharges')
        .set('Authorization', `Bearer ${raceKey}`)
        .set('Idempotency-Key', newKey())
        .send({ bundle_id: racing.bundleId, phone: `06153${String(10 + i).padStart(5, '0')}`, payment: 'wallet' });
    const [, ...singles] = await Promise.all([processor().runOnce(), ...[0, 1, 2, 3].map(single)]);
    const da = await get(`/recharge-batches/${a.body.data.id}`, raceKey);
    const soldSingly = singles.filter((r) => r.status === 201 || r.status === 202).length;
    expect(da.body.data.lines_accepted + soldSingly).toBe(5);
    expect(da.body.data.lines_refused + (4 - soldSingly)).toBe(3);
    // One code for one refusal: the batch's refused lines carry what the single sales answered.
    const refusedSingly = singles.filter((r) => r.status === 422);
    for (const r of refusedSingly) expect(r.body.code).toBe('wallet.insufficient_balance');
    const refused = (await allLines(a.body.data.id, raceKey)).filter((l) => l.status === 'refused');
    expect(refused.every((l) => l.error?.code === 'wallet.insufficient_balance')).toBe(true);
    expect(await walletBalance(h, racing.walletId)).toBe(0);
    expect(await ledgerSum(h.knex, racing.walletId)).toBe(0);
  });
});

describe('a processor restarted mid-batch, and two at once', () => {
  it('never sells a line twice: a lost acceptance is found again by the line’s key', async () => {
    const s = await makeShop(h, root, 'cost', { balance: '10.00' });
    const k = await keyFor(s, ['recharges:write', 'recharges:read']);
    const res = await send(
      { lines: Array.from({ length: 10 }, (_, i) => ({ phone: `06154000${String(i).padStart(2, '0')}`, bundle_id: s.bundleId })) },
      newKey(),
      k,
    );
    const ref = res.body.data.id as string;
    // The first processor dies after 4 lines, holding the batch.
    expect(await processor({ stopAfterLines: 4 }).runOnce()).toBe(4);
    const row = await h.knex('recharge_batches').where({ reference: ref }).first();
    expect(row).toMatchObject({ status: 'running', lines_accepted: 4 });
    // While its lease runs, another processor leaves the batch alone.
    expect(await processor().runOnce()).toBe(0);
    // It died between line 4's sale and its acceptance: the line is pending again, its sale made.
    const line4 = await h.knex('recharge_batch_lines').where({ batch_id: row.id, line_no: 4 }).first();
    await h.knex('recharge_batch_lines').where({ id: line4.id }).update({ status: 'pending', recharge_id: null });
    await h
      .knex('recharge_batches')
      .where({ id: row.id })
      .update({ lines_accepted: 3, lease_until: toDbTime(new Date(Date.now() - 1000)) });
    // Two processors resume it at once: one takes it, no line is sold twice.
    const handled = await Promise.all([processor().runOnce(), processor().runOnce()]);
    expect(handled.sort()).toEqual([0, 7]);
    const done = await get(`/recharge-batches/${ref}`, k);
    expect(done.body.data).toMatchObject({ status: 'completed', lines_accepted: 10, lines_refused: 0 });
    const sales = await salesOfBatch(ref);
    expect(sales).toHaveLength(10);
    expect((await h.knex('recharge_batch_lines').where({ id: line4.id }).first()).recharge_id).toBe(line4.recharge_id);
    expect(await walletBalance(h, s.walletId)).toBe(1000 - 10 * 40);
    expect(await ledgerSum(h.knex, s.walletId)).toBe(600);
  });

  it('two processors forced onto one batch (a lease taken over while the first still runs) sell each line once', async () => {
    const s = await makeShop(h, root, 'cost', { balance: '10.00' });
    const k = await keyFor(s, ['recharges:write', 'recharges:read']);
    const res = await send(
      { lines: Array.from({ length: 12 }, (_, i) => ({ phone: `06155000${String(i).padStart(2, '0')}`, bundle_id: s.bundleId })) },
      newKey(),
      k,
    );
    const ref = res.body.data.id as string;
    // A lease of 0 ms: each processor's claim runs out at once, so the other can take the batch over mid-run.
    const first = processor({ leaseMs: 0 });
    const second = processor({ leaseMs: 0 });
    await Promise.all([first.runOnce(), second.runOnce(), processor({ leaseMs: 0 }).runOnce()]);
    // Whoever ended up holding it completes it; each line has one sale.
    await processor().runOnce();
    const done = await get(`/recharge-batches/${ref}`, k);
    expect(done.body.data).toMatchObject({ status: 'completed', lines_accepted: 12, lines_refused: 0 });
    expect(await salesOfBatch(ref)).toHaveLength(12);
    expect(await walletBalance(h, s.walletId)).toBe(1000 - 12 * 40);
    expect(await ledgerSum(h.knex, s.walletId)).toBe(1000 - 12 * 40);
    await kit.worker.drain();
  });
});

describe('the background processor (as server.ts runs it)', () => {
  it('is woken by a new batch and completes it without waiting for its poll; stopped, it lets the batch go after the current line', async () => {
    const s = await makeShop(h, root, 'cost', { balance: '100.00' });
    const k = await keyFor(s, ['recharges:write', 'recharges:read']);
    const p = new BatchProcessor({ db: h.knex, pollMs: 60_000 });
    onBatchCreated(() => p.wake());
    p.start();
    try {
      const res = await send({ lines: [{ phone: '0615800001', bundle_id: s.bundleId }] }, newKey(), k);
      await expect
        .poll(async () => (await h.knex('recharge_batches').where({ reference: res.body.data.id }).first()).status, { timeout: 5_000 })
        .toBe('completed');
      // A long batch, stopped while it runs: what is left is pending, and the lease is let go.
      const long = await send(
        { lines: Array.from({ length: 200 }, (_, i) => ({ phone: `06158${String(i).padStart(5, '0')}`, bundle_id: s.bundleId })) },
        newKey(),
        k,
      );
      await expect
        .poll(async () => (await h.knex('recharge_batches').where({ reference: long.body.data.id }).first()).lines_accepted, { timeout: 5_000 })
        .toBeGreaterThan(0);
      await p.stop();
      const row = await h.knex('recharge_batches').where({ reference: long.body.data.id }).first();
      expect(row.status).toBe('running');
      expect(row.lines_accepted).toBeLessThan(200);
      expect(new Date(`${String(row.lease_until).replace(' ', 'T')}Z`).getTime()).toBeLessThanOrEqual(Date.now());
      // Another processor takes it up at once and finishes it.
      expect(await processor().runOnce()).toBe(200 - Number(row.lines_accepted) - Number(row.lines_refused));
      expect(await h.knex('recharge_batches').where({ reference: long.body.data.id }).first()).toMatchObject({ status: 'completed', lines_accepted: 200 });
    } finally {
      onBatchCreated(() => undefined);
      await p.stop();
    }
  });
});

describe('who reads and sends what', () => {
  it('a dealer never reads another dealer’s batch (404), on the API and the console; scopes are enforced', async () => {
    const other = await makeShop(h, root, 'cost', { balance: '1.00' });
    const otherKey = await keyFor(other, ['recharges:write', 'recharges:read']);
    const mine = await send({ lines: [{ phone: '0615600001', bundle_id: shop.bundleId }] });
    const ref = mine.body.data.id;
    expect((await get(`/recharge-batches/${ref}`, otherKey)).status).toBe(404);
    expect((await h.http().get(`/api/v1/recharge-batches/${ref}`).set(bearer(other.token))).status).toBe(404);
    expect((await get('/recharge-batches', otherKey)).body.data.map((b: { id: string }) => b.id)).not.toContain(ref);
    expect((await get('/recharge-batches')).body.data.map((b: { id: string }) => b.id)).toContain(ref);

    const readOnly = await keyFor(shop, ['recharges:read']);
    const refused = await send({ lines: [{ phone: '0615600001', bundle_id: shop.bundleId }] }, newKey(), readOnly);
    expect(refused.status).toBe(403);
    const writeOnly = await keyFor(shop, ['recharges:write']);
    expect((await get(`/recharge-batches/${ref}`, writeOnly)).status).toBe(403);
    await processor().runOnce();
  });

  it('the console: a dealer sends, previews and follows its own; staff with "view recharges" read all and send none', async () => {
    const console = (token: string) => ({
      post: (path: string, body: unknown, k: string | null = newKey()) => {
        const r = h.http().post(`/api/v1/recharge-batches${path}`).set(bearer(token));
        return (k ? r.set('Idempotency-Key', k) : r).send(body as object);
      },
      get: (path: string) => h.http().get(`/api/v1/recharge-batches${path}`).set(bearer(token)),
    });
    const dealer = console(shop.token);
    const body = { lines: [{ phone: '0615700001', bundle_id: shop.bundleId }] };
    expect((await dealer.post('/preview', body)).body.data.totals).toMatchObject({ lines: 1, ok: 1 });
    const sent = await dealer.post('', body);
    expect(sent.status).toBe(202);
    expect(sent.body.data.lines_url).toBe(`/api/v1/recharge-batches/${sent.body.data.id}`);
    await processor().runOnce();
    const read = await dealer.get(`/${sent.body.data.id}`);
    expect(read.body.data).toMatchObject({ status: 'completed', lines: [{ line_no: 1, status: 'accepted' }] });
    expect(read.body.data).not.toHaveProperty('dealer');

    const staff = await h.userWith(['view recharges']);
    const list = await console(staff.token).get(`?dealer_id=${shop.dealerId}&per_page=100`);
    expect(list.status).toBe(200);
    expect(list.body.data.map((b: { id: string }) => b.id)).toContain(sent.body.data.id);
    expect(list.body.data.every((b: { dealer: { id: number } }) => b.dealer.id === shop.dealerId)).toBe(true);
    expect((await console(staff.token).get(`/${sent.body.data.id}`)).body.data.dealer).toMatchObject({ id: shop.dealerId });
    const staffWallet = await h.userWith(['view recharges', 'view own wallet']);
    expect((await console(staffWallet.token).post('', body)).status).toBe(403);
    const nobody = await h.userWith(['view dashboard']);
    expect((await console(nobody.token).get('')).status).toBe(403);
  });
});

const revokeKey = (s: Shop, id: string) => h.http().delete(`/api/v1/dealer/api-keys/${id}`).set(bearer(s.token));

describe('a revoked key stops its batches', () => {
  it('refuses the remaining lines api_key.revoked and completes the batch; no sale after the revocation, wallet = ledger', async () => {
    await processor().runOnce(); // the batches other tests left queued
    const s = await makeShop(h, root, 'cost', { balance: '10.00' });
    const { key: k, id: keyId } = await madeKey(s, ['recharges:write', 'recharges:read']);
    const res = await send(
      { lines: Array.from({ length: 10 }, (_, i) => ({ phone: `06156100${String(i).padStart(2, '0')}`, bundle_id: s.bundleId })) },
      newKey(),
      k,
    );
    const ref = res.body.data.id as string;
    // The processor sells 3 lines, then the key leaks and the dealer revokes it.
    expect(await processor({ stopAfterLines: 3 }).runOnce()).toBe(3);
    expect((await revokeKey(s, keyId)).status).toBe(200);
    const revokedAt = Date.now();
    const batch = await h.knex('recharge_batches').where({ reference: ref }).first();
    await h
      .knex('recharge_batches')
      .where({ id: batch.id })
      .update({ lease_until: toDbTime(new Date(Date.now() - 1000)) });
    // Taken up again: every remaining line is refused at once, the batch completes.
    expect(await processor().runOnce()).toBe(7);
    const row = await h.knex('recharge_batches').where({ id: batch.id }).first();
    expect(row).toMatchObject({ status: 'completed', lines_accepted: 3, lines_refused: 7 });
    const lines = await h.knex('recharge_batch_lines').where({ batch_id: batch.id }).orderBy('line_no');
    expect(lines.map((l) => l.status)).toEqual([...Array(3).fill('accepted'), ...Array(7).fill('refused')]);
    expect(lines.slice(3).every((l) => l.error_code === 'api_key.revoked' && l.recharge_id === null)).toBe(true);
    const sales = await salesOfBatch(ref);
    expect(sales).toHaveLength(3);
    const created = await h
      .knex('recharges')
      .whereIn(
        'id',
        sales.map((x) => x.id),
      )
      .select('created_at');
    for (const c of created) expect(new Date(`${String(c.created_at).replace(' ', 'T')}Z`).getTime()).toBeLessThanOrEqual(revokedAt);
    expect(await walletBalance(h, s.walletId)).toBe(1000 - 3 * 40);
    expect(await ledgerSum(h.knex, s.walletId)).toBe(1000 - 3 * 40);
    // Only that key's batches stop: another key of the dealer still sells.
    const k2 = await keyFor(s, ['recharges:write', 'recharges:read']);
    const other = await send({ lines: [{ phone: '0615610099', bundle_id: s.bundleId }] }, newKey(), k2);
    await processor().runOnce();
    expect(await h.knex('recharge_batches').where({ reference: other.body.data.id }).first()).toMatchObject({ status: 'completed', lines_accepted: 1 });
  });
});

describe('cancelling a batch', () => {
  it('while two processors sell it: no line both sold and cancelled, counts right, wallet = ledger', async () => {
    const s = await makeShop(h, root, 'cost', { balance: '100.00' });
    const k = await keyFor(s, ['recharges:write', 'recharges:read']);
    const res = await send(
      { lines: Array.from({ length: 100 }, (_, i) => ({ phone: `06156200${String(i).padStart(2, '0')}`, bundle_id: s.bundleId })) },
      newKey(),
      k,
    );
    const ref = res.body.data.id as string;
    const batch = await h.knex('recharge_batches').where({ reference: ref }).first();
    // A lease of 0 ms: both processors work on the batch at once; the cancel lands mid-run.
    const runs = Promise.all([processor({ leaseMs: 0 }).runOnce(), processor({ leaseMs: 0 }).runOnce()]);
    await expect
      .poll(async () => Number((await h.knex('recharge_batches').where({ id: batch.id }).first()).lines_accepted), { timeout: 20_000, interval: 20 })
      .toBeGreaterThanOrEqual(3);
    const cancelled = await h.http().post(`/api/reseller/v1/recharge-batches/${ref}/cancel`).set('Authorization', `Bearer ${k}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data.lines_pending).toBeLessThanOrEqual(2);
    await runs;
    await processor().runOnce();
    const lines = await h.knex('recharge_batch_lines').where({ batch_id: batch.id }).orderBy('line_no');
    const sales = await salesOfBatch(ref);
    const soldLines = new Set(sales.map((x) => Number(String(x.idempotency_key).split('/')[2])));
    const accepted = lines.filter((l) => l.status === 'accepted');
    const refused = lines.filter((l) => l.status === 'refused');
    expect(accepted.length + refused.length).toBe(100);
    expect(refused.length).toBeGreaterThan(0);
    // A cancelled line has no sale; a sold line is accepted with its sale.
    for (const l of refused) {
      expect(l.error_code, `line ${l.line_no}`).toBe('recharge_batches.cancelled');
      expect(soldLines.has(Number(l.line_no)), `line ${l.line_no} cancelled and sold`).toBe(false);
    }
    expect(accepted.every((l) => soldLines.has(Number(l.line_no)) && l.recharge_id)).toBe(true);
    expect(sales).toHaveLength(accepted.length);
    const row = await h.knex('recharge_batches').where({ id: batch.id }).first();
    expect(row).toMatchObject({ status: 'completed', lines_accepted: accepted.length, lines_refused: refused.length });
    expect(await walletBalance(h, s.walletId)).toBe(10_000 - accepted.length * 40);
    expect(await ledgerSum(h.knex, s.walletId)).toBe(10_000 - accepted.length * 40);
    // The lines as the API shows them: the cancellation's code and a translated message.
    const shown = (await allLines(ref, k)).find((l) => l.status === 'refused')!;
    expect(shown.error).toMatchObject({ code: 'recharge_batches.cancelled' });
    expect(shown.error!.message).not.toMatch(/^api:/);
  }, 60_000);

  it('a queued batch completes at once with its event; another dealer’s is a 404; the console cancels its own; a read-only key may not', async () => {
    const s = await makeShop(h, root, 'cost', { balance: '10.00' });
    const k = await keyFor(s, ['recharges:write', 'recharges:read']);
    const now = toDbTime();
    await h.knex('webhook_endpoints').insert({ dealer_id: s.dealerId, url: 'https://example.com/hook', secret: 'sealed', created_at: now, updated_at: now });
    const res = await send({ lines: [{ phone: '0615630001', bundle_id: s.bundleId }] }, newKey(), k);
    const ref = res.body.data.id as string;
    const other = await makeShop(h, root, 'cost', { balance: '1.00' });
    const otherKey = await keyFor(other, ['recharges:write', 'recharges:read']);
    expect((await h.http().post(`/api/reseller/v1/recharge-batches/${ref}/cancel`).set('Authorization', `Bearer ${otherKey}`)).status).toBe(404);
    expect((await h.http().post(`/api/v1/recharge-batches/${ref}/cancel`).set(bearer(other.token))).status).toBe(404);
    const readOnly = await keyFor(s, ['recharges:read']);
    expect((await h.http().post(`/api/reseller/v1/recharge-batches/${ref}/cancel`).set('Authorization', `Bearer ${readOnly}`)).status).toBe(403);
    const staff = await h.userWith(['view recharges', 'view own wallet']);
    expect((await h.http().post(`/api/v1/recharge-batches/${ref}/cancel`).set(bearer(staff.token))).status).toBe(403);
    const done = await h.http().post(`/api/v1/recharge-batches/${ref}/cancel`).set(bearer(s.token));
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({ id: ref, status: 'completed', lines_pending: 0, lines_refused: 1, lines_accepted: 0 });
    const batch = await h.knex('recharge_batches').where({ reference: ref }).first();
    const events = await h.knex('webhook_events').where({ dealer_id: s.dealerId, type: 'recharge_batch.completed' });
    expect(events.map((e) => JSON.parse(e.body).data)).toEqual([expect.objectContaining({ id: ref, status: 'completed', lines_total: 1, lines_failed: 1 })]);
    // Again: nothing changes; the processor has nothing to sell.
    expect((await h.http().post(`/api/v1/recharge-batches/${ref}/cancel`).set(bearer(s.token))).body.data).toMatchObject({
      status: 'completed',
      lines_refused: 1,
    });
    await processor().runOnce();
    expect(await salesOfBatch(ref)).toHaveLength(0);
    expect(await h.knex('recharge_batches').where({ id: batch.id }).first()).toMatchObject({ lines_refused: 1, lines_accepted: 0 });
    expect(await walletBalance(h, s.walletId)).toBe(1000);
  });
});

describe('claims are fair between dealers', () => {
  it('one dealer’s many queued batches do not hold up another dealer’s batch', async () => {
    await processor().runOnce(); // the batches other tests left queued
    const a = await makeShop(h, root, 'cost', { balance: '100.00' });
    const b = await makeShop(h, root, 'cost', { balance: '100.00' });
    const ka = await keyFor(a, ['recharges:write', 'recharges:read']);
    const kb = await keyFor(b, ['recharges:write', 'recharges:read']);
    const many: string[] = [];
    for (let i = 0; i < 6; i++)
      many.push((await send({ lines: [{ phone: `061564${String(i).padStart(4, '0')}`, bundle_id: a.bundleId }] }, newKey(), ka)).body.data.id);
    const late = (await send({ lines: [{ phone: '0615650001', bundle_id: b.bundleId }] }, newKey(), kb)).body.data.id as string;
    // One line a run: the order in which batches are taken.
    const order: string[] = [];
    for (let i = 0; i < 7; i++) {
      const p = processor();
      const claimed = await p.claim();
      expect(claimed).toBeTruthy();
      order.push(claimed!.reference);
      await h.knex('recharge_batches').where({ id: claimed!.id }).update({ status: 'completed', lease_owner: null, lease_until: null });
    }
    // Dealer A's first batch, then dealer B's (waiting since after A's six), then A's others.
    expect(order[0]).toBe(many[0]);
    expect(order[1]).toBe(late);
    expect(order.slice(2)).toEqual(many.slice(1));
    // While A has a batch running, a second processor takes B's, not A's next.
    const a2 = (await send({ lines: [{ phone: '0615660001', bundle_id: a.bundleId }] }, newKey(), ka)).body.data.id as string;
    const a3 = (await send({ lines: [{ phone: '0615660002', bundle_id: a.bundleId }] }, newKey(), ka)).body.data.id as string;
    const b2 = (await send({ lines: [{ phone: '0615660003', bundle_id: b.bundleId }] }, newKey(), kb)).body.data.id as string;
    const first = await processor().claim();
    const second = await processor().claim();
    expect([first!.reference, second!.reference].sort()).toEqual([a2, b2].sort());
    expect(await processor().claim()).toBeNull();
    await h
      .knex('recharge_batches')
      .whereIn('reference', [a2, a3, b2])
      .update({ lease_until: toDbTime(new Date(Date.now() - 1000)) });
    await processor().runOnce();
    for (const ref of [a2, a3, b2]) expect(await h.knex('recharge_batches').where({ reference: ref }).first()).toMatchObject({ status: 'completed' });
  });
});

describe('paging and keys', () => {
  it('page and per_page are the shared list parameters: integers, in range, a wrong one a 422 naming it', async () => {
    const res = await send({ lines: [{ phone: '0615670001', bundle_id: shop.bundleId }] });
    const ref = res.body.data.id as string;
    for (const q of ['page=abc', 'page=0', 'per_page=1.5', 'per_page=101']) {
      const bad = await get(`/recharge-batches/${ref}?${q}`);
      expect(bad.status, q).toBe(422);
      expect(Object.keys(bad.body.errors), q).toEqual([q.split('=')[0]]);
    }
    expect((await get(`/recharge-batches/${ref}?sort=line_no`)).status).toBe(422);
    const ok = await get(`/recharge-batches/${ref}?page=1&per_page=100`);
    expect(ok.status).toBe(200);
    expect(ok.body.data.lines_meta).toMatchObject({ current_page: 1, per_page: 100, total: 1 });
    await processor().runOnce();
  });

  it('two Idempotency-Keys that differ only by case are two batches', async () => {
    const k = newKey();
    const body = { lines: [{ phone: '0615680001', bundle_id: shop.bundleId }] };
    const lower = await send(body, `${k}-abc`);
    const upper = await send(body, `${k}-ABC`);
    expect([lower.status, upper.status]).toEqual([202, 202]);
    expect(upper.body.data.id).not.toBe(lower.body.data.id);
    const replay = await send(body, `${k}-ABC`);
    expect(replay.status).toBe(200);
    expect(replay.body.data.id).toBe(upper.body.data.id);
    await processor().runOnce();
  });
});
