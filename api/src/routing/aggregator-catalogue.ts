import type { Knex } from 'knex';
import { AGGREGATORS, type Aggregator } from '@app/contracts';
import { fromDbTime, toDbTime } from '../database/time.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { transact, type ServiceContext } from '../platform/context.ts';
import { likePattern, pageParams } from '../http/list-query.ts';
import type { AggregatorProduct, OperatorAdapter } from '../connectors/deliveries/operator-adapter.ts';

/**
 * The aggregators' catalogues as last synced (docs/integrations.md, "Routes and the aggregators'
 * catalogues"). A sync reads each aggregator's Somali products and records what changed since the
 * previous one: new, price (face value or our cost), withdrawn (no longer listed), returned. A
 * withdrawn product stops the routes that sell it (delivery-routes.ts); the shops' offers are read
 * again once the sync commits (its activity line clears them).
 *
 * An aggregator that does not answer changes nothing: a catalogue is never emptied because a
 * call failed. Syncs of one aggregator run one at a time in this process; two processes syncing
 * at once write the same rows (upserts on the unique product), so neither fails.
 */
export interface SyncSummary {
  aggregator: Aggregator;
  status: 'ok' | 'unknown';
  error: string | null;
  products: number;
  new: number;
  changed: number;
  withdrawn: number;
}

interface StoredProduct {
  id: number;
  operator_id: string;
  product_id: string;
  amount: number | string;
  wholesale: number | string | null;
  status: string;
}

const running = new Map<string, Promise<SyncSummary>>();

const productKey = (operatorId: string, productId: string) => `${operatorId}\u0000${productId}`;

/** Writes one aggregator's answer over what was stored, in one transaction. */
async function store(ctx: ServiceContext, aggregator: Aggregator, products: AggregatorProduct[]): Promise<SyncSummary> {
  const summary: SyncSummary = { aggregator, status: 'ok', error: null, products: products.length, new: 0, changed: 0, withdrawn: 0 };
  await transact(ctx, async (tctx) => {
    const db = tctx.db;
    const now = toDbTime();
    const stored: StoredProduct[] = await db('aggregator_products')
      .where({ aggregator })
      .select('id', 'operator_id', 'product_id', 'amount', 'wholesale', 'status');
    const byKey = new Map(stored.map((p) => [productKey(p.operator_id, p.product_id), p]));
    const seen = new Set<string>();
    for (const raw of products) {
      // The columns' sizes, on every engine (MariaDB in strict mode refuses a longer value).
      const p = { ...raw, operatorId: raw.operatorId.slice(0, 64), productId: raw.productId.slice(0, 64) };
      const k = productKey(p.operatorId, p.productId);
      if (seen.has(k)) continue;
      seen.add(k);
      const before = byKey.get(k);
      const fields = {
        operator_name: p.operatorName.slice(0, 120),
        name: p.name.slice(0, 200),
        description: p.description?.slice(0, 500) ?? null,
        amount: p.amount,
        currency: p.currency.slice(0, 3),
        wholesale: p.wholesale,
        status: 'active',
        last_seen_at: now,
        withdrawn_at: null,
        updated_at: now,
      };
      if (!before) {
        summary.new++;
        await db('aggregator_products')
          .insert({ aggregator, operator_id: p.operatorId, product_id: p.productId, ...fields, change: 'new', first_seen_at: now })
          .onConflict(['aggregator', 'operator_id', 'product_id'])
          .merge({ ...fields });
        continue;
      }
      const repriced = Number(before.amount) !== p.amount || (before.wholesale === null ? null : Number(before.wholesale)) !== p.wholesale;
      const change = before.status !== 'active' ? 'returned' : repriced ? 'price' : null;
      if (change) summary.changed++;
      await db('aggregator_products')
        .where({ id: before.id })
        .update({
          ...fields,
          change,
          ...(repriced ? { previous_amount: before.amount, previous_wholesale: before.wholesale } : {}),
        });
    }
    const gone = stored.filter((p) => p.status === 'active' && !seen.has(productKey(p.operator_id, p.product_id))).map((p) => p.id);
    summary.withdrawn = gone.length;
    for (let i = 0; i < gone.length; i += 500)
      await db('aggregator_products')
        .whereIn('id', gone.slice(i, i + 500))
        .update({ status: 'withdrawn', change: 'withdrawn', withdrawn_at: now, updated_at: now });
    await recordActivity(tctx, {
      action: 'aggregator_catalogue_synced',
      subjectType: 'aggregator',
      description: `${aggregator}: ${summary.products} products, ${summary.new} new, ${summary.changed} changed, ${summary.withdrawn} withdrawn`,
      after: summary,
    });
  });
  return summary;
}

