/**
 * `npm run backup [-- --to FILE]`: a consistent copy of the configured database (DATABASE_URL, else
 * the SQLite file under DATA_DIR) taken while the servers run; without --to, a file named with the
 * time under DATA_DIR/backups. Exit 0 with the file's name, 2 for a wrong argument, 1 on failure.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { backupDatabase, databaseTarget, defaultBackupFile, OperationError } from './backup.ts';

const USAGE = 'Usage: npm run backup [-- --to FILE]   (the database of DATABASE_URL, else DATA_DIR/app.sqlite; without --to: DATA_DIR/backups/<name>-<time>)';

async function main(): Promise<number> {
  // Every file this makes (the copy, its partial, SQLite's journal) is the owner's alone from its first byte.
  process.umask(0o077);
  let to: string | undefined;
  try {
    const { values } = parseArgs({ options: { to: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    if (values.to !== undefined && !values.to.trim()) throw new Error('--to needs a file name');
    to = values.to;
  } catch (err) {
    console.error(`backup: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  try {
    const target = databaseTarget();
    const file = to ?? defaultBackupFile(target);
    if (!to) fs.mkdirSync(path.dirname(file), { recursive: true });
    const result = await backupDatabase(target, file, { log: (line) => console.log(line) });
    console.log(
      `Backed up the ${target.engine === 'sqlite' ? `SQLite database ${target.file}` : `MySQL database ${target.mysql!.database}`} to ${result.file} (${result.bytes} bytes, ${result.seconds.toFixed(1)} s)`,
    );
    return 0;
  } catch (err) {
    console.error(`backup failed: ${err instanceof OperationError ? err.message : (err as Error).stack}`);
    return 1;
  }
}

process.exitCode = await main();
