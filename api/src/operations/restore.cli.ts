/**
 * `npm run restore -- --from FILE [--force]`: a backup made by `npm run backup` loaded into the
 * configured database (DATABASE_URL, else DATA_DIR/app.sqlite), which must be empty unless --force;
 * every server on it stopped first. Then every wallet is checked against its ledger. Exit 0 when
 * restored and exact, 2 for a wrong argument, 1 on failure.
 */
import { parseArgs } from 'node:util';
import { databaseTarget, OperationError, restoreDatabase } from './backup.ts';

const USAGE =
  'Usage: npm run restore -- --from FILE [--force]   (into the database of DATABASE_URL, else DATA_DIR/app.sqlite; --force replaces a database that holds tables)';

async function main(): Promise<number> {
  // Every file this makes (the copy, its partial, SQLite's journal) is the owner's alone from its first byte.
  process.umask(0o077);
  let from: string;
  let force: boolean;
  try {
    const { values } = parseArgs({
      options: { from: { type: 'string' }, force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    if (!values.from?.trim()) throw new Error('--from FILE is required');
    from = values.from;
    force = values.force ?? false;
  } catch (err) {
    console.error(`restore: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  try {
    const target = databaseTarget();
    const result = await restoreDatabase(target, from, { force, log: (line) => console.log(line) });
    const into = target.engine === 'sqlite' ? `the SQLite database ${target.file}` : `the MySQL database ${target.mysql!.database}`;
    console.log(
      `Restored ${from} into ${into} (${result.seconds.toFixed(1)} s): ${result.wallets} wallets, ${result.wallets - result.walletsOff} equal to their ledger; ${result.salesInFlight} sales in flight, resumed by the first worker started on it`,
    );
    if (result.walletsOff) {
      console.error(`restore: ${result.walletsOff} wallets differ from the sum of their ledger: this backup is not sound`);
      return 1;
    }
    return 0;
  } catch (err) {
    console.error(`restore failed: ${err instanceof OperationError ? err.message : (err as Error).stack}`);
    return 1;
  }
}

process.exitCode = await main();
