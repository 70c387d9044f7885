import type { z } from 'zod';
import type {
  Aggregator,
  aggregatorProductResponseSchema,
  aggregatorSyncResponseSchema,
  connectorResponseSchema,
  providerRoutesResponseSchema,
} from '@app/contracts';

export type { Aggregator };
/** GET/PUT /internet-providers/{id}/routes. */
export type ProviderRoutes = z.infer<typeof providerRoutesResponseSchema>;
export type RouteRow = ProviderRoutes['routes'][number];
export type RouteHealth = RouteRow['health'];
export type RoutedBundle = ProviderRoutes['bundles'][number];
/** One product of GET /aggregators/{aggregator}/products, with the id the console gives it (operator:product). */
export type AggregatorProduct = z.infer<typeof aggregatorProductResponseSchema> & { id: string };
export type SyncResult = z.infer<typeof aggregatorSyncResponseSchema>;
export type Connector = z.infer<typeof connectorResponseSchema>;

/** The tabs of the catalogue page, in this order (the live aggregators first). */
export const CATALOGUE_AGGREGATORS: readonly Aggregator[] = ['reloadly', 'dtone', 'sandbox'];

/** Cents as "4.50" (the API's money is integer cents). */
export const centsText = (cents: number | null | undefined): string => (cents === null || cents === undefined ? '' : (cents / 100).toFixed(2));

/** "4.50 USD", or an empty string. */
export const moneyText = (cents: number | null | undefined, currency: string): string =>
  cents === null || cents === undefined ? '' : `${centsText(cents)} ${currency}`;

/** One aggregator's float (GET /aggregators), declared here while the API's contracts are written. Money is decimal strings. */
export interface AggregatorFloat {
  name: string;
  label: string;
  live: boolean;
  balance: string | null;
  currency: string | null;
  threshold: string | null;
  checked_at: string | null;
  check_error: string | null;
  below_threshold: boolean;
  /** At the current pace of spending; null when it cannot be told (no spending, no balance). */
  days_left: number | null;
  daily_spend: string | null;
}