/** Syncs one aggregator (or waits for the sync of it already running in this process). */
export function syncAggregator(ctx: ServiceContext, aggregator: Aggregator, adapter: OperatorAdapter): Promise<SyncSummary> {
  const inFlight = running.get(aggregator);
  if (inFlight) return inFlight;
  const run = (async (): Promise<SyncSummary> => {
    const answer = await adapter.products({ rechargeId: null });
    if (answer.status !== 'ok') return { aggregator, status: 'unknown', error: answer.error, products: 0, new: 0, changed: 0, withdrawn: 0 };
    return store(ctx, aggregator, answer.products);
  })().finally(() => running.delete(aggregator));
  running.set(aggregator, run);
  return run;
}

/** Every aggregator of this process that lists its products, or the ones named. */
export async function syncAggregators(ctx: ServiceContext, operators: Record<string, OperatorAdapter>, only?: Aggregator[]): Promise<SyncSummary[]> {
  const names = AGGREGATORS.filter((a) => operators[a]?.capabilities.productList && (!only || only.includes(a)));
  return Promise.all(names.map((a) => syncAggregator(ctx, a, operators[a])));
}

export interface ProductFilters {
  operator_id?: string;
  status?: 'active' | 'withdrawn';
  /** Only products the last sync saw change. */
  changed?: string;
  q?: string;
  page?: string;
  per_page?: string;
}

/** One aggregator's synced products, filtered and paginated. */
export async function listAggregatorProducts(db: Knex, aggregator: Aggregator, filters: ProductFilters) {
  const { page, perPage } = pageParams({ page: filters.page, per_page: filters.per_page });
  const base = db('aggregator_products').where({ aggregator });
  if (filters.operator_id) base.where('operator_id', filters.operator_id);
  if (filters.status) base.where('status', filters.status);
  if (filters.changed === 'true' || filters.changed === '1') base.whereNotNull('change');
  if (filters.q) {
    const pattern = likePattern(filters.q);
    base.where((w) => w.whereRaw(`LOWER(name) LIKE LOWER(?) ESCAPE '!'`, [pattern]).orWhereRaw(`LOWER(product_id) LIKE LOWER(?) ESCAPE '!'`, [pattern]));
  }
  const [{ total }] = await base.clone().count({ total: '*' });
  const rows = await base
    .clone()
    .orderBy([{ column: 'operator_name' }, { column: 'amount' }, { column: 'product_id' }])
    .limit(perPage)
    .offset((page - 1) * perPage)
    .select('*');
  const count = Number(total);
  return {
    data: rows.map((r: Record<string, unknown>) => ({
      aggregator: r.aggregator,
      operator_id: String(r.operator_id),
      operator_name: String(r.operator_name),
      product_id: String(r.product_id),
      name: String(r.name),
      description: (r.description as string | null) ?? null,
      amount: Number(r.amount),
      currency: String(r.currency),
      wholesale: r.wholesale === null ? null : Number(r.wholesale),
      status: r.status,
      change: (r.change as string | null) ?? null,
      previous_amount: r.previous_amount === null ? null : Number(r.previous_amount),
      previous_wholesale: r.previous_wholesale === null ? null : Number(r.previous_wholesale),
      first_seen_at: fromDbTime(r.first_seen_at)!,
      last_seen_at: fromDbTime(r.last_seen_at)!,
      withdrawn_at: fromDbTime(r.withdrawn_at),
    })),
    meta: { current_page: page, per_page: perPage, total: count, last_page: Math.max(1, Math.ceil(count / perPage)) },
  };
}
