import { z } from 'zod';
import { requiredRefSchema } from './common.ts';
import { nationalNumber } from './phone.ts';

/**
 * A customer's purchase from a storefront (docs/data-model.md, Recharges). Somali numbers are 9
 * digits after +252, 00252 or a leading 0 (DESIGN section 7); they are kept in that national form.
 */
export const RECHARGE_STATUSES = ['pending', 'processing', 'completed', 'failed', 'refunded'] as const;
export type RechargeStatus = (typeof RECHARGE_STATUSES)[number];

const somaliPhone = (required: string) =>
  z
    .string({ message: required })
    .trim()
    .min(1, { message: required })
    .transform((v, ctx) => {
      const n = nationalNumber(v);
      if (!n) {
        ctx.addIssue({ code: 'custom', message: 'validation:phone_somali_invalid' });
        return z.NEVER;
      }
      return n;
    });

/** An idempotency key: what the storefront makes once per purchase and sends again on a retry. */
export const idempotencyKeySchema = z
  .string({ message: 'validation:idempotency_key_required' })
  .trim()
  .min(8, { message: 'validation:idempotency_key_invalid' })
  .max(128, { message: 'validation:idempotency_key_invalid' })
  .regex(/^[A-Za-z0-9_.:-]+$/, { message: 'validation:idempotency_key_invalid' });

export const rechargeRequestSchema = z.object({
  bundle_id: requiredRefSchema('validation:bundle_required'),
  phone: somaliPhone('validation:phone_required'),
  payment_method_id: requiredRefSchema('validation:payment_method_required'),
  payer_phone: somaliPhone('validation:payer_phone_required'),
  /** Also accepted as the Idempotency-Key header. */
  idempotency_key: z.preprocess((v) => (v === '' || v === null ? undefined : v), idempotencyKeySchema.optional()),
});
export type RechargeRequest = z.infer<typeof rechargeRequestSchema>;
