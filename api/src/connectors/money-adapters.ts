import { Worker } from 'node:worker_threads';
import type pino from 'pino';
import { z } from 'zod';
import type { PaymentAdapter } from './payments/payment-adapter.ts';
import { PaymentGateways } from './payments/payment-gateways.ts';
import type { OperatorAdapter } from './deliveries/operator-adapter.ts';
import type { FetchLike, RemoteTrail } from './remote-call.ts';
import { vendorFetch } from './vendor-http.ts';
import { inProcessFetch, type RunningStandIn, type StandInHandler } from './stand-ins/stand-in-server.ts';
import { startStandInServers } from './stand-ins/stand-in-servers.ts';
import { checkStandInRates, createStandIns, standInEnvShape, standInOptionsFrom, type StandInOptions } from './stand-ins/stand-in-config.ts';
import { isLive, type BuildContext } from './connector.ts';
import { DELIVERY_CONNECTORS, PAYMENT_CONNECTORS, STAND_IN_NAMES, STAND_INS, type StandInName, type StandInsByName } from './registry.ts';
import { waafipayConnector } from './payments/waafipay/waafipay-connector.ts';
import { edahabConnector } from './payments/edahab/edahab-connector.ts';

/**
 * The payment gateways and aggregators a running server talks to (docs/integrations.md,
 * "Configuration"): every connector of the registry (registry.ts). With no configuration, each is
 * its embedded stand-in: a small HTTP server on loopback that speaks its vendor's protocol with the
 * README's test numbers, so the default path runs the real adapters' code. Setting a connector's URL
 * (WAAFIPAY_URL, EDAHAB_API_URL, RELOADLY_API_URL, DTONE_API_URL, with their credentials) points the
 * same adapter at the vendor's sandbox or production.
 */
const num = (fallback: number) => z.coerce.number().int().min(0).default(fallback);
const CONNECTORS = [...PAYMENT_CONNECTORS, ...DELIVERY_CONNECTORS];

export const moneyEnvSchema = z
  .object({
    ...standInEnvShape,
    // Each connector's own settings (waafipay-connector.ts: WAAFIPAY_*, edahab-connector.ts: EDAHAB_* ...).
    ...(Object.assign({}, ...CONNECTORS.map((c) => c.env)) as z.ZodRawShape),
    PAYMENT_ADAPTER: z.enum(['waafipay', 'sandbox']).default('waafipay'),
    /** `inprocess`: the embedded stand-ins are called with no network hop (the benchmark's reference). */
    STAND_INS_TRANSPORT: z.enum(['http', 'inprocess']).default('http'),
    WAAFIPAY_MODE: z.enum(['preauthorize', 'purchase']).default('preauthorize'),
    PAYMENT_TIMEOUT_MS: num(90_000),
    PAYMENT_CALL_TIMEOUT_MS: num(15_000),
    OPERATOR_TIMEOUT_MS: num(30_000),
    // Latency-bound (a PIN prompt takes seconds): thousands of sales in flight, a socket and a timer each.
    RECHARGE_WORKER_CONCURRENCY: num(10_000),
    RECHARGE_LEASE_MS: num(180_000),
    RECHARGE_REVIEW_AFTER_MS: num(15 * 60_000),
    RECHARGE_RETRY_BASE_MS: num(1000),
    RECHARGE_RECONCILE_MS: num(5_000),
    RECHARGE_CHECK_MAX_MS: num(180_000),
    RECHARGE_DOWN_VENDOR_LOOKUPS_PER_MINUTE: num(30),
    // A charge holds a socket while its payer reads the prompt: the pool must take every payer at once.
    VENDOR_HTTP_CONNECTIONS: z.coerce.number().int().min(1).default(8192),
  })
  .superRefine((env, ctx) => {
    checkStandInRates(env, ctx);
    // A connector pointed at its vendor needs its credentials (WaafiPay's only when it is the gateway in use).
    const values = env as Record<string, unknown>;
    for (const c of CONNECTORS) {
      if (!isLive(c, values) || (c === waafipayConnector && env.PAYMENT_ADAPTER !== 'waafipay')) continue;
      for (const key of c.requiredWhenLive) if (!values[key]) ctx.addIssue({ code: 'custom', path: [key], message: `${key} is required with ${c.liveUrlKey}` });
    }
  });
