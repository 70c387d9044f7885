/**
 * What fulfilment reports as it goes, for whoever measures it (metrics/service-metrics.ts): the
 * moments a customer waits for, and the status questions asked of vendors. Optional everywhere:
 * a worker without one reports nothing and pays nothing.
 */
export interface FulfilmentObserver {
  /** A sale's payment prompt went to the gateway; `createdAt` is the sale's (the customer's tap). */
  prompted(createdAt: string | null | undefined): void;
  /** A sale's top-up was confirmed delivered by the aggregator. */
  delivered(createdAt: string | null | undefined): void;
  /** A status question to a vendor (a lookup or a poll) and what came of it (the answer's status). */
  lookedUp(vendor: string, status: string): void;
}
