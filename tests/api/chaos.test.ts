import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE } from './harness.ts';
import {
  assertMoneyRight,
  demoShop,
  liveEnv,
  processDatabase,
  purchase,
  startServer,
  startStandIns,
  stopServer,
  topUpDemo,
  waitUntilSettled,
  type ProcessDatabase,
  type ServerProcess,
  type StandIns,
} from './server-processes.ts';

/**
 * The chaos test (issue 30): three server processes with their workers on one MariaDB database,
 * purchases spread over them at a steady rate, a quarter of them sent twice under the same key to
 * another process, a client retrying on the next process when its answer is lost; the stand-in
 * gateway and aggregator losing 5% of their answers and refusing 2% unprocessed. One process is
 * killed (SIGKILL) twice mid-load and started again each time. Then, once every sale has ended:
 * every wallet equals its ledger, one sale per purchase key, each sale charged at the gateway
 * exactly when delivered at the aggregator, no reference at either vendor without its sale, and
 * nothing left pending, processing or waiting for review.
 */
describe.runIf(TEST_DATABASE === 'mysql')('three processes on one MariaDB database, one killed twice mid-load', () => {
  let db: ProcessDatabase;
  let standIns: StandIns;
  const servers: ServerProcess[] = [];
  beforeAll(async () => {
    db = await processDatabase('chaos');
    standIns = await startStandIns({
      PAYMENT_SANDBOX_APPROVAL_MS: '300-1500',
      OPERATOR_SANDBOX_LATENCY_MS: '200-1000',
      STAND_IN_LOST_ANSWER_RATE: '0.05',
      STAND_IN_UNAVAILABLE_RATE: '0.02',
    });
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => stopServer(s, 'SIGKILL')));
    standIns?.child.kill('SIGTERM');
    await db?.cleanup();
  });

  it('keeps every ledger exact and every sale charged exactly when delivered', async () => {
    // A killed worker's sales come back when their lease runs out; the lease outlasts a sale's longest
    // round (PIN prompt and delivery, 2.5 s) on a loaded machine, or working sales would count as crashed.
    const env = { ...liveEnv(standIns), APP_KEY: crypto.randomBytes(32).toString('hex'), RECHARGE_LEASE_MS: '8000' };
    // One after the other: the first makes the schema and the demo shop, the others find them.
    for (let i = 0; i < 3; i++) servers.push(await startServer(db, env));
    await db.knex('providers').update({ adapter_key: 'reloadly' });
    await topUpDemo(servers[0].url, db.knex, '2000.00');
    const shop = await demoShop(servers[0].url);

    // A customer's client: the purchase on process `first`, again on the next one when no answer comes.
    const accepted = new Map<string, string>();
    const buy = async (key: string, first: number, phone: string) => {
      for (let attempt = 0; attempt < 12; attempt++) {
        const server = servers[(first + attempt) % servers.length];
        let res: Response;
        try {
          res = await purchase(server.url, shop, key, phone);
        } catch {
          // The process is gone (no answer at all): the next one.
          await new Promise((r) => setTimeout(r, 200));
          continue;
        }
        if (res.status === 201 || res.status === 200) {
          const reference = ((await res.json()) as { data: { reference: string } }).data.reference;
          const known = accepted.get(key);
          // A replay answers the sale its key made, never a second one.
          if (known) expect(reference, key).toBe(known);
          else accepted.set(key, reference);
          return;
        }
        // Any answer but a success is a 503 (a process going down, the database busy), never a 4xx or a 500.
        expect(res.status, `${key}: ${await res.text()}`).toBe(503);
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error(`purchase ${key} never answered`);
    };

    const PURCHASES = 150;
    const inFlight: Promise<void>[] = [];
    const kills = [40, 95];
    const restarts: Promise<void>[] = [];
    const inFlightAtKills: number[] = [];
    for (let i = 0; i < PURCHASES; i++) {
      const key = `chaos-${i}-${crypto.randomBytes(4).toString('hex')}`;
      const phone = i % 9 === 0 ? '0615559999' : '0615123456';
      inFlight.push(buy(key, i % 3, phone));
      // A quarter are sent twice, the second to another process a moment later (a double tap, a retry).
      if (i % 4 === 0) inFlight.push(new Promise((r) => setTimeout(r, 30)).then(() => buy(key, (i + 1) % 3, phone)));
      if (kills.includes(i)) {
        const held = await db.knex('recharges').where('status', 'processing').count({ n: '*' }).first();
        inFlightAtKills.push(Number(held!.n));
        // The same process each time, with sales of its own in flight, started again while purchases go on.
        restarts.push(
          stopServer(servers[1], 'SIGKILL').then(async () => {
            servers[1] = await startServer(db, env);
          }),
        );
      }
      await new Promise((r) => setTimeout(r, 60));
    }
    await Promise.all([...inFlight, ...restarts]);
    expect(accepted.size).toBe(PURCHASES);
    // Each kill came while the three workers held sales between their payer and their delivery.
    expect(inFlightAtKills).toHaveLength(2);
    for (const held of inFlightAtKills) expect(held).toBeGreaterThan(0);

    await waitUntilSettled(db.knex, 150_000);
    const recharges = await assertMoneyRight(db.knex);
    // One sale per key, whatever the replays and the retries.
    expect(recharges).toHaveLength(PURCHASES);
    expect(new Set(recharges.map((r) => r.reference))).toEqual(new Set(accepted.values()));
    // Nothing stuck: no sale pending, processing or waiting for a person.
    const open = await db.knex('recharges').whereIn('status', ['pending', 'processing', 'needs_review']).count({ n: '*' }).first();
    expect(Number(open!.n)).toBe(0);

    // The vendors' own books: each reference once, each belonging to a sale, charged exactly when delivered.
    const waafi = (await (await fetch(`${standIns.waafipay}/_standin/books`)).json()) as { entries: { referenceId: string; state: string }[] };
    const reloadly = (await (await fetch(`${standIns.reloadly}/_standin/books`)).json()) as { entries: { customIdentifier: string; status: string }[] };
    const references = new Set(recharges.map((r) => r.reference));
    const payments = new Map(waafi.entries.map((e) => [e.referenceId, e.state]));
    const topups = new Map(reloadly.entries.map((e) => [e.customIdentifier, e.status]));
    expect(payments.size).toBe(waafi.entries.length);
    expect(topups.size).toBe(reloadly.entries.length);
    expect([...payments.keys()].filter((ref) => !references.has(ref))).toEqual([]);
    expect([...topups.keys()].filter((ref) => !references.has(ref))).toEqual([]);
    for (const r of recharges) {
      if (r.status === 'completed') {
        expect(topups.get(r.reference), r.reference).toBe('SUCCESSFUL');
        expect(payments.get(r.reference), r.reference).toBe('Committed');
      } else {
        expect(topups.get(r.reference), r.reference).not.toBe('SUCCESSFUL');
        expect(['Committed', 'Approved', 'Pending']).not.toContain(payments.get(r.reference));
      }
    }
    expect(recharges.filter((r) => r.status === 'completed').length).toBeGreaterThan(PURCHASES / 2);
  }, 480_000);
});
