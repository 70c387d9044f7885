import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, TEST_DATABASE, type Harness } from '../../../tests/api/harness.ts';
import { currentTransaction, onCommit, onRollback, RETRY_LIMIT, unitOfWork } from './unit-of-work.ts';
import { Role } from '../roles/role.model.ts';
import { AppError } from '../http/errors.ts';

/**
 * Units of work: the open transaction reaches queries that forgot it, hooks follow the outcome,
 * lock conflicts are retried then answered 503, and an unavailable or busy database is a 503
 * with Retry-After and the envelope, never a 500.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe('unitOfWork', () => {
  it('runs a query that forgot the transaction on it (SQLite would otherwise wait for its only connection)', async () => {
    const started = Date.now();
    const count = await unitOfWork(async (trx) => {
      await trx('roles').insert({
        name: 'in-trx',
        guard_name: 'web',
        protected: false,
        created_at: '2026-01-01 00:00:00.000',
        updated_at: '2026-01-01 00:00:00.000',
      });
      expect(currentTransaction()).toBe(trx);
      // No transaction passed: it still sees the uncommitted row, so it ran on the transaction.
      return Role.query().where('name', 'in-trx').resultSize();
    });
    expect(count).toBe(1);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('runs onCommit hooks after a commit and onRollback hooks after a failure, never both', async () => {
    const seen: string[] = [];
    await unitOfWork(async () => {
      onCommit(() => void seen.push('commit-1'));
      onRollback(() => void seen.push('rollback-1'));
    });
    await expect(
      unitOfWork(async () => {
        onCommit(() => void seen.push('commit-2'));
        onRollback(() => void seen.push('rollback-2'));
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(seen).toEqual(['commit-1', 'rollback-2']);
  });

  it('joins the transaction already open instead of opening a second one', async () => {
    await unitOfWork(async (outer) => {
      await unitOfWork(async (inner) => expect(inner).toBe(outer));
    });
  });

  it('retries a deadlock victim with jitter, then answers 503 with Retry-After', async () => {
    const deadlock = () => Object.assign(new Error('Deadlock found when trying to get lock'), { code: 'ER_LOCK_DEADLOCK', errno: 1213 });
    let attempts = 0;
    const result = await unitOfWork(async () => {
      attempts += 1;
      if (attempts < 3) throw deadlock();
      return 'done';
    });
    expect(result).toBe('done');
    expect(attempts).toBe(3);

    attempts = 0;
    const err = await unitOfWork(async () => {
      attempts += 1;
      throw deadlock();
    }).catch((e: unknown) => e);
    expect(attempts).toBe(RETRY_LIMIT);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(503);
    expect((err as AppError).headers).toEqual({ 'Retry-After': '2' });
  });
});

describe.runIf(TEST_DATABASE === 'sqlite')('a busy SQLite (another process holds the write lock)', () => {
  it('answers 503 with Retry-After and the envelope, and never freezes the event loop for seconds', async () => {
    const token = await h.adminToken();
    const other = new Database(path.join(h.dataDir, 'app.sqlite'));
    other.pragma('busy_timeout = 0');
    other.exec('BEGIN IMMEDIATE');
    let worstGap = 0;
    let last = Date.now();
    const ticker = setInterval(() => {
      worstGap = Math.max(worstGap, Date.now() - last);
      last = Date.now();
    }, 20);
    try {
      const res = await h.http().post('/api/v1/roles').set(bearer(token)).send({ name: 'while-busy' });
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('2');
      expect(res.body).toEqual({ success: false, code: 'database.busy', message: 'The service is busy. Please try again in a moment.' });
    } finally {
      clearInterval(ticker);
      other.exec('ROLLBACK');
      other.close();
    }
    expect(worstGap).toBeLessThan(1_000);
    // Once the other writer is gone the same request succeeds.
    expect((await h.http().post('/api/v1/roles').set(bearer(token)).send({ name: 'after-busy' })).status).toBe(201);
  });
});

describe('an unreachable database', () => {
  it('is a 503 with Retry-After and the envelope', async () => {
    const { loadConfig } = await import('../config.ts');
    const { createApp } = await import('../app.ts');
    const knexFactory = (await import('knex')).default;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'down-'));
    const config = loadConfig({ DATA_DIR: dir, APP_KEY: crypto.randomBytes(32).toString('hex'), NODE_ENV: 'test' });
    // Port 9 (discard) on loopback refuses connections; the pool gives up quickly.
    const knex = knexFactory({
      client: 'mysql2',
      connection: { host: '127.0.0.1', port: 9, user: 'root', database: 'x' },
      pool: { min: 0, max: 1 },
      acquireConnectionTimeout: 2_000,
    });
    const { databaseTimeouts } = await import('../../../db/config.ts');
    const app = createApp({ config, db: { knex, client: 'mysql', timeouts: databaseTimeouts({}), maintenanceKnex: () => knex, sqliteFile: null } });
    const { setRootKnex } = await import('./unit-of-work.ts');
    const { Model } = await import('objection');
    Model.knex(knex);
    setRootKnex(knex);
    try {
      const res = await request(app).get('/api/v1/health');
      expect(res.status).toBe(503);
      const { signAccessToken } = await import('../auth/tokens.ts');
      const token = signAccessToken({ userId: 1, sessionId: 'x' }, 60);
      const scoped = await request(app).get('/api/v1/users').set(bearer(token));
      expect(scoped.status).toBe(503);
      expect(scoped.headers['retry-after']).toBe('5');
      expect(scoped.body).toEqual({
        success: false,
        code: 'database.unavailable',
        message: 'The service is temporarily unavailable. Please try again in a few seconds.',
      });
    } finally {
      // Back to the harness's connection for the rest of this file.
      Model.knex(h.knex);
      setRootKnex(h.knex);
      await knex.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
