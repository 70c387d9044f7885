import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { Model } from 'objection';
import { knexConfig, type DatabaseClient } from '../../../db/config.ts';
import { migrationSource, runSeeds } from '../../../db/migration-source.ts';
import { setRootKnex } from './unit-of-work.ts';

export interface Database {
  knex: Knex;
  client: DatabaseClient;
}

export function connectDatabase(env: NodeJS.ProcessEnv = process.env): Database {
  const { clientName, ...config } = knexConfig(env);
  const knex = knexFactory({ ...config, migrations: { tableName: 'knex_migrations', migrationSource } });
  // Objection models use this connection unless a transaction is passed explicitly.
  Model.knex(knex);
  setRootKnex(knex);
  return { knex, client: clientName };
}

/** Migrations, the catalogue seeds of db/seeds (permissions, protected roles) and, if asked, the demo data. */
export async function migrateAndSeed(db: Database, opts: { seedDemo: boolean; dataDir?: string }): Promise<void> {
  await db.knex.migrate.latest();
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
      const { seedDemoHistory } = await import('../demo/demo-history.ts');
      await seedDemoHistory(db.knex);
    }
  }
}
