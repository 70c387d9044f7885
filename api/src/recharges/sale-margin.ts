import type { RechargeRow } from './recharge-rows.ts';

/**
 * One sale's margin in cents, or null: a completed sale whose aggregator cost is known in its
 * currency (gateway charges 0 when not stated). The same rule as the margins report's SQL (reports/margins.service.ts, MARGIN_KNOWN).
 */
export function saleMargin(
  r: Pick<RechargeRow, 'status' | 'amount' | 'currency' | 'aggregator_cost' | 'aggregator_currency' | 'gateway_charges' | 'gateway_currency'>,
): number | null {
  if (r.status !== 'completed' || r.aggregator_cost === null || r.aggregator_cost === undefined || r.aggregator_currency !== r.currency) return null;
  const charges = r.gateway_charges === null || r.gateway_charges === undefined ? null : Number(r.gateway_charges);
  if (charges !== null && r.gateway_currency && r.gateway_currency !== r.currency) return null;
  return Number(r.amount) - (charges ?? 0) - Number(r.aggregator_cost);
}
