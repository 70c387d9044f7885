import { fromDbTime } from '../database/time.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../tests/api/harness.ts';
import { buy, makeShop, moneyKit, walletBalance } from '../recharges/recharge-fixtures.ts';
import { ledgerSum } from '../wallets/ledger.ts';
import type { Readiness } from './readiness.ts';

/**
 * /health/live and /health/ready on the real app and database, and the worker's part of a drain:
 * stop claiming, hand back what it still holds at the deadline, another worker takes it at once.
 */
let h: Harness;
let readiness: Readiness;

beforeAll(async () => {
  h = await createHarness();
  readiness = h.app.locals.readiness as Readiness;
});
afterAll(() => h.close());

// First: the other harnesses below take over the process's default connection (Model.knex) when made.
describe("the worker's drain", () => {
  it('claims nothing once stopped, and hands back at the deadline what it still holds: the next worker finishes it, charged once', async () => {
    const shop = await makeShop(h, await h.adminToken(), 'cost', { balance: '10.00' });
    // The payer takes 1.5 s on the PIN prompt: the sale is held through it.
    const kit = await moneyKit(h, { approvalMs: 1500, chargeTimeoutMs: 5000, paymentTimeoutMs: 10_000, reviewAfterMs: 30_000 });
    try {
      const sale = await buy(h, shop);
      kit.worker.start();
      await expect
        .poll(async () => (await h.knex('recharges').where({ id: sale.body.data.id }).first()).payment_state, { timeout: 5_000, interval: 20 })
        .toBe('sent');
      expect(kit.worker.holding).toBe(1);
      const released = await kit.worker.stop({ timeoutMs: 100 });
      expect(released).toBe(1);
      const row = await h.knex('recharges').where({ id: sale.body.data.id }).first();
      expect(row).toMatchObject({ status: 'pending', payment_state: 'sent', crashes: 0 });
      // Due again once a call still in the air has landed (the vendor calls' timeout, 400 ms here), not at once.
      const dueIn = new Date(fromDbTime(row.next_attempt_at)!).getTime() - Date.now();
      expect(dueIn).toBeGreaterThan(0);
      expect(dueIn).toBeLessThanOrEqual(400);
      // A sale bought after the stop is not claimed by the stopped worker.
      const later = await buy(h, shop);
      kit.worker.wake();
      await new Promise((r) => setTimeout(r, 100));
      expect((await h.knex('recharges').where({ id: later.body.data.id }).first()).status).toBe('pending');

      // Another worker takes both once due (no lease to wait for): asks about the prompt already out, never prompts again.
      await new Promise((r) => setTimeout(r, 450));
      await kit.newWorker().drain({ timeoutMs: 20_000 });
      for (const id of [sale.body.data.id, later.body.data.id]) {
        const done = await h.knex('recharges').where({ id }).first();
        expect(done).toMatchObject({ status: 'completed', payment_state: 'collected', delivery_state: 'delivered' });
        expect(kit.standIns.waafipay.byReference(done.reference)?.requests).toBe(1);
      }
      expect(await walletBalance(h, shop.walletId)).toBe(1000 - 2 * 40);
      expect(await ledgerSum(h.knex, shop.walletId)).toBe(1000 - 2 * 40);
    } finally {
      await kit.close();
    }
  });
});

describe('liveness and readiness', () => {
  it('live answers without the database; ready checks the schema', async () => {
    const live = await h.http().get('/api/v1/health/live');
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ success: true, data: { status: 'alive' } });
    const ready = await h.http().get('/api/v1/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ success: true, data: { status: 'ready', database: 'ok', draining: false, loops: {}, reasons: [] } });

    // The schema gone (the migrations table renamed away): not ready, still alive, /health says so as before.
    await h.knex.schema.renameTable('knex_migrations', 'knex_migrations_away');
    try {
      const down = await h.http().get('/api/v1/health/ready?lng=so');
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({
        success: false,
        code: 'health.not_ready',
        data: { status: 'not_ready', database: 'down', reasons: ['database down'] },
      });
      expect(down.body.message).toBe('Adeegku diyaar uma aha inuu qaabilo codsiyada. Fadlan mar kale isku day dhowr ilbiriqsi kadib.');
      expect((await h.http().get('/api/v1/health/live')).status).toBe(200);
      expect((await h.http().get('/api/v1/health')).status).toBe(503);
    } finally {
      await h.knex.schema.renameTable('knex_migrations_away', 'knex_migrations');
    }
    expect((await h.http().get('/api/v1/health/ready')).status).toBe(200);
  });

  it('needs the worker loop alive when the process runs one', async () => {
    const kit = await moneyKit(h);
    const stopWatching = readiness.watchLoop('recharge worker', { lastTickAt: () => kit.worker.lastTickAt, staleAfterMs: 400 });
    try {
      kit.worker.start();
      const alive = await h.http().get('/api/v1/health/ready');
      expect(alive.status).toBe(200);
      expect(alive.body.data.loops).toEqual({ 'recharge worker': 'ok' });
      // A worker whose loop no longer goes round (stopped here; stuck in production).
      await kit.worker.stop();
      await new Promise((r) => setTimeout(r, 600));
      const stalled = await h.http().get('/api/v1/health/ready');
      expect(stalled.status).toBe(503);
      expect(stalled.body.data).toMatchObject({
        status: 'not_ready',
        database: 'ok',
        loops: { 'recharge worker': 'stalled' },
        reasons: ['recharge worker stalled'],
      });
    } finally {
      stopWatching();
      await kit.close();
    }
  });

  it('are in the OpenAPI document beside /health, public and outside the rate limit', async () => {
    const doc = (await h.http().get('/api/v1/openapi.json')).body;
    for (const p of ['/health', '/health/live', '/health/ready']) expect(Object.keys(doc.paths)).toContain(p);
    expect(Object.keys(doc.paths['/health/ready'].get.responses)).toEqual(expect.arrayContaining(['200', '503']));
    expect(Object.keys(doc.paths['/health/ready'].get.responses)).not.toContain('429');
  });

  it('/metrics answers 404 when neither METRICS_TOKEN nor METRICS_PORT is set', async () => {
    expect(h.app.locals.metrics).toBeNull();
    expect((await h.http().get('/metrics').set('Authorization', 'Bearer anything-at-all-here')).status).toBe(404);
  });

  it('draining: ready answers 503 "draining" for good, live and /health still 200', async () => {
    // For good: this app stays draining for the rest of the file.
    readiness.startDraining();
    const ready = await h.http().get('/api/v1/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({
      success: false,
      code: 'health.not_ready',
      message: 'The service is not ready to take requests. Please try again in a few seconds.',
      data: { status: 'not_ready', database: 'ok', draining: true, reasons: ['draining'] },
    });
    expect((await h.http().get('/api/v1/health/live')).status).toBe(200);
    expect((await h.http().get('/api/v1/health')).status).toBe(200);
  });

  // Last: another harness takes over the process's default connection.
  it('is outside the per-address rate limit, as /health', async () => {
    const limited = await createHarness({ env: { API_RATE_LIMIT_PER_MINUTE: '5' } });
    try {
      for (let i = 0; i < 12; i++) {
        expect((await limited.http().get('/api/v1/health/live')).status).toBe(200);
        expect((await limited.http().get('/api/v1/health/ready')).status).toBe(200);
      }
      // Anything else meets the ceiling.
      const statuses = [];
      for (let i = 0; i < 8; i++) statuses.push((await limited.http().get('/api/v1/openapi.json')).status);
      expect(statuses).toContain(429);
    } finally {
      await limited.close();
    }
  });
});
