import crypto from 'node:crypto';
import { databaseEnv, processDatabase, spawnServer, stopServer as stopProcess, type ProcessDatabase, type ServerProcess } from './server-processes.ts';

export type { ServerProcess } from './server-processes.ts';

/**
 * Real server processes sharing one database of their own and one APP_KEY, with no worker unless
 * `env` says so (the shared-limit tests: several processes, one set of ceilings).
 */
export interface SharedDatabase extends ProcessDatabase {
  appKey: string;
}

export const sharedDatabase = async (): Promise<SharedDatabase> => ({ ...(await processDatabase('procs')), appKey: crypto.randomBytes(32).toString('hex') });

/** A server on `db` with the demo data, warnings logged, no worker unless `env` says so; resolves once /health answers. */
export const startServer = (db: SharedDatabase, env: Record<string, string> = {}): Promise<ServerProcess> =>
  spawnServer({ RECHARGE_WORKER: 'false', APP_KEY: db.appKey, ...databaseEnv(db), ...env });

/** Stopped with SIGTERM (one argument: `servers.map(stopServer)` passes the index second). */
export const stopServer = (server: ServerProcess): Promise<void> => stopProcess(server);
