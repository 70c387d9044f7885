import { z } from 'zod';
import { parseMillis, type Millis } from './stand-in-server.ts';
import { STAND_IN_NAMES, STAND_INS, type StandInName, type StandInsByName } from '../registry.ts';

/**
 * The stand-ins' field conditions, from the environment (docs/integrations.md, "Stand-ins"): the PIN
 * prompt's and the delivery's time (milliseconds, or a range such as `5000-40000` drawn uniformly),
 * the share of first requests per reference whose answer is lost (processed, then the connection
 * reset) or that answer 503 (not processed), and fixed ports (default any free one) so a benchmark
 * can reach their books (`GET /_standin/books`). Read by money-adapters.ts (the embedded
 * stand-ins) and serve.ts (the stand-ins as a process of their own).
 */

/** `1500` (drawn in 750..2250) or `5000-40000` (drawn uniformly in it). */
const millis = (fallback: number) =>
  z
    .union([z.number(), z.string()])
    .optional()
    .transform((value, ctx): Millis => {
      if (value === undefined) return fallback;
      const parsed = parseMillis(value);
      if (parsed !== undefined) return parsed;
      ctx.addIssue({ code: 'custom', message: 'must be milliseconds (1500) or a range of them (5000-40000)' });
      return z.NEVER;
    });
const rate = z.coerce.number().min(0).max(1).default(0);
const port = z.coerce.number().int().min(0).max(65535).default(0);
const portKey = (name: StandInName) => `STAND_IN_${name.toUpperCase() as Uppercase<StandInName>}_PORT` as const;

/** Its fields join the server's money configuration (moneyEnvSchema); the rates' sum is checked by checkStandInRates. */
export const standInEnvShape = {
  PAYMENT_SANDBOX_APPROVAL_MS: millis(1500),
  OPERATOR_SANDBOX_LATENCY_MS: millis(800),
  STAND_IN_LOST_ANSWER_RATE: rate,
  STAND_IN_UNAVAILABLE_RATE: rate,
  // One per stand-in of the registry: STAND_IN_WAAFIPAY_PORT, STAND_IN_RELOADLY_PORT, STAND_IN_DTONE_PORT, STAND_IN_EDAHAB_PORT.
  ...(Object.fromEntries(STAND_IN_NAMES.map((name) => [portKey(name), port])) as Record<`STAND_IN_${Uppercase<StandInName>}_PORT`, typeof port>),
};

export const standInEnvSchema = z.object(standInEnvShape).superRefine((env, ctx) => checkStandInRates(env, ctx));
export type StandInEnv = z.infer<typeof standInEnvSchema>;

/** Both shares of first requests together cannot exceed all of them. */
export function checkStandInRates(env: Pick<StandInEnv, 'STAND_IN_LOST_ANSWER_RATE' | 'STAND_IN_UNAVAILABLE_RATE'>, ctx: z.RefinementCtx): void {
  if (env.STAND_IN_LOST_ANSWER_RATE + env.STAND_IN_UNAVAILABLE_RATE > 1)
    ctx.addIssue({
      code: 'custom',
      path: ['STAND_IN_LOST_ANSWER_RATE'],
      message: 'STAND_IN_LOST_ANSWER_RATE and STAND_IN_UNAVAILABLE_RATE add up to at most 1',
    });
}

export function readStandInEnv(env: NodeJS.ProcessEnv = process.env): StandInEnv {
  const parsed = standInEnvSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (!parsed.success) throw new Error(`Invalid stand-in configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/** How the stand-ins behave (unset: no field faults, the stand-in's own answers, any free port). */
export interface StandInOptions {
  approvalMs: Millis;
  latencyMs: Millis;
  lostAnswerRate?: number;
  unavailableRate?: number;
  /** 'real': the WaafiPay stand-in answers as the real gateway where they differ (waafipay-stand-in.ts). */
  waafipayDialect?: 'standin' | 'real';
  processingPolls?: number;
  ports?: Partial<Record<StandInName, number>>;
}

export function standInOptionsFrom(env: StandInEnv): StandInOptions {
  return {
    approvalMs: env.PAYMENT_SANDBOX_APPROVAL_MS,
    latencyMs: env.OPERATOR_SANDBOX_LATENCY_MS,
    lostAnswerRate: env.STAND_IN_LOST_ANSWER_RATE,
    unavailableRate: env.STAND_IN_UNAVAILABLE_RATE,
    ports: Object.fromEntries(STAND_IN_NAMES.map((name) => [name, env[portKey(name)]])),
  };
}

/** The stand-ins with these options (the embedded ones, their thread and serve.ts all make them here), one per registry entry. */
export function createStandIns(opts: StandInOptions): StandInsByName {
  return Object.fromEntries(STAND_IN_NAMES.map((name) => [name, STAND_INS[name].create(opts)])) as StandInsByName;
}
