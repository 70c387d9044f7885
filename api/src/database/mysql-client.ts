import { createRequire } from 'node:module';
import type { Knex } from 'knex';

/**
 * knex's mysql2 client with a ceiling on waiting for an answer. mysql2 waits for ever for a
 * statement's answer: behind a network partition (sockets open, nothing coming back) a request
 * would hang for minutes. Every statement of the API's connections (BEGIN, COMMIT and ROLLBACK
 * included: a transaction's client is made from this prototype) runs under a timer; when it
 * fires, the connection is destroyed, never returned to the pool, and the statement fails with
 * DB_NO_ANSWER (a 503). A destroyed connection's open transaction never commits: no COMMIT can
 * reach the server on it, and the server rolls it back when it sees the connection gone.
 *
 * The timer is the statement ceiling plus a second, so a server that is merely slow answers
 * first with its own error (MariaDB's max_statement_time, InnoDB's lock wait) on a connection
 * that stays usable.
 */
const require = createRequire(import.meta.url);
// knex ships no types for its dialect classes; this is the one it uses for client: 'mysql2'.
const MySql2Client = require('knex/lib/dialects/mysql2/index.js') as new (config: Knex.Config) => {
  config: Knex.Config;
  _query(connection: unknown, obj: unknown): Promise<unknown>;
  destroyRawConnection(connection: unknown): Promise<void>;
};

interface RawConnection {
  threadId?: number;
  __knex__disposed?: unknown;
  stream?: { destroy(): void };
  destroy(): void;
}

export const NO_ANSWER = 'DB_NO_ANSWER';

/** Closes the socket at once: a graceful COM_QUIT would wait for the silent server too. */
export function destroyConnection(connection: RawConnection, reason: unknown): void {
  connection.__knex__disposed = reason;
  try {
    connection.destroy();
    connection.stream?.destroy();
  } catch {
    // Already closed.
  }
}

export function mysqlClientWithDeadline(noAnswerMs: number): typeof MySql2Client {
  return class MySql2ClientWithDeadline extends MySql2Client {
    constructor(config: Knex.Config) {
      super(config);
      // The code tells the engines apart by config.client (knex keeps this class there).
      this.config = { ...this.config, client: 'mysql2' };
    }

    override _query(connection: RawConnection, obj: unknown): Promise<unknown> {
      let timer: NodeJS.Timeout | undefined;
      const noAnswer = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => {
          const err = Object.assign(new Error(`The database did not answer within ${noAnswerMs} ms`), { code: NO_ANSWER });
          destroyConnection(connection, err);
          reject(err);
        }, noAnswerMs);
      });
      return Promise.race([super._query(connection, obj), noAnswer]).finally(() => clearTimeout(timer));
    }

    override async destroyRawConnection(connection: RawConnection): Promise<void> {
      if (connection.__knex__disposed) return destroyConnection(connection, connection.__knex__disposed);
      // A polite goodbye (COM_QUIT), but no waiting on a server that has gone quiet since.
      let timer: NodeJS.Timeout | undefined;
      const gone = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          destroyConnection(connection, new Error('No answer to COM_QUIT'));
          resolve();
        }, 1_000);
      });
      await Promise.race([super.destroyRawConnection(connection), gone]).finally(() => clearTimeout(timer));
    }
  };
}
