import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedDatabase, startServer, stopServer, type ServerProcess, type SharedDatabase } from './spawned-servers.ts';

/**
 * Without REDIS_URL each process counts its rate limits in its own memory: two processes on one
 * database each say so once, at start or at the heartbeat after the other starts (http/process-presence.ts).
 */
let db: SharedDatabase;
let servers: ServerProcess[] = [];
beforeAll(async () => {
  db = await sharedDatabase();
}, 60_000);
afterAll(async () => {
  await Promise.all(servers.map(stopServer));
  await db?.cleanup();
});

describe('without REDIS_URL', () => {
  it('two processes on one database each warn, once, that each counts its own limits', async () => {
    const env = { REDIS_URL: '', SEED_DEMO: 'false' };
    servers = [await startServer(db, env)];
    servers.push(await startServer(db, env));
    const warning = /1 other API process uses this database and REDIS_URL is not set: each process counts its own rate limits/;
    // The later one sees the earlier at start; the earlier sees it at its next heartbeat (15 s).
    for (let i = 0; i < 150 && !servers.every((s) => warning.test(s.output())); i++) await new Promise((r) => setTimeout(r, 200));
    for (const s of servers) expect(s.output().match(new RegExp(warning, 'g'))).toHaveLength(1);
    expect(await db.knex('process_heartbeats')).toHaveLength(2);
  }, 90_000);
});
