import { z } from 'zod';
import { requiredRefSchema } from './common.ts';
import { nationalNumber } from './phone.ts';

/**
 * A customer's purchase from a storefront (docs/data-model.md, Recharges). Somali numbers are 9
 * digits after +252, 00252 or a leading 0 (docs/product.md section 5,
 * "Storefront purchase"); they are kept in that national form.
 */
export const RECHARGE_STATUSES = ['pending', 'processing', 'completed', 'failed', 'refunded', 'needs_review'] as const;
export type RechargeStatus = (typeof RECHARGE_STATUSES)[number];

/**
 * Where the customer's payment stands (docs/architecture.md, "Recharges"): `sent` means asked
 * with no answer yet (unknown: ask the gateway by reference, never charge again); `reserved` a
 * pre-authorisation waiting to be committed or cancelled; `committing` / `releasing` a commit or a
 * cancel (reversal) asked with no answer yet; `released` a reserve cancelled or a purchase
 * reversed; `absent` the gateway never had it.
 */
/**
 * `refunded`: the money was taken (a committed reserve) and the gateway's refund gave it back.
 * `refund_due`: taken through a gateway that has no refund (eDahab): a person must pay it back by
 * hand; `paid_back`: a person recorded doing so (who, when, how).
 */
export const PAYMENT_STATES = [
  'none',
  'sent',
  'reserved',
  'committing',
  'collected',
  'declined',
  'releasing',
  'released',
  'refunded',
  'absent',
  'refund_due',
  'paid_back',
] as const;
export type PaymentState = (typeof PAYMENT_STATES)[number];
/** Where the delivery stands: `sent` asked with no answer yet, `processing` the aggregator is on it. */
export const DELIVERY_STATES = ['none', 'sent', 'processing', 'delivered', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/**
 * What the customer is told of a sale (storefront and its order page): each outcome has its own
 * words. `money` says what happened to the customer's money.
 */
export const CUSTOMER_OUTCOMES = ['awaiting_payment', 'delivering', 'delayed', 'delivered', 'declined', 'not_delivered'] as const;
export type CustomerOutcome = (typeof CUSTOMER_OUTCOMES)[number];
/** `to_be_paid_back`: taken, and the shop pays it back by hand (the payment service has no refund). */
export const CUSTOMER_MONEY = ['nothing_taken', 'reserved', 'charged', 'returned', 'unknown', 'to_be_paid_back'] as const;
export type CustomerMoney = (typeof CUSTOMER_MONEY)[number];
/**
 * More words for an outcome where they tell the customer what to do: `payment_slow` no payment
 * approved a while after the purchase (the payment service may not have sent the prompt yet;
 * nothing taken), `payment_not_started` failed before any payment was taken (not a delivery failure).
 */
export const CUSTOMER_DETAILS = ['payment_slow', 'payment_not_started'] as const;
export type CustomerDetail = (typeof CUSTOMER_DETAILS)[number];

/**
 * Why a sale waits for a person (recharges.review_code), each told in the reader's language
 * (review_summary; the API's words api:review_reasons.*). review_reason keeps the system's own
 * sentence with the vendor's words, for the record.
 */
export const REVIEW_CODES = [
  'payment_gateway_silent',
  'payer_not_approved',
  'payment_unknown',
  'topup_not_sent',
  'aggregator_silent',
  'topup_lost',
  'topup_unknown',
  'operator_processing',
  'commit_unconfirmed',
  'return_unconfirmed',
  'commit_refused',
  'return_refused',
  'processing_crashed',
  'unknown_gateway',
] as const;
export type ReviewCode = (typeof REVIEW_CODES)[number];
export const REVIEW_OUTCOMES = ['delivered', 'not_delivered'] as const;
/** An admin settles a sale in review: what the operator's or the customer's evidence shows. */
export const settleRechargeSchema = z
  .object({
    outcome: z.enum(REVIEW_OUTCOMES, { message: 'validation:review_outcome_invalid' }),
    note: z.string({ message: 'validation:note_required' }).trim().min(1, { message: 'validation:note_required' }).max(500, { message: 'validation:too_long' }),
    /**
     * What the gateway's own portal shows for a payment it cannot be asked about (eDahab's answer
     * lost before its invoice id was known): taken, with the gateway's id for it, or not.
     */
    payment: z
      .object({
        paid: z.boolean({ message: 'validation:payment_paid_required' }),
        reference: z.preprocess(
          (v) => (typeof v === 'string' && v.trim() === '' ? null : typeof v === 'string' ? v.trim() : v),
          z.string().max(120, { message: 'validation:too_long' }).nullable().optional(),
        ),
      })
      .optional(),
  })
  .superRefine((v, ctx) => {
    if (v.payment?.paid && !v.payment.reference)
      ctx.addIssue({ code: 'custom', path: ['payment', 'reference'], message: 'validation:payment_reference_required' });
  });
export type SettleRechargeInput = z.infer<typeof settleRechargeSchema>;

/** A person records paying a customer back by hand (a gateway without refunds): how, and the transfer's reference. */
export const paidBackSchema = z.object({
  note: z.string({ message: 'validation:note_required' }).trim().min(1, { message: 'validation:note_required' }).max(500, { message: 'validation:too_long' }),
  reference: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? null : typeof v === 'string' ? v.trim() : v),
    z.string().max(120, { message: 'validation:too_long' }).nullable().optional(),
  ),
});
export type PaidBackInput = z.infer<typeof paidBackSchema>;

/** A Somali mobile number, kept in its national form (9 digits). */
export const somaliPhone = (required: string) =>
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
