import { z } from 'zod';
import { AFRICASTALKING_STAND_IN_CREDENTIALS } from '../connectors/sms/africastalking/africastalking-stand-in.ts';
import type { SmsSettings } from '../connectors/sms/africastalking/africastalking-adapter.ts';

/**
 * The SMS receipts' settings (docs/integrations.md, "SMS receipts"), from the environment:
 *
 * - AFRICASTALKING_API_URL: the full /version1/messaging URL of Africa's Talking (sandbox or live);
 *   with it, AFRICASTALKING_USERNAME and AFRICASTALKING_API_KEY are required.
 * - unset: the embedded stand-in (registry.ts) receives the receipts, outside production only; in
 *   production no receipt is written until the URL and credentials are set.
 * - AFRICASTALKING_SENDER: the sender id or short code (`from`), optional.
 * - SMS_CALLBACK_SECRET: the `secret` query parameter of the callback URLs registered with Africa's
 *   Talking; unset, the callbacks answer 404 (nothing to authenticate them with).
 */
const text = z.string().trim().min(1).optional();
const smsEnvSchema = z.object({
  AFRICASTALKING_API_URL: z.string().url({ message: 'AFRICASTALKING_API_URL must be the full https://…/version1/messaging URL' }).optional(),
  AFRICASTALKING_USERNAME: text,
  AFRICASTALKING_API_KEY: text,
  AFRICASTALKING_SENDER: text,
  SMS_CALLBACK_SECRET: text,
  SMS_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
});

export interface SmsConfig {
  /** Receipts are written and sent (settings present, or the stand-in outside production). */
  enabled: boolean;
  /** Pointed at Africa's Talking (not the stand-in). */
  live: boolean;
  /** The adapter's settings; the URL is '' while the stand-in's is not known yet (the server fills it). */
  settings: SmsSettings;
  callbackSecret: string | null;
}

export function readSmsEnv(env: NodeJS.ProcessEnv = process.env, standInUrl = ''): SmsConfig {
  const parsed = smsEnvSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (!parsed.success) throw new Error(`Invalid SMS configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const e = parsed.data;
  const live = Boolean(e.AFRICASTALKING_API_URL);
  if (live && (!e.AFRICASTALKING_USERNAME || !e.AFRICASTALKING_API_KEY))
    throw new Error('Invalid SMS configuration: AFRICASTALKING_USERNAME and AFRICASTALKING_API_KEY are required with AFRICASTALKING_API_URL');
  return {
    enabled: live || env.NODE_ENV !== 'production',
    live,
    settings: live
      ? {
          url: e.AFRICASTALKING_API_URL!,
          username: e.AFRICASTALKING_USERNAME!,
          apiKey: e.AFRICASTALKING_API_KEY!,
          sender: e.AFRICASTALKING_SENDER ?? null,
          timeoutMs: e.SMS_TIMEOUT_MS,
        }
      : { url: standInUrl, ...AFRICASTALKING_STAND_IN_CREDENTIALS, sender: e.AFRICASTALKING_SENDER ?? null, timeoutMs: e.SMS_TIMEOUT_MS },
    callbackSecret: e.SMS_CALLBACK_SECRET ?? null,
  };
}

/** Whether this process writes receipts (server.ts sets it from the configuration; off until then). */
let receiptsOn = false;
let wakeDispatcher: () => void = () => undefined;
export function setSmsReceipts(on: boolean, wake?: () => void): void {
  receiptsOn = on;
  if (wake) wakeDispatcher = wake;
}
export const smsReceiptsOn = () => receiptsOn;
/**
 * Where this process's receipts go (GET /connectors/mode): Africa's Talking (live, as readSmsEnv
 * decides: AFRICASTALKING_API_URL set), the embedded stand-in (sandbox), or nowhere (off: production
 * without the settings, so no receipt is written).
 */
export function smsMode(env: NodeJS.ProcessEnv = process.env): 'live' | 'sandbox' | 'off' {
  if (!receiptsOn) return 'off';
  return env.AFRICASTALKING_API_URL ? 'live' : 'sandbox';
}
export const wakeSms = () => wakeDispatcher();

/** The callbacks' secret, read per request (tests and the server set SMS_CALLBACK_SECRET). */
export function callbackSecret(env: NodeJS.ProcessEnv = process.env): string | null {
  const v = env.SMS_CALLBACK_SECRET?.trim();
  return v ? v : null;
}
