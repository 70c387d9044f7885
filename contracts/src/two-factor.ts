import { z } from 'zod';
import { sessionResponseSchema } from './responses.ts';

/**
 * Two-factor sign-in for staff (docs/api-conventions.md, "Two-factor sign-in"): TOTP codes from any
 * authenticator app (RFC 6238: 6 digits, 30 s) and one-time recovery codes.
 */
export const RECOVERY_CODE_COUNT = 10;
/** Recovery codes are 10 characters of this alphabet (no 0/O, 1/I), shown as XXXXX-XXXXX. */
export const RECOVERY_CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

const password = z.string({ message: 'validation:password_required' }).min(1, { message: 'validation:password_required' }).max(255);

// People type codes with spaces ("123 456") and recovery codes with or without the dash, in any case.
const compact = (v: unknown) => (typeof v === 'string' ? v.replace(/[\s-]/g, '') : v);
const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v === null ? undefined : v);

export const totpCodeSchema = z.preprocess(
  compact,
  z.string({ message: 'validation:two_factor_code_required' }).regex(/^\d{6}$/, { message: 'validation:two_factor_code_format' }),
);

export const recoveryCodeSchema = z.preprocess(
  (v) => (typeof v === 'string' ? v.replace(/[\s-]/g, '').toUpperCase() : v),
  z.string().regex(/^[A-Z2-9]{10}$/, { message: 'validation:recovery_code_format' }),
);

/** The second step of a sign-in: the challenge from the first step and a code or a recovery code. */
export const twoFactorVerifySchema = z
  .object({
    challenge: z.string({ message: 'validation:two_factor_challenge_required' }).min(1, { message: 'validation:two_factor_challenge_required' }).max(2000),
    code: z.preprocess(blankToUndefined, totpCodeSchema.optional()),
    recovery_code: z.preprocess(blankToUndefined, recoveryCodeSchema.optional()),
    remember_device: z.preprocess(
      (v) => (v === 'true' || v === '1' || v === 1 || v === 'on' ? true : v === 'false' || v === '0' || v === 0 || v === '' || v === null ? false : v),
      z.boolean({ message: 'validation:invalid_value' }).optional().default(false),
    ),
  })
  .superRefine((d, ctx) => {
    if (d.code === undefined && d.recovery_code === undefined) ctx.addIssue({ code: 'custom', path: ['code'], message: 'validation:two_factor_code_required' });
    if (d.code !== undefined && d.recovery_code !== undefined)
      ctx.addIssue({ code: 'custom', path: ['recovery_code'], message: 'validation:two_factor_one_code' });
  });
export type TwoFactorVerifyInput = z.infer<typeof twoFactorVerifySchema>;

/** Turning two-factor on: a code from the app (proves it was scanned) and the password (proves it is the user). */
export const twoFactorConfirmSchema = z.object({ code: totpCodeSchema, password });

/** Turning it off and new recovery codes: the password again. */
export const twoFactorPasswordSchema = z.object({ password });

/** PUT /roles/{id}/two-factor. */
export const roleTwoFactorSchema = z.object({
  required: z.boolean({ message: 'validation:invalid_value' }),
});

const isoTime = z.string().describe('ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z');

/** The first step's answer when the account has two-factor on: no session yet. */
export const twoFactorChallengeSchema = z.object({
  two_factor_required: z.literal(true),
  challenge: z.string().describe('Signed, short-lived; send it with the code to POST /auth/two-factor/verify'),
  challenge_expires_at: isoTime,
});

/** POST /auth/admin/login: a session, or (two-factor on, device not trusted) a challenge. */
export const loginResponseSchema = z.union([sessionResponseSchema, twoFactorChallengeSchema]);

export const twoFactorSessionSchema = sessionResponseSchema.extend({
  recovery_codes_left: z.number().int().optional().describe('Present when a recovery code was used'),
});

export const twoFactorStatusSchema = z.object({
  enabled: z.boolean(),
  required: z.boolean().describe('A role of the user requires two-factor sign-in'),
  enabled_at: isoTime.nullable(),
  pending: z.boolean().describe('A secret was shown and awaits its first code'),
  recovery_codes_left: z.number().int(),
  trusted_devices: z.number().int(),
});
export type TwoFactorStatus = z.infer<typeof twoFactorStatusSchema>;

export const twoFactorSetupSchema = z.object({
  secret: z.string().describe('Base32, for typing into the app by hand'),
  otpauth_url: z.string(),
  qr_code: z.string().describe('data:image/svg+xml URL of the otpauth URL'),
  issuer: z.string(),
  account: z.string(),
});
export type TwoFactorSetup = z.infer<typeof twoFactorSetupSchema>;

export const recoveryCodesSchema = z.object({
  recovery_codes: z.array(z.string()).describe('Shown once: only hashes are kept'),
  status: twoFactorStatusSchema,
});
