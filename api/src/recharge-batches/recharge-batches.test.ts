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

async function keyFor(s: Shop, scopes: string[]): Promise<string> {
  const made = await h
    .http()
    .post('/api/v1/dealer/api-keys')
    .set(bearer(s.token))
    .send({ name: `K${Math.random()}`, scopes });
  expect(made.status).toBe(201);
  return made.body.data.key;
}

const send = (body: unknown, idempotencyKey: string | null = newKey(), withKey = key) => {
  const req = h.http().post('/api/reseller/v1/recharge-batches').set('Authorization', `Bearer ${withKey}`);
  return (idempotencyKey ? req.set('Idempotency-Key', idempotencyKey) : req).send(body as object);
};
const get = (path: string, withKey = key) => h.http().get(`/api/reseller/v1${path}`).set('Authorization', `Bearer ${withKey}`);
const processor = (opts: { stopAfterLines?: number; leaseMs?: number } = {}) => new BatchProcessor({ db: h.knex, ...opts });

/** Every line of the batch, in order (pages of 200). */
async function allLines(ref: string, withKey = key) {
  const lines: {
    line_no: number;
    status: string;
    recharge: { id: number; reference: string; status: string } | null;
    error: { code: string; message: string } | null;
  }[] = [];
  for (let page = 1; ; page++) {
    const res = await get(`/recharge-batches/${ref}?per_page=200&page=${page}`, withKey);
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
        bad.set(n, 'bundle.not_offered');
        return { phone: `06150${String(n).padStart(5, '0')}`, bundle_id: 999_999 };
      }
      if (n % 83 === 0) {
        bad.set(n, 'phone.invalid');
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
    expect(lines[1]).toMatchObject({ ok: false, problems: [{ field: 'phone', code: 'phone_wrong_operator', level: 'error' }] });
    expect(lines[1].problems[0].message).toContain('Hormuud');
    expect(lines[2]).toMatchObject({ ok: false, problems: [{ field: 'bundle_id', code: 'bundle_not_offered' }] });
    expect(lines[3]).toMatchObject({ ok: false, problems: [{ field: 'phone', code: 'phone_somali_invalid' }] });
    // The same number and bundle as line 1 (written another way): a warning, still sold.
    expect(lines[4]).toMatchObject({ ok: true, problems: [{ field: 'line', code: 'batch_line_duplicate', level: 'warning' }] });
    // 1.00 pays two lines of 0.40: the third sellable line is beyond the balance.
    expect(lines[5]).toMatchObject({ ok: false, problems: [{ field: 'payment', code: 'batch_line_beyond_balance', level: 'error' }] });
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

describe('two batches racing for one wallet', () => {
  it('never go below zero: the lines beyond the balance are refused, wallet = ledger', async () => {
    const racing = await makeShop(h, root, 'cost', { balance: '2.00' });
    const raceKey = await keyFor(racing, ['recharges:write', 'recharges:read']);
    const batchOf = (from: number) => ({
      lines: Array.from({ length: 4 }, (_, i) => ({ phone: `06153${String(from + i).padStart(5, '0')}`, bundle_id: racing.bundleId })),
    });
    const [a, b] = await Promise.all([send(batchOf(0), newKey(), raceKey), send(batchOf(10), newKey(), raceKey)]);
    expect([a.status, b.status]).toEqual([202, 202]);
    // Two processors at once: each claims one batch, both spend from one wallet.
    await Promise.all([processor().runOnce(), processor().runOnce()]);
    const [da, db] = await Promise.all([get(`/recharge-batches/${a.body.data.id}`, raceKey), get(`/recharge-batches/${b.body.data.id}`, raceKey)]);
    expect(da.body.data.lines_accepted + db.body.data.lines_accepted).toBe(5);
    expect(da.body.data.lines_refused + db.body.data.lines_refused).toBe(3);
    const refused = [...(await allLines(a.body.data.id, raceKey)), ...(await allLines(b.body.data.id, raceKey))].filter((l) => l.status === 'refused');
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
