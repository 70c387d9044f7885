import { Worker } from 'node:worker_threads';
import type pino from 'pino';
import { z } from 'zod';
import { waafiPayAdapter, type PaymentAdapter } from './adapters/payment-adapter.ts';
import { PaymentGateways } from './adapters/payment-gateways.ts';
import { reloadlyAdapter, type OperatorAdapter } from './adapters/operator-adapter.ts';
import { dtOneAdapter } from './adapters/dtone-adapter.ts';
import { edahabAdapter } from './adapters/edahab-adapter.ts';
import type { FetchLike, RemoteTrail } from './adapters/remote-call.ts';
import { vendorFetch } from './adapters/vendor-http.ts';
import { startStandInServer, inProcessFetch, type RunningStandIn } from './stand-ins/stand-in-server.ts';
import { WAAFIPAY_STAND_IN_CREDENTIALS, type WaafiPayStandIn } from './stand-ins/waafipay-stand-in.ts';
import { RELOADLY_STAND_IN_CREDENTIALS, type ReloadlyStandIn } from './stand-ins/reloadly-stand-in.ts';
import { DTONE_STAND_IN_CREDENTIALS, type DtOneStandIn } from './stand-ins/dtone-stand-in.ts';
import { EDAHAB_STAND_IN_CREDENTIALS, type EdahabStandIn } from './stand-ins/edahab-stand-in.ts';
import { checkStandInRates, createStandIns, standInEnvShape, standInOptionsFrom, type StandInOptions } from './stand-ins/stand-in-config.ts';

/**
 * The payment gateway and the operators' aggregator a running server talks to (docs/integrations.md,
 * "Configuration"). With no configuration, both are the embedded stand-ins: small HTTP servers on
 * loopback that speak WaafiPay's and Reloadly's protocols with the README's test numbers, so the
 * default path runs the real adapters' code. Setting WAAFIPAY_URL / RELOADLY_API_URL (with their
 * credentials) points the same adapters at the vendors' sandboxes or production.
 */
const num = (fallback: number) => z.coerce.number().int().min(0).default(fallback);
const text = z.string().trim().min(1).optional();

export const moneyEnvSchema = z
  .object({
    ...standInEnvShape,
    PAYMENT_ADAPTER: z.enum(['waafipay', 'sandbox']).default('waafipay'),
    /** `inprocess`: the embedded stand-ins are called with no network hop (the benchmark's reference). */
    STAND_INS_TRANSPORT: z.enum(['http', 'inprocess']).default('http'),
    WAAFIPAY_URL: z.string().url().optional(),
    WAAFIPAY_MERCHANT_UID: text,
    WAAFIPAY_API_USER_ID: text,
    WAAFIPAY_API_KEY: text,
    WAAFIPAY_STORE_ID: text,
    WAAFIPAY_HPP_KEY: text,
    WAAFIPAY_MODE: z.enum(['preauthorize', 'purchase']).default('preauthorize'),
    RELOADLY_AUTH_URL: z.string().url().optional(),
    RELOADLY_API_URL: z.string().url().optional(),
    RELOADLY_CLIENT_ID: text,
    RELOADLY_CLIENT_SECRET: text,
    /** DT One's DVS API with its version, e.g. https://dvs-api.dtone.com/v1 (unset: the stand-in). */
    DTONE_API_URL: z.string().url().optional(),
    DTONE_API_KEY: text,
    DTONE_API_SECRET: text,
    /** eDahab's API base, e.g. https://edahab.net/api/api (unset: the stand-in). */
    EDAHAB_API_URL: z.string().url().optional(),
    EDAHAB_API_KEY: text,
    EDAHAB_API_SECRET: text,
    EDAHAB_AGENT_CODE: text,
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
    if (env.PAYMENT_ADAPTER === 'waafipay' && env.WAAFIPAY_URL) {
      for (const key of ['WAAFIPAY_MERCHANT_UID', 'WAAFIPAY_API_USER_ID', 'WAAFIPAY_API_KEY', 'WAAFIPAY_STORE_ID', 'WAAFIPAY_HPP_KEY'] as const) {
        if (!env[key]) ctx.addIssue({ code: 'custom', path: [key], message: `${key} is required with WAAFIPAY_URL` });
      }
    }
    if (env.RELOADLY_API_URL) {
      for (const key of ['RELOADLY_AUTH_URL', 'RELOADLY_CLIENT_ID', 'RELOADLY_CLIENT_SECRET'] as const) {
        if (!env[key]) ctx.addIssue({ code: 'custom', path: [key], message: `${key} is required with RELOADLY_API_URL` });
      }
    }
    if (env.DTONE_API_URL) {
      for (const key of ['DTONE_API_KEY', 'DTONE_API_SECRET'] as const) {
        if (!env[key]) ctx.addIssue({ code: 'custom', path: [key], message: `${key} is required with DTONE_API_URL` });
      }
    }
    if (env.EDAHAB_API_URL) {
      for (const key of ['EDAHAB_API_KEY', 'EDAHAB_API_SECRET', 'EDAHAB_AGENT_CODE'] as const) {
        if (!env[key]) ctx.addIssue({ code: 'custom', path: [key], message: `${key} is required with EDAHAB_API_URL` });
      }
    }
  });
