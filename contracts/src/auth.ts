import { z } from 'zod';
import { emailSchema, nameSchema, passwordSchema } from './users.ts';
import { optionalText } from './common.ts';

export const loginSchema = z.object({
  email: emailSchema,
  password: z.string({ message: 'validation:password_required' }).min(1, { message: 'validation:password_required' }),
  // JSON sends a boolean; a plain HTML form or a script may send "true"/"1".
  rememberMe: z.preprocess(
    (v) => (v === 'true' || v === '1' || v === 1 || v === 'on' ? true : v === 'false' || v === '0' || v === 0 || v === '' || v === null ? false : v),
    z.boolean({ message: 'validation:invalid_value' }).optional().default(false),
  ),
});

/** Lock and unlock: the password is required (docs/product.md section 5, lock form). */
export const lockSchema = z.object({
  password: z.string({ message: 'validation:password_required' }).min(1, { message: 'validation:password_required' }),
});

/** A new sign-in email needs `current_password` (checked by the API, which knows the current email). */
export const profileSchema = z.object({
  name: nameSchema.optional(),
  email: emailSchema.optional(),
  phone: optionalText(32),
  address: optionalText(500),
  current_password: z.preprocess((v) => (v === '' || v === null ? undefined : v), z.string().max(255).optional()),
});

export const changePasswordSchema = z
  .object({
    current_password: z.string({ message: 'validation:current_password_required' }).min(1, { message: 'validation:current_password_required' }),
    password: passwordSchema,
    password_confirmation: z.string().optional(),
  })
  .superRefine((d, ctx) => {
    if (d.password !== d.password_confirmation) {
      ctx.addIssue({ code: 'custom', path: ['password_confirmation'], message: 'validation:password_mismatch' });
    }
  });

/** A forgotten password: the account's email (the answer is the same whether it exists). */
export const forgotPasswordSchema = z.object({ email: emailSchema });

/** A set-password link's token (from the forgotten-password or the welcome email). */
export const setPasswordTokenSchema = z.object({
  token: z
    .string({ message: 'validation:reset_link_invalid' })
    .min(1, { message: 'validation:reset_link_invalid' })
    .max(200, { message: 'validation:reset_link_invalid' }),
});

/** A new password through a set-password link: the same rules as the user form's password. */
export const resetPasswordSchema = setPasswordTokenSchema
  .extend({ password: passwordSchema, password_confirmation: z.string().optional() })
  .superRefine((d, ctx) => {
    if (d.password !== d.password_confirmation) {
      ctx.addIssue({ code: 'custom', path: ['password_confirmation'], message: 'validation:password_mismatch' });
    }
  });

/** What a working link says before the password is chosen: whose account and until when. */
export const setPasswordLinkSchema = z.object({
  email: z.string(),
  purpose: z.enum(['reset', 'welcome']),
  expires_at: z.string().describe('ISO 8601'),
});
