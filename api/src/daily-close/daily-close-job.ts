import type pino from 'pino';
import { z } from 'zod';
import { zonedDay } from '../database/time.ts';
import type { ServiceContext } from '../platform/context.ts';
import { readCompanySettings } from '../settings/company-settings.ts';
import { AppError } from '../http/errors.ts';
import { detectCorrections, refreshDay, type DailyCloseDeps } from './daily-close.service.ts';

/**
 * The daily close's schedule: every DAILY_CLOSE_REFRESH_MINUTES (default 60; 0: only by the
 * console's Refresh) the vendors are asked again about yesterday and today, company time, while
 * they are open, so a finance person finds the day compared already. Run where the recharge worker
 * runs (server.ts); refreshes are idempotent, so several processes doing it is harmless. Each run
 * also finds the corrections to closed days (even when both days are closed), and does not ask a
 * gateway again about a sale whose last answer matched and whose row has not changed since.
 */
export const dailyCloseEnvSchema = z.object({
  DAILY_CLOSE_REFRESH_MINUTES: z.coerce
    .number()
    .int()
    .min(0)
    .max(24 * 60)
    .default(60),
});

export function readDailyCloseEnv(env: NodeJS.ProcessEnv = process.env): z.infer<typeof dailyCloseEnvSchema> {
  const parsed = dailyCloseEnvSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (!parsed.success) throw new Error(`Invalid daily close configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/** Refreshes yesterday and today (company time) where open; a closed day is skipped, never an error. */
export async function refreshOpenDays(ctx: ServiceContext, deps: DailyCloseDeps, logger?: pino.Logger): Promise<string[]> {
  const { timezone } = await readCompanySettings(ctx.db);
  const today = zonedDay(new Date(), timezone);
  const yesterday = zonedDay(new Date(Date.now() - 86_400_000), timezone);
  const done: string[] = [];
  await detectCorrections(ctx).catch((err) => logger?.error({ err }, 'daily close corrections failed'));
  for (const day of [...new Set([yesterday, today])]) {
    try {
      await refreshDay(ctx, deps, day);
      done.push(day);
    } catch (err) {
      if (err instanceof AppError && err.status === 409) continue;
      logger?.error({ err, day }, 'daily close refresh failed');
    }
  }
  return done;
}

/** Starts the schedule (the first run a minute after start); returns the way to stop it. */
export function scheduleDailyCloseRefresh(ctx: ServiceContext, deps: DailyCloseDeps, minutes: number, logger?: pino.Logger): () => void {
  if (!minutes) return () => undefined;
  let timer: NodeJS.Timeout;
  let stopped = false;
  const run = async () => {
    await refreshOpenDays(ctx, deps, logger).catch((err) => logger?.error({ err }, 'daily close refresh failed'));
    if (stopped) return;
    timer = setTimeout(() => void run(), minutes * 60_000);
    timer.unref();
  };
  timer = setTimeout(() => void run(), 60_000);
  timer.unref();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