export type MoneyEnv = z.infer<typeof moneyEnvSchema>;

export function readMoneyEnv(env: NodeJS.ProcessEnv = process.env): MoneyEnv {
  const parsed = moneyEnvSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (!parsed.success)
    throw new Error(`Invalid payment/operator configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  // Real bundles must be paid by a real gateway: in production, a live aggregator beside the
  // stand-in gateway (which approves every test number) would deliver for nothing.
  const livePayment = parsed.data.PAYMENT_ADAPTER === 'waafipay' && !!parsed.data.WAAFIPAY_URL;
  if (env.NODE_ENV === 'production' && (parsed.data.RELOADLY_API_URL || parsed.data.DTONE_API_URL) && !livePayment) {
    throw new Error(
      'Invalid payment/operator configuration: RELOADLY_API_URL or DTONE_API_URL delivers real bundles, so NODE_ENV=production needs WAAFIPAY_URL and its credentials too (the embedded stand-in gateway never collects money)',
    );
  }
  return parsed.data;
}

/** Where the stand-ins answer; the in-thread ones can also be inspected and given faults (tests). */
export interface StandInEndpoints {
  waafipayUrl: string;
  reloadlyUrl: string;
  /** DT One's stand-in, with its /v1. */
  dtoneUrl: string;
  /** eDahab's stand-in, with its /api/api. */
  edahabUrl: string;
  fetch: FetchLike | null;
  close(): Promise<void>;
}

/** The server's embedded stand-ins, on a worker thread (see stand-ins-thread.ts). */
export async function startStandInsThread(opts: StandInOptions): Promise<StandInEndpoints> {
  // Run from TypeScript sources, the thread registers the TypeScript loader itself (it is per thread).
  const entry = import.meta.url.endsWith('.ts') ? './stand-ins/stand-ins-thread.mjs' : './stand-ins/stand-ins-thread.js';
  const worker = new Worker(new URL(entry, import.meta.url), { workerData: opts });
  const urls = await new Promise<{ waafipay: string; reloadly: string; dtone: string; edahab: string }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  worker.unref();
  return {
    waafipayUrl: `${urls.waafipay}/asm`,
    reloadlyUrl: urls.reloadly,
    dtoneUrl: `${urls.dtone}/v1`,
    edahabUrl: `${urls.edahab}/api/api`,
    fetch: null,
    close: async () => {
      await worker.terminate();
    },
  };
}

export interface StandIns extends StandInEndpoints {
  waafipay: WaafiPayStandIn;
  reloadly: ReloadlyStandIn;
  dtone: DtOneStandIn;
  edahab: EdahabStandIn;
  /** The loopback servers; null when `inProcess` (no network hop, for the benchmark's comparison). */
  servers: { waafipay: RunningStandIn; reloadly: RunningStandIn; dtone: RunningStandIn; edahab: RunningStandIn } | null;
}

/**
 * Starts the two stand-ins on loopback (or, `inProcess`, calls their handlers with no network,
 * through a fetch-shaped function: the same protocol code, without the HTTP hop).
 */
export async function startStandIns(opts: StandInOptions & { inProcess?: boolean }): Promise<StandIns> {
  const { waafipay, reloadly, dtone, edahab } = createStandIns(opts);
  if (opts.inProcess) {
    const pay = inProcessFetch(waafipay.handle);
    const op = inProcessFetch(reloadly.combinedHandle);
    const dt = inProcessFetch(dtone.handle);
    const ed = inProcessFetch(edahab.handle);
    const routed: FetchLike = (url, init) =>
      url.startsWith('http://waafipay.local')
        ? pay(url, init)
        : url.startsWith('http://dtone.local')
          ? dt(url, init)
          : url.startsWith('http://edahab.local')
            ? ed(url, init)
            : op(url, init);
    return {
      waafipay,
      reloadly,
      dtone,
      edahab,
      servers: null,
      waafipayUrl: 'http://waafipay.local/asm',
      reloadlyUrl: 'http://reloadly.local',
      dtoneUrl: 'http://dtone.local/v1',
      edahabUrl: 'http://edahab.local/api/api',
      fetch: routed,
      close: async () => undefined,
    };
  }
  const servers = {
    waafipay: await startStandInServer(waafipay.handle, { port: opts.ports?.waafipay }),
    reloadly: await startStandInServer(reloadly.combinedHandle, { port: opts.ports?.reloadly }),
    dtone: await startStandInServer(dtone.handle, { port: opts.ports?.dtone }),
    edahab: await startStandInServer(edahab.handle, { port: opts.ports?.edahab }),
  };
  return {
    waafipay,
    reloadly,
    dtone,
    edahab,
    servers,
    waafipayUrl: `${servers.waafipay.url}/asm`,
    reloadlyUrl: servers.reloadly.url,
    dtoneUrl: `${servers.dtone.url}/v1`,
    edahabUrl: `${servers.edahab.url}/api/api`,
    fetch: null,
    close: async () => {
      await Promise.all([servers.waafipay.close(), servers.reloadly.close(), servers.dtone.close(), servers.edahab.close()]);
    },
  };
}

export interface MoneyAdapters {
  /** The gateway new sales are charged through. */
  payment: PaymentAdapter;
  /** Every gateway this process knows, by the name a sale records (the worker, the reconciliation and refunds use it). */
  gateways: PaymentGateways;
  operators: Record<string, OperatorAdapter>;
  standIns: StandInEndpoints;
  /** Which systems are real (for the start banner and the logs). */
  describe: string;
  close(): Promise<void>;
}

/** The adapters a server runs with, from its environment (stand-ins where nothing is configured). */
export async function moneyAdapters(env: MoneyEnv, deps: { trail: RemoteTrail; logger?: pino.Logger; standIns?: StandInEndpoints }): Promise<MoneyAdapters> {
  // Always there: providers on the `sandbox` adapter (the demo's) deliver through it whatever is configured.
  const standIns =
    deps.standIns ??
    (env.STAND_INS_TRANSPORT === 'inprocess'
      ? await startStandIns({ ...standInOptionsFrom(env), inProcess: true })
      : await startStandInsThread(standInOptionsFrom(env)));
  const standInFetch = standIns.fetch ?? undefined;
  // One keep-alive pool per vendor (adapters/vendor-http.ts); the in-process stand-ins need none.
  const gatewayHttp = standInFetch ?? vendorFetch({ connections: env.VENDOR_HTTP_CONNECTIONS });
  const aggregatorHttp = standInFetch ?? vendorFetch({ connections: env.VENDOR_HTTP_CONNECTIONS });
  const livePayment = env.PAYMENT_ADAPTER === 'waafipay' && env.WAAFIPAY_URL;
  // The embedded stand-in is always there as the `sandbox` gateway, so sales it took are still
  // settled through it after a real gateway is configured (adapters/payment-gateways.ts).
  const sandboxPayment = waafiPayAdapter(
    {
      url: standIns.waafipayUrl,
      ...WAAFIPAY_STAND_IN_CREDENTIALS,
      flow: env.WAAFIPAY_MODE,
      chargeTimeoutMs: env.PAYMENT_TIMEOUT_MS,
      timeoutMs: env.PAYMENT_CALL_TIMEOUT_MS,
    },
    { trail: deps.trail, fetch: gatewayHttp, name: 'sandbox' },
  );
  const payment = livePayment
    ? waafiPayAdapter(
        {
          url: env.WAAFIPAY_URL!,
          merchantUid: env.WAAFIPAY_MERCHANT_UID!,
          apiUserId: env.WAAFIPAY_API_USER_ID!,
          apiKey: env.WAAFIPAY_API_KEY!,
          storeId: env.WAAFIPAY_STORE_ID!,
          hppKey: env.WAAFIPAY_HPP_KEY!,
          flow: env.WAAFIPAY_MODE,
          chargeTimeoutMs: env.PAYMENT_TIMEOUT_MS,
          timeoutMs: env.PAYMENT_CALL_TIMEOUT_MS,
        },
        { trail: deps.trail, fetch: gatewayHttp },
      )
    : sandboxPayment;
  // eDahab (a method whose gateway is `edahab`): the real one at EDAHAB_API_URL, else its stand-in.
  const edahabHttp = standInFetch ?? vendorFetch({ connections: env.VENDOR_HTTP_CONNECTIONS });
  const edahabStandIn = edahabAdapter(
    { apiUrl: standIns.edahabUrl, ...EDAHAB_STAND_IN_CREDENTIALS, chargeTimeoutMs: env.PAYMENT_TIMEOUT_MS, timeoutMs: env.PAYMENT_CALL_TIMEOUT_MS },
    { trail: deps.trail, fetch: edahabHttp },
  );
  const edahab = env.EDAHAB_API_URL
    ? edahabAdapter(
        {
          apiUrl: env.EDAHAB_API_URL,
          apiKey: env.EDAHAB_API_KEY!,
          apiSecret: env.EDAHAB_API_SECRET!,
          agentCode: env.EDAHAB_AGENT_CODE!,
          // eDahab's call waits for the payer's PIN: allow it about two minutes (a lost answer goes to a person).
          chargeTimeoutMs: Math.max(env.PAYMENT_TIMEOUT_MS, 120_000),
          timeoutMs: env.PAYMENT_CALL_TIMEOUT_MS,
        },
        { trail: deps.trail, fetch: edahabHttp },
      )
    : livePayment
      ? // A shop with a real gateway takes no play money (as the `sandbox` gateway is refused,
        // fulfilment/sale-steps.ts): the stand-in still answers about the sales it took, but charges no new one.
        noNewCharges(
          edahabStandIn,
          'eDahab is not configured here (EDAHAB_API_URL), and its stand-in takes no payments while a real gateway is: set this payment method to another gateway, or configure eDahab.',
        )
      : edahabStandIn;
  // A payment method set to `waafipay` is charged through the stand-in while no real WaafiPay is configured.
  const gateways = new PaymentGateways(payment, [sandboxPayment, edahab], livePayment ? {} : { waafipay: 'sandbox' });
  const sandboxOperator = reloadlyAdapter(
    {
      authUrl: `${standIns.reloadlyUrl}/oauth/token`,
      apiUrl: standIns.reloadlyUrl,
      clientId: RELOADLY_STAND_IN_CREDENTIALS.clientId,
      clientSecret: RELOADLY_STAND_IN_CREDENTIALS.clientSecret,
      timeoutMs: env.OPERATOR_TIMEOUT_MS,
    },
    { trail: deps.trail, fetch: aggregatorHttp, name: 'sandbox' },
  );
  const liveOperator = env.RELOADLY_API_URL
    ? reloadlyAdapter(
        {
          authUrl: env.RELOADLY_AUTH_URL!,
          apiUrl: env.RELOADLY_API_URL,
          clientId: env.RELOADLY_CLIENT_ID!,
          clientSecret: env.RELOADLY_CLIENT_SECRET!,
          timeoutMs: env.OPERATOR_TIMEOUT_MS,
        },
        { trail: deps.trail, fetch: aggregatorHttp },
      )
    : reloadlyAdapter(
        {
          authUrl: `${standIns.reloadlyUrl}/oauth/token`,
          apiUrl: standIns.reloadlyUrl,
          clientId: RELOADLY_STAND_IN_CREDENTIALS.clientId,
          clientSecret: RELOADLY_STAND_IN_CREDENTIALS.clientSecret,
          timeoutMs: env.OPERATOR_TIMEOUT_MS,
        },
        { trail: deps.trail, fetch: aggregatorHttp, name: 'reloadly' },
      );
  // DT One, the second aggregator: a provider whose adapter is `dtone` delivers through it.
  const dtone = dtOneAdapter(
    env.DTONE_API_URL
      ? { apiUrl: env.DTONE_API_URL, apiKey: env.DTONE_API_KEY!, apiSecret: env.DTONE_API_SECRET!, timeoutMs: env.OPERATOR_TIMEOUT_MS }
      : { apiUrl: standIns.dtoneUrl, ...DTONE_STAND_IN_CREDENTIALS, timeoutMs: env.OPERATOR_TIMEOUT_MS },
    { trail: deps.trail, fetch: aggregatorHttp },
  );
  const standInsAt = standIns.fetch
    ? 'in process'
    : `${standIns.waafipayUrl}, ${standIns.reloadlyUrl} and ${standIns.edahabUrl} (their books: GET /_standin/books)`;
  const eDahabIs = env.EDAHAB_API_URL ?? (livePayment ? 'stand-in, no new charges' : 'stand-in');
  const describe = `payment: WaafiPay ${livePayment ? env.WAAFIPAY_URL : 'stand-in'} (${env.WAAFIPAY_MODE}; gateways known: ${gateways.names().join(', ')}), eDahab ${eDahabIs}; operators: Reloadly ${env.RELOADLY_API_URL ?? 'stand-in'}, DT One ${env.DTONE_API_URL ?? 'stand-in'}; stand-ins ${standInsAt}`;
  return { payment, gateways, operators: { sandbox: sandboxOperator, reloadly: liveOperator, dtone }, standIns, describe, close: () => standIns.close() };
}

/** A gateway that answers about the payments it took but charges no new one: declined, nothing sent. */
function noNewCharges(gateway: PaymentAdapter, why: string): PaymentAdapter {
  return { ...gateway, charge: async () => ({ status: 'declined', code: 'not_configured', message: why }) };
}
