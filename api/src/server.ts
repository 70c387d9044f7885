import { loadConfig } from './config.ts';
import { connectDatabase, migrateAndSeed } from './database/connection.ts';
import { createApp } from './app.ts';
import pino from 'pino';

/**
 * `npm start`: migrate, seed (demo data unless SEED_DEMO=false or production), listen, and
 * shut down gracefully on SIGTERM/SIGINT (finish in-flight requests, then close the pool).
 */
async function main() {
  const config = loadConfig();
  const logger = pino({ level: config.logLevel === 'silent' ? 'info' : config.logLevel });
  const db = connectDatabase();
  await migrateAndSeed(db, { seedDemo: config.seedDemo });
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
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info(`${signal} received: closing`);
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    server.close(async () => {
      await db.knex.destroy();
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
