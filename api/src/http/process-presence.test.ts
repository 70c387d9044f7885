import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../tests/api/harness.ts';
import { toDbTime } from '../database/time.ts';
import { warnOfOtherProcesses } from './process-presence.ts';

/** Two processes on one database, without REDIS_URL: each says so once (process-presence.ts). Real processes: tests/api/rate-limit-processes.test.ts. */
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

/** A logger that keeps its warnings. */
function capture() {
  const warnings: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line).msg as string) });
  return { logger, warnings };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('other processes on the database', () => {
  it('a process alone says nothing; a row long stale is a process gone', async () => {
    const old = toDbTime(new Date(Date.now() - 10 * 60_000));
    await h.knex('process_heartbeats').insert({ id: 'gone:1:aaaa', host: 'gone', pid: 1, started_at: old, seen_at: old });
    const alone = capture();
    const watch = warnOfOtherProcesses({ db: h.knex, logger: alone.logger, everyMs: 50 });
    await sleep(400);
    expect(alone.warnings).toEqual([]);
    expect(await h.knex('process_heartbeats').whereNot('id', 'gone:1:aaaa')).toHaveLength(1);
    await watch.stop();
    expect(await h.knex('process_heartbeats').whereNot('id', 'gone:1:aaaa')).toHaveLength(0);
    await h.knex('process_heartbeats').delete();
  });

  it('two processes each warn once: the later one at start, the earlier one at its next beat', async () => {
    const first = capture();
    const second = capture();
    const a = warnOfOtherProcesses({ db: h.knex, logger: first.logger, everyMs: 100 });
    await sleep(300);
    expect(first.warnings).toEqual([]);
    const b = warnOfOtherProcesses({ db: h.knex, logger: second.logger, everyMs: 100 });
    await sleep(600);
    for (const { warnings } of [first, second]) {
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^1 other API process uses this database and REDIS_URL is not set: .* 2 times as many calls\. Set REDIS_URL/);
    }
    const rows = await h.knex('process_heartbeats').select('host', 'pid');
    expect(rows).toHaveLength(2);
    expect(rows.every((r: { pid: number }) => Number(r.pid) === process.pid)).toBe(true);
    await a.stop();
    await b.stop();
    expect(await h.knex('process_heartbeats')).toHaveLength(0);
  });
});
