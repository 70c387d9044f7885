import { expect } from 'vitest';
import { bearer, PNG_1PX, type Harness } from '../../../tests/api/harness.ts';
import { RechargeWorker, type WorkerOptions } from './recharge-worker.ts';
import { moneyAdapters, readMoneyEnv, startStandIns, type MoneyAdapters, type StandIns } from '../connectors/money-adapters.ts';
import { databaseTrail } from './remote-calls.ts';
import type { PaymentAdapter } from '../connectors/payments/payment-adapter.ts';
import { waafiPayAdapter } from '../connectors/payments/waafipay/waafipay-adapter.ts';
import { WAAFIPAY_STAND_IN_CREDENTIALS } from '../connectors/payments/waafipay/waafipay-stand-in.ts';
import type { RechargeMoney } from './recharge.routes.ts';

/**
 * A shop ready to sell, for the recharge tests: a dealer (cost or profit model) offering one
 * Hormuud bundle (cost 0.40, its price 0.55), with a payment method, and a worker whose sandboxes
 * answer in milliseconds.
 */
export interface Shop {
  dealerId: number;
  code: string;
  token: string;
  walletId: number;
  bundleId: number;
  methodId: number;
}

let made = 0;
export async function makeShop(h: Harness, root: string, pricing: 'cost' | 'profit', opts: { balance?: string } = {}): Promise<Shop> {
  made += 1;
  const code = `SHOP${made}${pricing.toUpperCase()}${Date.now() % 100000}`;
  const email = `${code.toLowerCase()}@test.example`;
  const user = await h
    .http()
    .post('/api/v1/users')
    .set(bearer(root))
    .field('name', `Shop ${code}`)
    .field('email', email)
    .field('password', 'Secret@1234')
    .field('password_confirmation', 'Secret@1234')
    .field('user_type', 'dealer')
    .field('dealer_code', code)
    .field('pricing_model', pricing)
    .attach('dealer_logo', PNG_1PX, 'l.png');
  expect(user.status).toBe(201);
  const dealerId = user.body.data.id as number;
  const token = await h.login(email, 'Secret@1234');
  let provider = await h.knex('providers').where({ code: 'HORSHOP' }).first();
  if (!provider) {
    const p = await h
      .http()
      .post('/api/v1/internet-providers')
      .set(bearer(root))
      .send({ name: 'Hormuud', code: 'HORSHOP', phone_prefixes: ['61', '77'] });
    provider = p.body.data;
  }
  const c = await h
    .http()
    .post('/api/v1/internet-categories')
    .set(bearer(root))
    .send({ provider_id: provider.id, name: `Daily ${code}` });
  const b = await h
    .http()
    .post('/api/v1/bundles')
    .set(bearer(root))
    .send({
      category_id: c.body.data.id,
      name: `1 GB ${code}`,
      data_volume_mb: 1024,
      validity_days: 1,
      cost_price: '0.40',
      selling_price: '0.50',
      operator_product_code: 'HOR-1GB',
    });
  expect((await h.http().patch(`/api/v1/dealer-bundles/${b.body.data.id}`).set(bearer(token)).send({ status: 'active', selling_price: '0.55' })).status).toBe(
    200,
  );
  const m = await h
    .http()
    .post('/api/v1/payment-methods')
    .set(bearer(pricing === 'cost' ? token : root))
    .send({ name: 'EVC Plus', type: 'evc_plus', account_number: '615000000' });
  expect(m.status).toBe(201);
  const walletId = (await h.knex('wallets').where({ dealer_id: dealerId, mode: 'live' }).first()).id as number;
  if (opts.balance) await h.http().post(`/api/v1/wallets/${walletId}/top-up`).set(bearer(root)).send({ amount: opts.balance, reference: 'seed' });
  return { dealerId, code, token, walletId, bundleId: b.body.data.id, methodId: m.body.data.id };
}

export function buy(
  h: Harness,
  shop: Shop,
  body: Partial<{ phone: string; payer_phone: string; idempotency_key: string; bundle_id: number; payment_method_id: number }> = {},
) {
  return h
    .http()
    .post('/api/v1/client/recharge')
    .set('dealer_code', shop.code)
    .send({
      bundle_id: shop.bundleId,
      payment_method_id: shop.methodId,
      phone: '0615123456',
      payer_phone: '+252 61 7000021',
      idempotency_key: `key-${Math.random().toString(36).slice(2)}-${Date.now()}`,
      ...body,
    });
}

