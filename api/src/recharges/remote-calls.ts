import type { Knex } from 'knex';
import type pino from 'pino';
import type { RemoteCallResponse } from '@app/contracts';
import { fromDbTime, toDbTime } from '../database/time.ts';
import type { RemoteCallRecord, RemoteTrail } from '../connectors/remote-call.ts';
import type { RemoteCallRow } from './recharge-rows.ts';

/**
 * The remote-call trail (docs/architecture.md, "Recharges"): every request to a gateway or an
 * aggregator and its answer, credentials already redacted by the adapter, stored with the sale
 * it was for. Disputes and reconciliation are settled from it, so a write that fails is logged
 * loudly, but never stops the money step it describes.
 *
 * Thousands of sales in flight answer in bursts: the lines recorded in one turn of the event loop
 * are written by one multi-row INSERT (each caller still waits until its line is stored, so a step
 * that counts the sale's calls, such as the top-up resend limit, sees them).
 */
export function databaseTrail(db: Knex, logger?: pino.Logger): RemoteTrail {
  const queue: { row: Record<string, unknown>; call: RemoteCallRecord; done: () => void }[] = [];
  let scheduled = false;
  let writing = false;
  const writeChunk = async (chunk: typeof queue) => {
    try {
      await db('remote_calls').insert(chunk.map((g) => g.row));
    } catch {
      // One line the database refuses must not take the others with it: each on its own.
      for (const g of chunk) {
        await db('remote_calls')
          .insert(g.row)
          .catch((err) =>
            logger?.error(
              { err, rechargeId: g.row.recharge_id, call: { system: g.call.system, operation: g.call.operation, outcome: g.call.outcome } },
              'remote call not recorded',
            ),
          );
      }
    }
    for (const g of chunk) g.done();
  };
  // One INSERT at a time: the lines recorded while it runs go in the next (a burst of answers costs
  // a statement and a connection per group, not per turn of the event loop).
  const write = async () => {
    scheduled = false;
    if (writing) return;
    writing = true;
    try {
      while (queue.length) {
        // Chunks keep one statement under every engine's limit on bound values.
        const chunk = queue.splice(0, 200);
        await writeChunk(chunk);
      }
    } finally {
      writing = false;
    }
  };
  return (rechargeId, call) =>
    new Promise<void>((done) => {
      queue.push({
        call,
        done,
        row: {
          recharge_id: rechargeId,
          system: call.system,
          operation: call.operation.slice(0, 64),
          method: call.method,
          url: call.url.slice(0, 500),
          request: call.request,
          response: call.response,
          http_status: call.httpStatus,
          outcome: call.outcome,
          error: call.error?.slice(0, 500) ?? null,
          duration_ms: call.durationMs,
          created_at: toDbTime(),
        },
      });
      if (!scheduled && !writing) {
        scheduled = true;
        setImmediate(() => void write());
      }
    });
}

export function presentRemoteCall(r: RemoteCallRow): RemoteCallResponse {
  return {
    id: Number(r.id),
    system: r.system,
    operation: r.operation,
    method: r.method,
    url: r.url,
    request: r.request ?? null,
    response: r.response ?? null,
    http_status: r.http_status === null || r.http_status === undefined ? null : Number(r.http_status),
    outcome: r.outcome,
    error: r.error ?? null,
    duration_ms: Number(r.duration_ms),
    created_at: fromDbTime(r.created_at)!,
  };
}
