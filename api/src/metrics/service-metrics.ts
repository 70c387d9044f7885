import type { Request, RequestHandler } from 'express';
import type { Knex } from 'knex';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { fromDbTime } from '../database/time.ts';
import { RETRY_AFTER_SECONDS } from '../database/unit-of-work.ts';
import type { RemoteTrail } from '../connectors/remote-call.ts';
import type { FulfilmentObserver } from '../recharges/fulfilment/fulfilment-observer.ts';

/** Every metric's name starts with this (the default Node.js ones too). */
export const METRIC_PREFIX = 'databundles_';

/** How long the database figures of a scrape are reused: scrapes from several Prometheus servers (or a storm) cost one round. */
const SNAPSHOT_MS = 5_000;

/** Sales in these states are read from `recharges` (its (status, created_at) index); settled ones from the report totals. */
const OPEN_STATES = ['pending', 'processing', 'needs_review'];

/** What a worker shows the metrics: how many sales it holds, and how many it claims at a time. */
export interface WorkerGauges {
  readonly holding: number;
  readonly limit: { readonly value: number };
}

/** The figures read from the database for one scrape. */
interface Snapshot {
  sales: { state: string; n: number }[];
  oldestUnsure: string | null;
  oldestReview: string | null;
  webhookBacklog: number;
  oldestWebhook: string | null;
  floats: { aggregator: string; currency: string; balance: number }[];
}

/** tarn's pool, as knex holds it (the parts read here). */
interface Pool {
  numPendingAcquires(): number;
  numUsed(): number;
  numFree(): number;
  on(event: string, listener: (...args: unknown[]) => void): void;
}

const secondsSince = (dbTime: string | null, now: number) => {
  const iso = fromDbTime(dbTime);
  return iso ? Math.max(0, (now - new Date(iso).getTime()) / 1000) : 0;
};

/**
 * The service's metrics, in one prom-client registry per instance (one per app: test apps never
 * share counters). Counters and histograms are fed where things happen (HTTP answers, remote calls
 * through the trail, prompts, deliveries and lookups through the worker's observer, the pool's
 * events); the database's figures (sales by state, backlogs, floats) are read when scraped, in a
 * few grouped queries whose result is reused for a few seconds. Names and meanings: the table in
 * README ("Metrics").
 */
export class ServiceMetrics implements FulfilmentObserver {
  readonly registry = new Registry();
  private readonly workers = new Set<WorkerGauges>();
  private snapshot: { at: number; value: Promise<Snapshot> } | null = null;
  private readonly watchedPools = new WeakSet<object>();
  /** How long the database's figures are reused between scrapes (tests set 0 to read them every time). */
  snapshotMs = SNAPSHOT_MS;

  private readonly tapToPrompt: Histogram<string>;
  private readonly tapToDelivered: Histogram<string>;
  private readonly remoteCalls: Counter<'vendor' | 'operation' | 'outcome'>;
  private readonly remoteCallSeconds: Histogram<'vendor' | 'operation' | 'outcome'>;
  private readonly lookups: Counter<'vendor' | 'answer'>;
  private readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  private readonly httpSeconds: Histogram<'method' | 'route' | 'status'>;
  private readonly unavailable: Counter<'reason'>;
  private readonly poolWaitSeconds: Histogram<string>;
  private readonly poolTimeouts: Counter<string>;
  private readonly scrapeErrors: Counter<string>;

