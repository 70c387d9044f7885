import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../../tests/api/harness.ts';
import { toDbTime } from '../../database/time.ts';
import { buy, makeShop } from '../recharge-fixtures.ts';
import { StepWrites } from './step-writes.ts';

/**
 * The worker's grouped step records (step-writes.ts), on SQLite and MariaDB: many sales' steps in
 * one statement, each caller told whether its claim still held, and a lost claim among held ones
 * changing nothing of its sale while the others are written.
 */
let h: Harness;
let root: string;

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
});
afterAll(async () => {
  await h.close();
});

/** `n` sales claimed as a worker claims them (processing, with a claim time). */
async function claimed(n: number): Promise<{ id: number; status: string; processing_started_at: string }[]> {
  const shop = await makeShop(h, root, 'cost', { balance: '100' });
  const claims = [];
  for (let i = 0; i < n; i++) {
    const res = await buy(h, shop, {});
    expect(res.status).toBe(201);
    const id = Number(res.body.data.id);
    const at = toDbTime(new Date(Date.now() - i * 1000));
    await h.knex('recharges').where({ id }).update({ status: 'processing', processing_started_at: at });
    const row = await h.knex('recharges').where({ id }).first('processing_started_at');
    claims.push({ id, status: 'processing', processing_started_at: row.processing_started_at });
  }
  return claims;
}

describe('grouped step writes', () => {
  it('writes the steps of many sales together, each with its own columns and NULLs', async () => {
    const claims = await claimed(6);
    const writes = new StepWrites(h.knex);
    const counts = await Promise.all(
      claims.map((c, i) =>
        i % 2
          ? writes.update(c, { payment_state: 'sent', payment_adapter: 'waafipay', unsure_since: toDbTime() })
          : writes.update(c, { delivery_state: 'failed', failure_reason: `reason ${i}`, unsure_since: null, crashes: i }),
      ),
    );
    expect(counts).toEqual([1, 1, 1, 1, 1, 1]);
    const rows = await h
      .knex('recharges')
      .whereIn(
        'id',
        claims.map((c) => c.id),
      )
      .orderBy('id');
    rows.forEach((r, i) => {
      if (i % 2) {
        expect([r.payment_state, r.payment_adapter, r.delivery_state]).toEqual(['sent', 'waafipay', 'none']);
        expect(r.unsure_since).not.toBeNull();
      } else {
        expect([r.delivery_state, r.failure_reason, r.unsure_since, Number(r.crashes), r.payment_state]).toEqual(['failed', `reason ${i}`, null, i, 'none']);
      }
    });
  });

  it('tells a caller whose claim was taken over 0 and leaves its sale alone; the rest of the group is written', async () => {
    const claims = await claimed(5);
    // Another worker took the third sale over (a new claim time).
    await h
      .knex('recharges')
      .where({ id: claims[2].id })
      .update({ processing_started_at: toDbTime(new Date(Date.now() + 60_000)) });
    const writes = new StepWrites(h.knex);
    const counts = await Promise.all(claims.map((c) => writes.update(c, { delivery_state: 'sent', operator_adapter: 'reloadly' })));
    expect(counts).toEqual([1, 1, 0, 1, 1]);
    const rows = await h
      .knex('recharges')
      .whereIn(
        'id',
        claims.map((c) => c.id),
      )
      .orderBy('id');
    expect(rows.map((r) => r.delivery_state)).toEqual(['sent', 'sent', 'none', 'sent', 'sent']);
    expect(rows[2].operator_adapter ?? null).toBeNull();
  });

  it('one sale stepped twice in one group is written in order, both counted', async () => {
    const [claim] = await claimed(1);
    const writes = new StepWrites(h.knex);
    const counts = await Promise.all([
      writes.update(claim, { payment_state: 'sent' }),
      writes.update(claim, { payment_state: 'reserved', payment_reference: 'T-1' }),
    ]);
    expect(counts).toEqual([1, 1]);
    const r = await h.knex('recharges').where({ id: claim.id }).first();
    expect([r.payment_state, r.payment_reference]).toEqual(['reserved', 'T-1']);
  });
});