/** The common settings typed; each connector's own (WAAFIPAY_URL ...) read by name. */
export type MoneyEnv = z.infer<typeof moneyEnvSchema> & { [key: string]: unknown };

export function readMoneyEnv(env: NodeJS.ProcessEnv = process.env): MoneyEnv {
  const parsed = moneyEnvSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (!parsed.success)
    throw new Error(`Invalid payment/operator configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  // Real bundles must be paid by a real gateway: in production, a live aggregator beside the
  // stand-in gateway (which approves every test number) would deliver for nothing.
  const livePayment = parsed.data.PAYMENT_ADAPTER === 'waafipay' && isLive(waafipayConnector, parsed.data);
  if (env.NODE_ENV === 'production' && DELIVERY_CONNECTORS.some((c) => isLive(c, parsed.data)) && !livePayment) {
    throw new Error(
      'Invalid payment/operator configuration: RELOADLY_API_URL or DTONE_API_URL delivers real bundles, so NODE_ENV=production needs WAAFIPAY_URL and its credentials too (the embedded stand-in gateway never collects money)',
    );
  }
  return parsed.data;
}

/** Where the stand-ins answer, by name (`urls.waafipay`, or `waafipayUrl`: each adapter's base); the in-thread ones can also be inspected and given faults (tests). */
export type StandInEndpoints = { [K in StandInName as `${K}Url`]: string } & {
  urls: Record<StandInName, string>;
  fetch: FetchLike | null;
  close(): Promise<void>;
};

const endpoints = (urls: Record<StandInName, string>, fetch: FetchLike | null, close: () => Promise<void>): StandInEndpoints =>
  ({ ...Object.fromEntries(STAND_IN_NAMES.map((n) => [`${n}Url`, urls[n]])), urls, fetch, close }) as StandInEndpoints;

/** The server's embedded stand-ins, on a worker thread (see stand-ins-thread.ts). */
export async function startStandInsThread(opts: StandInOptions): Promise<StandInEndpoints> {
  // Run from TypeScript sources, the thread registers the TypeScript loader itself (it is per thread).
  const entry = import.meta.url.endsWith('.ts') ? './stand-ins/stand-ins-thread.mjs' : './stand-ins/stand-ins-thread.js';
  const worker = new Worker(new URL(entry, import.meta.url), { workerData: opts });
  const urls = await new Promise<Record<StandInName, string>>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  worker.unref();
  return endpoints(urls, null, async () => {
    await worker.terminate();
  });
}

export type StandIns = StandInEndpoints &
  StandInsByName & {
    /** The loopback servers; null when `inProcess` (no network hop, for the benchmark's comparison). */
    servers: Record<StandInName, RunningStandIn> | null;
  };

/**
 * Starts every stand-in of the registry on loopback (or, `inProcess`, calls their handlers with no
 * network, through a fetch-shaped function addressed to http://<name>.local: the same protocol
 * code, without the HTTP hop).
 */
export async function startStandIns(opts: StandInOptions & { inProcess?: boolean }): Promise<StandIns> {
  const standIns = createStandIns(opts);
  if (opts.inProcess) {
    const byHost = new Map(
      STAND_IN_NAMES.map((n) => [`${n}.local`, inProcessFetch((STAND_INS[n] as { handler(s: unknown): StandInHandler }).handler(standIns[n]))]),
    );
    const routed: FetchLike = (url, init) => {
      const to = byHost.get(new URL(url).host);
      if (!to) throw new Error(`No stand-in answers ${url}`);
      return to(url, init);
    };
    const urls = Object.fromEntries(STAND_IN_NAMES.map((n) => [n, `http://${n}.local${STAND_INS[n].path}`])) as Record<StandInName, string>;
    return { ...standIns, ...endpoints(urls, routed, async () => undefined), servers: null };
  }
  const running = await startStandInServers(standIns, opts.ports);
  return { ...standIns, ...endpoints(running.urls, null, running.close), servers: running.servers };
}

