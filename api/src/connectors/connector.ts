import type { z } from 'zod';
import type { PaymentAdapter } from './payments/payment-adapter.ts';
import type { OperatorAdapter } from './deliveries/operator-adapter.ts';
import type { FetchLike, RemoteTrail } from './remote-call.ts';
import type { StandInHandler } from './stand-ins/stand-in-server.ts';
import type { StandInOptions } from './stand-ins/stand-in-config.ts';

/**
 * A connector (docs/integrations.md, "Connectors"): one vendor's protocol in one folder (its client,
 * its answer table, its stand-in and their tests) and this description of it, which the registry
 * (registry.ts) lists. Its settings, how it is built from them, and its stand-in are data here, so a
 * new vendor touches its folder, a registry line and the docs; its capabilities are on the adapter
 * it builds (GET /api/v1/connectors shows them).
 */

/** The settings every connector reads beside its own (money-adapters.ts). */
export interface CommonMoneyEnv {
  WAAFIPAY_MODE: 'preauthorize' | 'purchase';
  PAYMENT_TIMEOUT_MS: number;
  PAYMENT_CALL_TIMEOUT_MS: number;
  OPERATOR_TIMEOUT_MS: number;
}

export interface BuildContext {
  /** The whole money configuration, validated (each connector reads its own keys). */
  env: CommonMoneyEnv & Record<string, unknown>;
  trail: RemoteTrail;
  /** Its keep-alive pool (or the in-process stand-ins). */
  http: FetchLike;
  /** Where the embedded stand-ins answer, by stand-in name (with their protocol's path). */
  standInUrls: Record<string, string>;
  /** A real payment gateway is configured: no connector may take play money. */
  livePayment: boolean;
}

interface ConnectorBase {
  /** The name sales and payment methods record (`payment_methods.gateway`, `recharges.payment_adapter`, a route's `aggregator`). */
  name: string;
  /** Its settings (zod), merged into the money configuration. */
  env: z.ZodRawShape;
  /** The setting that points it at the real vendor (unset: its stand-in), and those required with it. */
  liveUrlKey: string | null;
  requiredWhenLive: string[];
}

export interface PaymentConnector extends ConnectorBase {
  kind: 'payment';
  /** Its adapter, or null when this process has none (WaafiPay unconfigured: the sandbox serves its name). */
  build(ctx: BuildContext): PaymentAdapter | null;
}

export interface DeliveryConnector extends ConnectorBase {
  kind: 'delivery';
  build(ctx: BuildContext): OperatorAdapter;
}

/** A vendor's stand-in: made from the stand-ins' options, served under `path` (its protocol's base). */
export interface StandInDefinition<S> {
  create(opts: StandInOptions): S;
  handler(standIn: S): StandInHandler;
  /** Appended to the server's URL: the base the adapter is given (e.g. /asm, /v1). */
  path: string;
}

/** Whether a connector's vendor is configured (its URL setting is set). */
export const isLive = (connector: ConnectorBase, env: Record<string, unknown>): boolean => Boolean(connector.liveUrlKey && env[connector.liveUrlKey]);