export interface MoneyKit extends MoneyAdapters {
  standIns: StandIns;
  /** A worker on the kit's adapters (more can be made with `newWorker`). */
  worker: RechargeWorker;
  newWorker: (overrides?: Partial<WorkerOptions>) => RechargeWorker;
}

/**
 * The real adapters against the stand-ins over loopback HTTP (or `inProcess`), answering in
 * milliseconds, with a worker whose waits are short: what a test needs to run a sale to its end.
 * Pass `money` (the object given to createHarness) to let the routes reach the gateway.
 */
export async function moneyKit(
  h: Harness,
  opts: {
    flow?: 'preauthorize' | 'purchase';
    reviewAfterMs?: number;
    paymentTimeoutMs?: number;
    inProcess?: boolean;
    /** How long a lookup, commit, cancel or top-up call waits for its answer (default 400 ms). */
    callTimeoutMs?: number;
    /** How long a charge waits for the payer's PIN (default 1.5 s). */
    chargeTimeoutMs?: number;
    /** The stand-ins' PIN approval and delivery times (default 5 ms each). */
    approvalMs?: number;
    latencyMs?: number;
    /** 'real': the WaafiPay stand-in answers as the real gateway where they differ (not found 5213/E10206 ...). */
    waafipayDialect?: 'standin' | 'real';
    money?: RechargeMoney;
    worker?: Partial<WorkerOptions>;
  } = {},
): Promise<MoneyKit> {
  const standIns = await startStandIns({
    approvalMs: opts.approvalMs ?? 5,
    latencyMs: opts.latencyMs ?? 5,
    processingPolls: 2,
    inProcess: opts.inProcess,
    waafipayDialect: opts.waafipayDialect,
  });
  const env = readMoneyEnv({
    WAAFIPAY_MODE: opts.flow ?? 'preauthorize',
    PAYMENT_TIMEOUT_MS: String(opts.chargeTimeoutMs ?? 1500),
    PAYMENT_CALL_TIMEOUT_MS: String(opts.callTimeoutMs ?? 400),
    OPERATOR_TIMEOUT_MS: String(opts.callTimeoutMs ?? 400),
  });
  const adapters = await moneyAdapters(env, { trail: databaseTrail(h.knex), standIns });
  const newWorker = (overrides: Partial<WorkerOptions> = {}) =>
    new RechargeWorker({
      db: h.knex,
      client: h.db.client,
      // Every gateway by name, as the server passes them (`waafipay` is the stand-in here).
      payment: adapters.gateways,
      operators: adapters.operators,
      retryBaseMs: 10,
      maxRetryMs: 40,
      paymentTimeoutMs: opts.paymentTimeoutMs ?? 300,
      reviewAfterMs: opts.reviewAfterMs ?? 1200,
      reconcileMs: 60_000,
      // As server.ts: a sale handed back at a drain is due once a call still in the air has landed.
      handBackAfterMs: Math.max(env.PAYMENT_CALL_TIMEOUT_MS, env.OPERATOR_TIMEOUT_MS),
      ...opts.worker,
      ...overrides,
    });
  const worker = newWorker();
  if (opts.money) {
    opts.money.payment = adapters.gateways;
    opts.money.wake = () => undefined;
  }
  return { ...adapters, standIns, worker, newWorker };
}

/** A real-looking gateway for tests that switch gateways: WaafiPay named `waafipay` on another kit's stand-in. */
export const liveGatewayOn = (h: Harness, kit: MoneyKit): PaymentAdapter =>
  waafiPayAdapter(
    { url: kit.standIns.waafipayUrl, ...WAAFIPAY_STAND_IN_CREDENTIALS, flow: 'preauthorize', chargeTimeoutMs: 1500, timeoutMs: 400 },
    { trail: databaseTrail(h.knex) },
  );

export const walletBalance = async (h: Harness, walletId: number) => Number((await h.knex('wallets').where({ id: walletId }).first()).balance);

/** One drain on fresh stand-ins (for tests that only need their sales settled). */
export function fastWorker(h: Harness) {
  return {
    async drain() {
      const kit = await moneyKit(h);
      try {
        await kit.worker.drain();
      } finally {
        await kit.close();
      }
    },
  };
}