export interface MoneyAdapters {
  /** The gateway new sales are charged through. */
  payment: PaymentAdapter;
  /** Every gateway this process knows, by the name a sale records (the worker, the reconciliation and refunds use it). */
  gateways: PaymentGateways;
  operators: Record<string, OperatorAdapter>;
  standIns: StandInEndpoints;
  /** The connectors pointed at their real vendor (the others speak to their stand-ins). */
  live: string[];
  /**
   * Whether an aggregator may deliver a sale: any while no real gateway is configured; only a real
   * one while payments are real (a stand-in would "deliver" a paid bundle that never arrives).
   */
  usableAggregator(name: string): boolean;
  /** Which systems are real (for the start banner and the logs). */
  describe: string;
  close(): Promise<void>;
}

/**
 * The adapters a server runs with, from its environment: every connector of the registry
 * (registry.ts), each on its real vendor where configured, else on its embedded stand-in.
 */
export async function moneyAdapters(env: MoneyEnv, deps: { trail: RemoteTrail; logger?: pino.Logger; standIns?: StandInEndpoints }): Promise<MoneyAdapters> {
  const standIns =
    deps.standIns ??
    (env.STAND_INS_TRANSPORT === 'inprocess'
      ? await startStandIns({ ...standInOptionsFrom(env), inProcess: true })
      : await startStandInsThread(standInOptionsFrom(env)));
  const standInFetch = standIns.fetch ?? undefined;
  const livePayment = env.PAYMENT_ADAPTER === 'waafipay' && isLive(waafipayConnector, env);
  // One keep-alive pool per connector (vendor-http.ts); the in-process stand-ins need none.
  const context = (): BuildContext => ({
    env,
    trail: deps.trail,
    http: standInFetch ?? vendorFetch({ connections: env.VENDOR_HTTP_CONNECTIONS }),
    standInUrls: standIns.urls,
    livePayment,
  });
  const payments = PAYMENT_CONNECTORS.map((c) => c.build(context())).filter((a): a is PaymentAdapter => a !== null);
  const byName = new Map(payments.map((a) => [a.name, a]));
  // New sales go through the configured gateway; a method set to `waafipay` is charged through the
  // sandbox while no real WaafiPay is configured (payment-gateways.ts).
  const payment = byName.get(livePayment ? 'waafipay' : 'sandbox')!;
  const gateways = new PaymentGateways(payment, payments, livePayment ? {} : { waafipay: 'sandbox' });
  const operators = Object.fromEntries(DELIVERY_CONNECTORS.map((c) => [c.name, c.build(context())]));
  const live = [...PAYMENT_CONNECTORS, ...DELIVERY_CONNECTORS].filter((c) => isLive(c, env)).map((c) => c.name);
  const standInsAt = standIns.fetch ? 'in process' : `${Object.values(standIns.urls).join(', ')} (their books: GET /_standin/books)`;
  const edahabNote = !isLive(edahabConnector, env) && livePayment ? ' (eDahab stand-in, no new charges)' : '';
  const describe = `payment: ${payment.name} (${env.WAAFIPAY_MODE}; gateways known: ${gateways.names().join(', ')})${edahabNote}; operators: ${Object.keys(operators).join(', ')}; live: ${live.join(', ') || 'none (every vendor is its stand-in)'}; stand-ins ${standInsAt}`;
  const usableAggregator = (name: string) => name in operators && (!livePayment || live.includes(name));
  return { payment, gateways, operators, standIns, live, usableAggregator, describe, close: () => standIns.close() };
}
