import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE } from './harness.ts';
import {
  assertMoneyRight,
  assertWalletsEqualLedgers,
  databaseEnv,
  demoShop,
  liveEnv,
  processDatabase,
  purchase,
  remoteBooks,
  runScript,
  startServer,
  startStandIns,
  stopServer,
  topUpDemo,
  waitUntilSettled,
  type ProcessDatabase,
  type StandIns,
} from './server-processes.ts';

/**
 * `npm run backup` and `npm run restore` as an operator runs them (docs/deploy.md, "Backups and
 * restore"): a backup taken while a server sells (purchases still arriving, sales waiting on
 * payers' PIN prompts and on deliveries), the server then lost (SIGKILL), the backup restored into
 * a fresh database, and a server started on it. The restored database has every wallet equal to its
 * ledger and sales in flight; its worker brings every one of them to an end, charged exactly when
 * delivered at the stand-in gateway and aggregator (which outlived the lost server, as real ones do).
 */
const APP_KEY = crypto.randomBytes(32).toString('hex');

describe(`backup and restore of a busy ${TEST_DATABASE === 'mysql' ? 'MariaDB' : 'SQLite'} database`, () => {
  let source: ProcessDatabase;
  let restored: ProcessDatabase;
  let standIns: StandIns;
  beforeAll(async () => {
    source = await processDatabase('backup-src');
    restored = await processDatabase('backup-dst');
    // PIN approval and delivery at a few seconds: the backup finds sales at every step.
    standIns = await startStandIns({ PAYMENT_SANDBOX_APPROVAL_MS: '1500-4000', OPERATOR_SANDBOX_LATENCY_MS: '800-2000' });
  });
  afterAll(async () => {
    standIns?.child.kill('SIGTERM');
    await source?.cleanup();
    await restored?.cleanup();
  });

  it('restores into a fresh database with every wallet equal to its ledger, and a worker there brings every sale in flight to an end', async () => {
    // The lease outlasts a sale's longest round (PIN prompt, delivery) on a loaded machine: a shorter one
    // counts working sales as crashed, and after five such a sale waits for a person.
    const serverEnv = { ...liveEnv(standIns), APP_KEY, RECHARGE_LEASE_MS: '15000' };
    const first = await startServer(source, serverEnv);
    // The demo's operators deliver through the configured aggregator (the out-of-process stand-in).
    await source.knex('providers').update({ adapter_key: 'reloadly' });
    await topUpDemo(first.url, source.knex, '300.00');
    const shop = await demoShop(first.url);
    let sent = 0;
    const buy = async () => {
      const i = sent++;
      const res = await purchase(first.url, shop, `backup-${i}-${crypto.randomBytes(4).toString('hex')}`, i % 5 === 0 ? '0615559999' : '0615123456');
      expect(res.status).toBe(201);
    };
    await Promise.all(Array.from({ length: 20 }, buy));
    // Purchases keep arriving while the backup runs: the database is being written throughout.
    let buying = true;
    const traffic = (async () => {
      while (buying) await Promise.all([buy(), buy(), new Promise((r) => setTimeout(r, 40))]);
    })();
    // Some sales settled, others with their payers or with the aggregator.
    for (let i = 0; i < 600; i++) {
      const settled = await source.knex('recharges').whereIn('status', ['completed', 'failed']).first('id');
      const waiting = await source.knex('recharges').where('payment_state', 'sent').first('id');
      if (settled && waiting) break;
      await new Promise((r) => setTimeout(r, 50));
    }

    const file = path.join(source.dataDir, `busy-${TEST_DATABASE}.backup`);
    const backup = await runScript('backup', ['--to', file], databaseEnv(source));
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    expect(backup.stdout).toContain(`to ${file}`);
    expect(fs.statSync(file).size).toBeGreaterThan(10_000);
    buying = false;
    await traffic;
    // The machine is lost with the sales it held.
    await stopServer(first, 'SIGKILL');

    const restore = await runScript('restore', ['--from', file], databaseEnv(restored));
    expect(restore.stderr).toBe('');
    expect(restore.code).toBe(0);
    const inFlight = Number(/(\d+) sales in flight/.exec(restore.stdout)?.[1]);
    // Read back independently of the command's own report.
    const open = await restored.knex('recharges').whereIn('status', ['pending', 'processing', 'needs_review']).count({ n: '*' }).first();
    expect(Number(open!.n)).toBe(inFlight);
    expect(inFlight).toBeGreaterThan(0);
    const wallets = await assertWalletsEqualLedgers(restored.knex);
    expect(restore.stdout).toContain(`${wallets} wallets, ${wallets} equal to their ledger`);
    const salesInBackup = Number((await restored.knex('recharges').count({ n: '*' }).first())!.n);
    expect(salesInBackup).toBeGreaterThanOrEqual(20);

    // A database that holds tables is never replaced without --force; a missing argument or file is named.
    const again = await runScript('restore', ['--from', file], databaseEnv(restored));
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already holds .* pass --force/);
    const missing = await runScript('restore', ['--from', `${file}.missing`], databaseEnv(restored));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('There is no backup file at');
    const noFrom = await runScript('restore', [], databaseEnv(restored));
    expect(noFrom.code).toBe(2);
    expect(noFrom.stderr).toContain('--from FILE is required');
    const overwrite = await runScript('backup', ['--to', file], databaseEnv(source));
    expect(overwrite.code).toBe(1);
    expect(overwrite.stderr).toContain('already exists');

    // A server on the restored database: its worker resumes what the backup held in flight.
    const second = await startServer(restored, serverEnv);
    await waitUntilSettled(restored.knex, 240_000);
    const recharges = await assertMoneyRight(restored.knex);
    expect(recharges).toHaveLength(salesInBackup);
    for (const r of recharges) {
      const books = await remoteBooks(standIns, r.reference);
      if (r.status === 'completed') {
        // Delivered once and charged.
        expect(books.topups, r.reference).toEqual(['SUCCESSFUL']);
        expect(books.payment, r.reference).toBe('Committed');
      } else {
        // Not delivered, nothing taken.
        expect(
          books.topups.filter((t) => t === 'SUCCESSFUL'),
          r.reference,
        ).toEqual([]);
        expect(books.payment, r.reference).not.toBe('Committed');
      }
    }
    expect(recharges.filter((r) => r.status === 'completed').length).toBeGreaterThan(0);
    await stopServer(second);
  }, 480_000);
});
