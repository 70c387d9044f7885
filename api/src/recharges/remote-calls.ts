import type { Knex } from 'knex';
import type pino from 'pino';
import type { RemoteCallResponse } from '@app/contracts';
import { fromDbTime, toDbTime } from '../database/time.ts';
import type { RemoteTrail } from './adapters/remote-call.ts';
import type { RemoteCallRow } from './recharge-rows.ts';

/**
 * The remote-call trail (docs/architecture.md, "Recharges"): every request to a gateway or an
 * aggregator and its answer, credentials already redacted by the adapter, stored with the sale
 * it was for. Disputes and reconciliation are settled from it, so a write that fails is logged
 * loudly, but never stops the money step it describes.
 */
export function databaseTrail(db: Knex, logger?: pino.Logger): RemoteTrail {
  return async (rechargeId, call) => {
    try {
      await db('remote_calls').insert({
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
      });
    } catch (err) {
      logger?.error({ err, rechargeId, call: { system: call.system, operation: call.operation, outcome: call.outcome } }, 'remote call not recorded');
    }
  };
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
