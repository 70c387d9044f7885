import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { Model } from 'objection';
import { knexConfig, type DatabaseClient, type DatabaseTimeouts } from '../../../db/config.ts';
import { migrationSource, runSeeds } from '../../../db/migration-source.ts';
import { setRootKnex } from './unit-of-work.ts';
import { mysqlClientWithDeadline } from './mysql-client.ts';

export interface Database {
  knex: Knex;
  client: DatabaseClient;
  /** How long requests wait on the database before answering 503 (db/config.ts). */
  timeouts: DatabaseTimeouts;
  /** A connection of its own without the API's statement ceiling, for migrations; destroy it after. */
  maintenanceKnex: () => Knex;
  /** SQLite: the database file (null for MySQL/MariaDB and for an in-memory database). */
  sqliteFile: string | null;
}

const migrations = { tableName: 'knex_migrations', migrationSource };

export function connectDatabase(env: NodeJS.ProcessEnv = process.env): Database {
  const { clientName, timeouts, ...config } = knexConfig(env);
  // MySQL/MariaDB: no statement waits for an answer for ever (mysql-client.ts).
  const client =
    clientName === 'mysql' ? (mysqlClientWithDeadline(timeouts.statementSeconds * 1000 + 1000) as unknown as Knex.Config['client']) : config.client;
  const knex = knexFactory({ ...config, client, migrations });
  // Objection models use this connection unless a transaction is passed explicitly.
  Model.knex(knex);
  setRootKnex(knex);
  const maintenanceKnex = () => {
    const { clientName: _name, timeouts: _timeouts, ...maintenance } = knexConfig(env, { purpose: 'maintenance' });
    return knexFactory({ ...maintenance, pool: { ...maintenance.pool, min: 0, max: 1 }, migrations });
  };
  const filename = clientName === 'sqlite' ? (config.connection as { filename: string }).filename : null;
  return { knex, client: clientName, timeouts, maintenanceKnex, sqliteFile: filename && filename !== ':memory:' ? filename : null };
}

/** Migrations, the catalogue seeds of db/seeds (permissions, protected roles) and, if asked, the demo data. */
export async function migrateAndSeed(db: Database, opts: { seedDemo: boolean; seedDemoHistory?: boolean; dataDir?: string }): Promise<void> {
  // A migration may rightly run longer than a request's statement ceiling (an ALTER TABLE on a big
  // table): on MySQL it runs on a connection of its own. SQLite has no ceiling and one connection.
  if (db.client === 'mysql') {
    const migrator = db.maintenanceKnex();
    try {
      await migrator.migrate.latest();
    } finally {
      await migrator.destroy();
    }
  } else {
    await db.knex.migrate.latest();
  }
  await runSeeds(db.knex);
  if (opts.seedDemo) {
    const { seedDemoData } = await import('../demo/demo-data.ts');
    const { seedDemoCatalogue } = await import('../demo/demo-catalogue.ts');
    await seedDemoData(db.knex);
    await seedDemoCatalogue(db.knex);
    if (opts.dataDir) {
      const { seedDemoStorefront } = await import('../demo/demo-storefront.ts');
      const { localDiskStorage } = await import('../uploads/storage.ts');
      await seedDemoStorefront(db.knex, localDiskStorage(path.join(opts.dataDir, 'storage')));
      if (opts.seedDemoHistory !== false) {
        const { seedDemoHistory } = await import('../demo/demo-history.ts');
        await seedDemoHistory(db.knex);
      }
    }
  }
}
