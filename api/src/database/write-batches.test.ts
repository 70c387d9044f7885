import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, TEST_DATABASE, type Harness } from '../../../tests/api/harness.ts';
import { AppError } from '../http/errors.ts';
import { unitOfWork } from './unit-of-work.ts';
import { WriteBatches } from './write-batches.ts';

/**
 * Group commit (write-batches.ts): writes that arrive together share a transaction on SQLite, each
 * in its own savepoint; one that fails leaves nothing and fails alone; on MySQL/MariaDB each is its
 * own transaction. Same outcomes on both engines.
 */
let h: Harness;
const batches = new WriteBatches();

beforeAll(async () => {
  h = await createHarness();
  await h.knex.schema.createTable('batch_probe', (t) => {
    t.increments('id');
    t.string('name', 40).notNullable().unique();
  });
});
afterAll(async () => {
  await h.close();
});

const names = async () => (await h.knex('batch_probe').orderBy('name').select('name')).map((r: { name: string }) => r.name);

describe('write batches', () => {
  it('commits every write sent at once; a refused one leaves nothing and fails alone, as does a repeated unique key', async () => {
    const transactions = new Set<string>();
    const listen = (q: { __knexTxId?: string }) => q.__knexTxId && transactions.add(q.__knexTxId);
    h.knex.on('query', listen);
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        batches.write(async (trx) => {
          await trx('batch_probe').insert({ name: `w${String(i).padStart(2, '0')}` });
          // Written, then refused: the savepoint takes the row back.
          if (i % 10 === 3) throw new AppError(422, 'api:errors.validation');
          if (i === 7) await trx('batch_probe').insert({ name: 'w00' });
          return i;
        }),
      ),
    );
    h.knex.off('query', listen);
    const refused = results.flatMap((r, i) => (r.status === 'rejected' ? [i] : []));
    // 0 and 7 both write w00: on SQLite the batch runs them in order (7 fails); on MySQL/MariaDB they
    // run side by side and either may be first. Exactly one of them fails.
    if (TEST_DATABASE === 'sqlite') expect(refused).toEqual([3, 7, 13, 23]);
    else expect([[3, 7, 13, 23].join(), [0, 3, 13, 23].join()]).toContain(refused.join());
    expect((results[3] as PromiseRejectedResult).reason).toBeInstanceOf(AppError);
    const written = Array.from({ length: 30 }, (_, i) => i)
      .filter((i) => !refused.includes(i))
      .map((i) => `w${String(i).padStart(2, '0')}`);
    // When 7 won, its second row is the w00 that 0 could not write.
    expect(await names()).toEqual(refused.includes(0) ? ['w00', ...written] : written);
    // SQLite: far fewer transactions than writes. MySQL/MariaDB: one each.
    if (TEST_DATABASE === 'sqlite') expect(transactions.size).toBeLessThan(10);
    else expect(transactions.size).toBe(30);
  });

  it('joins a unit of work already open instead of batching (its outcome decides)', async () => {
    await expect(
      unitOfWork(async () => {
        await batches.write(async (trx) => trx('batch_probe').insert({ name: 'inside' }));
        throw new Error('the outer work fails');
      }),
    ).rejects.toThrow('the outer work fails');
    expect(await names()).not.toContain('inside');
  });

  it('a sick database fails every write of the batch with a 503 on SQLite (nothing written), only its own on MySQL', async () => {
    const busy = Object.assign(new Error('database is locked'), { code: TEST_DATABASE === 'sqlite' ? 'SQLITE_BUSY' : 'ER_LOCK_DEADLOCK' });
    let calls = 0;
    const results = await Promise.allSettled([
      batches.write(async (trx) => trx('batch_probe').insert({ name: 'sick-1' })),
      batches.write(async () => {
        calls += 1;
        throw busy;
      }),
      batches.write(async (trx) => trx('batch_probe').insert({ name: 'sick-3' })),
    ]);
    expect(calls).toBeGreaterThan(1); // retried as the unit of work retries a busy database
    const statuses = results.map((r) => (r.status === 'rejected' ? (r.reason as AppError).status : 'ok'));
    if (TEST_DATABASE === 'sqlite') {
      expect(statuses).toEqual([503, 503, 503]);
      expect(await names()).not.toContain('sick-1');
      expect(await names()).not.toContain('sick-3');
    } else {
      // Each write is its own transaction there: only the sick one fails.
      expect(statuses).toEqual(['ok', 503, 'ok']);
      expect(await names()).toEqual(expect.arrayContaining(['sick-1', 'sick-3']));
    }
  });
});
