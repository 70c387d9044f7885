import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Knex } from 'knex';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * The migrations folder as a knex migration source that imports through the caller's module
 * loader (tsx, vitest), so the app and the tests run the TypeScript migrations that the knex
 * CLI runs. Names are the file names, so both record the same rows in knex_migrations.
 */
export const migrationSource: Knex.MigrationSource<string> = {
  async getMigrations() {
    return fs
      .readdirSync(path.join(here, 'migrations'))
      .filter((f) => f.endsWith('.ts'))
      .sort();
  },
  getMigrationName(name) {
    return name;
  },
  async getMigration(name) {
    return import(pathToFileURL(path.join(here, 'migrations', name)).href);
  },
};

/**
 * Seeds in file-name order, run the same way as the knex CLI's `seed:run` (same folder). They
 * hold only reference data (permissions, protected roles); demo users are made by the API's
 * own services (api/src/demo), so db never imports API code.
 */
export async function runSeeds(knex: Knex): Promise<void> {
  const files = fs
    .readdirSync(path.join(here, 'seeds'))
    .filter((f) => f.endsWith('.ts'))
    .sort();
  for (const file of files) {
    const mod = (await import(pathToFileURL(path.join(here, 'seeds', file)).href)) as { seed: (k: Knex) => Promise<void> };
    await mod.seed(knex);
  }
}