  constructor(private readonly knex: Knex) {
    const registers = [this.registry];
    const p = METRIC_PREFIX;
    // Event-loop lag, memory, CPU, handles: prom-client's own, under the same prefix.
    collectDefaultMetrics({ register: this.registry, prefix: p });

    this.tapToPrompt = new Histogram({
      name: `${p}tap_to_prompt_seconds`,
      help: "From the customer's tap (the sale's creation) to the payment prompt sent to the gateway",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
      registers,
    });
    this.tapToDelivered = new Histogram({
      name: `${p}tap_to_delivered_seconds`,
      help: "From the customer's tap to the top-up confirmed delivered by the aggregator",
      buckets: [1, 2.5, 5, 10, 20, 30, 60, 120, 300, 900, 3600],
      registers,
    });
    this.remoteCalls = new Counter({
      name: `${p}remote_calls_total`,
      help: 'Calls to vendors (gateways, aggregators, SMS) by vendor, operation and outcome (ok, refused, unknown)',
      labelNames: ['vendor', 'operation', 'outcome'],
      registers,
    });
    this.remoteCallSeconds = new Histogram({
      name: `${p}remote_call_duration_seconds`,
      help: 'How long vendor calls took, by vendor, operation and outcome (a charge includes the payer reading the PIN prompt)',
      labelNames: ['vendor', 'operation', 'outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    });
    this.lookups = new Counter({
      name: `${p}status_lookups_total`,
      help: "Status questions about sales (lookups and polls by the worker and the reconciliation), by vendor and the answer's status",
      labelNames: ['vendor', 'answer'],
      registers,
    });
    this.httpRequests = new Counter({
      name: `${p}http_requests_total`,
      help: 'HTTP requests answered, by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.httpSeconds = new Histogram({
      name: `${p}http_request_duration_seconds`,
      help: 'HTTP answer times, by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.unavailable = new Counter({
      name: `${p}http_unavailable_total`,
      help: '503 answers, by reason: database_unavailable (down, or no pool connection in time), database_busy, other (e.g. not ready)',
      labelNames: ['reason'],
      registers,
    });
    this.poolWaitSeconds = new Histogram({
      name: `${p}db_pool_acquire_wait_seconds`,
      help: 'How long queries waited for a database connection from the pool',
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.poolTimeouts = new Counter({
      name: `${p}db_pool_acquire_failures_total`,
      help: 'Waits for a pool connection that failed (no connection within the acquire timeout: the pool is exhausted)',
      registers,
    });
    this.scrapeErrors = new Counter({
      name: `${p}metrics_database_errors_total`,
      help: 'Scrapes whose database figures could not be read (the gauges keep their last values)',
      registers,
    });

    const pool = () => (this.knex.client as { pool?: Pool }).pool;
    // The collect callbacks run with the gauge as `this`: what they read of this instance, taken here.
    const workers = this.workers;
    const read = () => this.read();
    const watchPool = () => this.watchPool();
    new Gauge({
      name: `${p}db_pool_pending_acquires`,
      help: 'Queries waiting for a database connection right now',
      registers,
      collect() {
        watchPool();
        this.set(pool()?.numPendingAcquires() ?? 0);
      },
    });
    new Gauge({
      name: `${p}db_pool_connections`,
      help: "The pool's connections by state (used, free)",
      labelNames: ['state'],
      registers,
      collect() {
        this.set({ state: 'used' }, pool()?.numUsed() ?? 0);
        this.set({ state: 'free' }, pool()?.numFree() ?? 0);
      },
    });
    new Gauge({
      name: `${p}sales_in_flight`,
      help: "Sales this process's worker holds in memory (claimed, waiting on a payer or an aggregator)",
      registers,
      collect() {
        this.set([...workers].reduce((n, w) => n + w.holding, 0));
      },
    });
    new Gauge({
      name: `${p}worker_claim_limit`,
      help: "How many sales this process's worker claims at a time (the adaptive limit: lower while the database is slow)",
      registers,
      collect() {
        this.set([...workers].reduce((n, w) => n + w.limit.value, 0));
      },
    });

    // The database's figures: one snapshot per scrape (or per few seconds), shared by these gauges.
    const fromSnapshot = (name: string, help: string, labelNames: string[], fill: (g: Gauge<string>, s: Snapshot, now: number) => void) =>
      new Gauge({
        name: `${p}${name}`,
        help,
        labelNames,
        registers,
        async collect() {
          const s = await read();
          if (!s) return;
          if (labelNames.length) this.reset();
          fill(this, s, Date.now());
        },
      });
    fromSnapshot('sales', 'Sales by state: open ones (pending, processing, needs_review) now; settled ones all time (live sales)', ['state'], (g, s) => {
      for (const state of OPEN_STATES) g.set({ state }, 0);
      for (const r of s.sales) g.set({ state: r.state }, r.n);
    });
    fromSnapshot('oldest_unsure_sale_age_seconds', 'Age of the oldest open sale whose outcome a vendor has not told yet (0: none)', [], (g, s, now) =>
      g.set(secondsSince(s.oldestUnsure, now)),
    );
    fromSnapshot('review_backlog', 'Sales waiting for a person (needs_review)', [], (g, s) => g.set(s.sales.find((r) => r.state === 'needs_review')?.n ?? 0));
    fromSnapshot('review_oldest_age_seconds', 'How long the oldest sale in review has waited (0: none)', [], (g, s, now) =>
      g.set(secondsSince(s.oldestReview, now)),
    );
    fromSnapshot('webhook_outbox_backlog', 'Webhook events not delivered yet (pending)', [], (g, s) => g.set(s.webhookBacklog));
    fromSnapshot('webhook_outbox_oldest_age_seconds', 'Age of the oldest webhook event not delivered yet (0: none)', [], (g, s, now) =>
      g.set(secondsSince(s.oldestWebhook, now)),
    );
    fromSnapshot('aggregator_float_minor_units', "Each aggregator's float as last read, in minor units of its currency", ['aggregator', 'currency'], (g, s) => {
      for (const f of s.floats) g.set({ aggregator: f.aggregator, currency: f.currency }, f.balance);
    });
    this.watchPool();
  }

  /** The text Prometheus reads. */
  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /** A worker whose sales in flight and claim limit are shown (server.ts; a test's worker). */
  watchWorker(worker: WorkerGauges): () => void {
    this.workers.add(worker);
    return () => this.workers.delete(worker);
  }

  /** The pool's waits, timed from its own events (a pool made again after a destroy is watched at the next scrape). */
  private watchPool(): void {
    const pool = (this.knex.client as { pool?: Pool }).pool;
    if (!pool || this.watchedPools.has(pool)) return;
    this.watchedPools.add(pool);
    const waiting = new Map<unknown, number>();
    pool.on('acquireRequest', (id) => waiting.set(id, performance.now()));
    pool.on('acquireSuccess', (id) => {
      const started = waiting.get(id);
      if (started === undefined) return;
      waiting.delete(id);
      this.poolWaitSeconds.observe((performance.now() - started) / 1000);
    });
    pool.on('acquireFail', (id) => {
      waiting.delete(id);
      this.poolTimeouts.inc();
    });
  }

  /* ---------------- fed by fulfilment (FulfilmentObserver) ---------------- */

  prompted(createdAt: string | null | undefined): void {
    if (createdAt) this.tapToPrompt.observe(secondsSince(createdAt, Date.now()));
  }

  delivered(createdAt: string | null | undefined): void {
    if (createdAt) this.tapToDelivered.observe(secondsSince(createdAt, Date.now()));
  }

  lookedUp(vendor: string, answer: string): void {
    this.lookups.inc({ vendor, answer });
  }

  /** The remote-call trail, counted on its way: every vendor call of the adapters goes through it (remote-call.ts). */
  observeTrail(trail: RemoteTrail): RemoteTrail {
    return (rechargeId, call) => {
      const labels = { vendor: call.system, operation: call.operation, outcome: call.outcome };
      this.remoteCalls.inc(labels);
      this.remoteCallSeconds.observe(labels, call.durationMs / 1000);
      return trail(rechargeId, call);
    };
  }

  /* ---------------- HTTP ---------------- */

  /** Counts and times every answer; mounted first in the app so the storefront's fast path is counted too. */
  http(): RequestHandler {
    return (req, res, next) => {
      const started = performance.now();
      // The route's template is read when the router sets req.route (its baseUrl is right then; by the
      // time an error answer is sent the routers have unwound it).
      let route: { path?: unknown } | undefined;
      let template: string | undefined;
      Object.defineProperty(req, 'route', {
        configurable: true,
        enumerable: true,
        get: () => route,
        set: (value: { path?: unknown } | undefined) => {
          route = value;
          if (typeof value?.path === 'string') template = templateOf(req.baseUrl, value.path);
        },
      });
      res.once('finish', () => {
        const labels = { method: req.method, route: template ?? routeOf(req, res.statusCode), status: String(res.statusCode) };
        this.httpRequests.inc(labels);
        this.httpSeconds.observe(labels, (performance.now() - started) / 1000);
        if (res.statusCode === 503) this.unavailable.inc({ reason: unavailableReason(res.getHeader('retry-after')) });
      });
      next();
    };
  }

  /* ---------------- the database's figures ---------------- */

  /** The snapshot, read at most once per SNAPSHOT_MS; null when the database did not answer (the gauges keep their values). */
  private async read(): Promise<Snapshot | null> {
    const now = Date.now();
    if (!this.snapshot || now - this.snapshot.at >= this.snapshotMs) this.snapshot = { at: now, value: this.query() };
    try {
      return await this.snapshot.value;
    } catch {
      this.snapshot = null;
      this.scrapeErrors.inc();
      return null;
    }
  }

  private async query(): Promise<Snapshot> {
    const db = this.knex;
    const [open, settled, unsure, review, outbox, floats] = await Promise.all([
      db('recharges').whereIn('status', OPEN_STATES).groupBy('status').select('status').count({ n: '*' }),
      db('recharge_day_totals').groupBy('status').select('status').sum({ n: 'sales' }),
      db('recharges').whereIn('status', ['pending', 'processing']).whereNotNull('unsure_since').min({ at: 'unsure_since' }).first(),
      db('recharges').where('status', 'needs_review').min({ at: 'needs_review_at' }).first(),
      db('webhook_events').where('status', 'pending').count({ n: '*' }).min({ at: 'created_at' }).first(),
      db('aggregator_floats').whereNotNull('balance').select('aggregator', 'currency', 'balance'),
    ]);
    const rows = (list: unknown[]) => (list as { status: string; n: number | string | null }[]).map((r) => ({ state: r.status, n: Number(r.n ?? 0) }));
    return {
      sales: [...rows(open), ...rows(settled)],
      oldestUnsure: (unsure as { at: string | null } | undefined)?.at ?? null,
      oldestReview: (review as { at: string | null } | undefined)?.at ?? null,
      webhookBacklog: Number((outbox as { n?: number | string } | undefined)?.n ?? 0),
      oldestWebhook: (outbox as { at: string | null } | undefined)?.at ?? null,
      floats: (floats as { aggregator: string; currency: string | null; balance: number | string }[]).map((f) => ({
        aggregator: f.aggregator,
        currency: f.currency ?? '',
        balance: Number(f.balance),
      })),
    };
  }
}

/** Paths the API answers without a route (the storefront's cached reads) are few and fixed; anything else is grouped. */
const PLAIN_API_PATH = /^\/api\/[a-z0-9/-]{1,80}$/;

/**
 * A request's route as a template (`/api/v1/recharges/:id`), never its raw path, so the label's
 * values stay few: unknown paths are `unmatched`, pages and files outside the API `static`.
 */
export function routeOf(req: Request, status: number): string {
  const path = req.route?.path;
  if (typeof path === 'string') return templateOf(req.baseUrl, path);
  if (status === 404) return 'unmatched';
  const url = req.originalUrl.split('?')[0];
  if (!url.startsWith('/api/')) return 'static';
  // Only a success names its path: a refusal before routing (a 429) may be anyone's made-up path.
  return status < 400 && PLAIN_API_PATH.test(url) && !/\/\d/.test(url) ? url.toLowerCase() : 'other';
}

/**
 * A route's full template: the routers' mount path and the route's own. The mount path as the
 * request spelled it, so lower-cased: Express matches /API/v1 too, and each spelling must not make
 * a label (and a histogram) of its own.
 */
const templateOf = (baseUrl: string, path: string) => `${baseUrl.toLowerCase()}${path === '/' && baseUrl ? '' : path}`;

/** Why a 503 was answered, from its Retry-After (unit-of-work.ts gives each database trouble its own). */
function unavailableReason(retryAfter: unknown): string {
  if (String(retryAfter) === String(RETRY_AFTER_SECONDS.unavailable)) return 'database_unavailable';
  if (String(retryAfter) === String(RETRY_AFTER_SECONDS.busy)) return 'database_busy';
  return 'other';
}
