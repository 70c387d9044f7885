import { z } from 'zod';

/**
 * The float's settings (docs/integrations.md, "The aggregators' float"): how often each aggregator's
 * balance is read, and after how many sales delivered through it it is read again.
 */
const num = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

export const floatEnvSchema = z.object({
  /** Minutes between two scheduled reads of every float (where the worker runs); 0: none. */
  FLOAT_CHECK_MINUTES: num(10),
  /** Read an aggregator's float again after this many sales delivered through it; 0: never after sales. */
  FLOAT_CHECK_EVERY_SALES: num(20),
});
export type FloatEnv = z.infer<typeof floatEnvSchema>;

export function readFloatEnv(env: NodeJS.ProcessEnv = process.env): FloatEnv {
  const parsed = floatEnvSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (!parsed.success) throw new Error(`Invalid float configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}
