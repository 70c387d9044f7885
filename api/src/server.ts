import { setTimeout as sleep } from 'node:timers/promises';
import type { Server } from 'node:http';
import pino from 'pino';
import { loadConfig } from './config.ts';
import { connectDatabase, migrateAndSeed, type Database } from './database/connection.ts';
import { createApp } from './app.ts';

/**
 * `npm start`: wait for the database, migrate, seed (demo data unless SEED_DEMO=false or
 * production), listen, and shut down gracefully on SIGTERM/SIGINT: stop accepting, close idle
 * keep-alive connections, let in-flight requests finish, close the pool, exit 0.
 */

/** A database that is still starting (a container, a failover) is waited for, with backoff. */
async function waitForDatabase(db: Database, logger: pino.Logger, timeoutSeconds: number): Promise<void> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  for (let attempt = 1, delay = 500; ; attempt++, delay = Math.min(delay * 2, 5_000)) {
    try {
      await db.knex.raw('select 1');
      return;
    } catch (err) {
      if (Date.now() + delay > deadline) {
        throw new Error(`The database did not answer within ${timeoutSeconds} s (DB_CONNECT_TIMEOUT_SECONDS): ${(err as Error).message}`);
      }
      logger.warn(`Database not reachable yet (attempt ${attempt}: ${(err as Error).message}); retrying in ${delay} ms`);
      await sleep(delay);
    }
  }
}

function closeGracefully(server: Server, db: Database, logger: pino.Logger) {
  let closing = false;
  return (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info(`${signal} received: closing`);
    const force = setTimeout(() => {
      logger.error('Requests still running after 10 s: exiting anyway');
      process.exit(1);
    }, 10_000);
    force.unref();
    server.close(async () => {
      await db.knex.destroy();
      process.exit(0);
    });
    // Idle keep-alive sockets would otherwise hold server.close() open until they time out.
    server.closeIdleConnections();
  };
}

async function main() {
  const config = loadConfig();
  const logger = pino({ level: config.logLevel === 'silent' ? 'info' : config.logLevel });
  const db = connectDatabase();
  await waitForDatabase(db, logger, Number(process.env.DB_CONNECT_TIMEOUT_SECONDS || 60));
  await migrateAndSeed(db, { seedDemo: config.seedDemo, dataDir: config.dataDir });
  const app = createApp({ config, db, logger });
  const server = app.listen(config.port, () => {
    const url = `http://localhost:${config.port}`;
    logger.info(`Listening on ${url} (database: ${db.client})`);
    console.log(`\n  Console:  ${url}/\n  API:      ${url}/api/v1  (docs: ${url}/api/v1/docs)`);
    if (config.seedDemo) {
      console.log('  Demo sign-ins: admin@example.com / Admin@12345 (super admin), dealer@example.com / Dealer@12345 (dealer DEMO)\n');
    }
  });
  server.keepAliveTimeout = 65_000;
  const shutdown = closeGracefully(server, db, logger);
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
