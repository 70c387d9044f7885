import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Delivering the bundle to the customer's number, through the operator (or a wholesale top-up
 * API such as DT One or Reloadly). A provider's `adapter_key` names its adapter.
 *
 * - deliver() sends one transaction under a unique externalId and answers completed, failed, or
 *   `timeout` when the outcome is not known yet.
 * - status() asks what became of an externalId (after a timeout, or after a crash): a real API
 *   settles asynchronously (created -> submitted -> completed | rejected | declined | reversed).
 */
export interface DeliveryRequest {
  externalId: string;
  /** National number, 9 digits. */
  phone: string;
  providerCode: string;
  productCode: string | null;
  dataVolumeMb: number | null;
  validityDays: number | null;
}
export type DeliveryResult = { status: 'completed'; operatorReference: string } | { status: 'failed'; reason: string } | { status: 'timeout' };

export interface OperatorAdapter {
  readonly name: string;
  deliver(request: DeliveryRequest): Promise<DeliveryResult>;
  status(externalId: string, phone: string): Promise<DeliveryResult | { status: 'unknown' }>;
}

/**
 * The sandbox operator. Test numbers (README): a target number ending in 9999 is rejected, one
 * ending in 8888 never answers (a timeout, and its status later says it was not delivered); every
 * other valid number is delivered after a short latency. Results are derived from the externalId,
 * so asking twice gives the same answer.
 */
export function sandboxOperatorAdapter(opts: { latencyMs?: number; timeoutMs?: number } = {}): OperatorAdapter {
  const latencyMs = opts.latencyMs ?? Number(process.env.OPERATOR_SANDBOX_LATENCY_MS ?? 800);
  const timeoutMs = opts.timeoutMs ?? Number(process.env.OPERATOR_TIMEOUT_MS ?? 5000);
  const reference = (externalId: string) => `OPR${crypto.createHash('sha256').update(externalId).digest('hex').slice(0, 12).toUpperCase()}`;
  const outcome = (phone: string, externalId: string): DeliveryResult => {
    if (phone.endsWith('9999')) return { status: 'failed', reason: 'The operator rejected the number (not eligible for data bundles).' };
    if (phone.endsWith('8888')) return { status: 'timeout' };
    return { status: 'completed', operatorReference: reference(externalId) };
  };
  return {
    name: 'sandbox',
    async deliver(request) {
      const result = outcome(request.phone, request.externalId);
      // A timeout costs the caller the whole wait.
      await sleep(result.status === 'timeout' ? timeoutMs : latencyMs * (0.5 + Math.random()));
      return result;
    },
    async status(externalId, phone) {
      await sleep(Math.min(100, latencyMs));
      const result = outcome(phone, externalId);
      return result.status === 'timeout' ? { status: 'failed', reason: 'The operator never confirmed the delivery.' } : result;
    },
  };
}

/** Adapters by provider `adapter_key`; a real one is added here and named on the provider. */
export function operatorAdapters(): Record<string, OperatorAdapter> {
  return { sandbox: sandboxOperatorAdapter() };
}
