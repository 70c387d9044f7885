import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * SQLite's WAL is copied back into the database file by a checkpoint, which by default runs
 * inside whichever COMMIT crosses 1,000 pages: every hundredth sale or so then waited 10-30 ms
 * on the disk, on the event loop (better-sqlite3 is synchronous). The server moves that work to
 * a thread with its own connection: a PASSIVE checkpoint never blocks the server's reads or
 * writes. The server's connection keeps an automatic checkpoint at a far larger WAL
 * (SQLITE_SAFETY_CHECKPOINT_PAGES) in case this thread stops.
 */
export const SQLITE_SAFETY_CHECKPOINT_PAGES = 20_000;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.filename);
db.pragma('busy_timeout = 1000');
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (err) { parentPort.postMessage(String(err && err.message || err)); }
}, workerData.intervalMs);
parentPort.on('message', (m) => { if (m === 'stop') { clearInterval(timer); try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {} db.close(); process.exit(0); } });
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startSqliteCheckpointer(filename: string, opts: { intervalMs?: number; onError?: (message: string) => void } = {}): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { filename, driver, intervalMs: opts.intervalMs ?? 200 } });
  worker.on('message', (message: string) => opts.onError?.(message));
  worker.on('error', (err) => opts.onError?.(err.message));
  // Never what keeps the process alive.
  worker.unref();
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        worker.once('exit', () => resolve());
        worker.postMessage('stop');
      }),
  };
}
