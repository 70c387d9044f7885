import { z } from 'zod';
import { httpUrlSchema, optionalText } from './common.ts';

/**
 * A dealer's own shop (GET/PATCH /my-shop, issue 28 item 12): the public face of its storefront
 * at /dealer/{CODE}, which the dealer edits itself (staff edit it through the user form). Every
 * field is optional on PATCH; a blank text clears it, except the colour, which a shop always has.
 */
export const myShopSchema = z
  .object({
    company_name: optionalText(255),
    brand_color: z
      .string({ message: 'validation:brand_color_invalid' })
      .trim()
      .regex(/^#[0-9a-fA-F]{6}$/, { message: 'validation:brand_color_invalid' })
      .optional(),
    description: optionalText(2000),
    contact_email: z.preprocess(
      (v) => (typeof v === 'string' && v.trim() === '' ? null : v),
      z.string().trim().email({ message: 'validation:email_invalid' }).max(191, { message: 'validation:email_max' }).nullable().optional(),
    ),
    contact_phone: z.preprocess(
      (v) => (typeof v === 'string' && v.trim() === '' ? null : typeof v === 'string' ? v.trim() : v),
      z
        .string()
        .max(32, { message: 'validation:too_long' })
        .regex(/^\+?[0-9 ()-]{6,}$/, { message: 'validation:contact_phone_invalid' })
        .nullable()
        .optional(),
    ),
    website: httpUrlSchema(255),
  })
  .strict();
export type MyShopInput = z.infer<typeof myShopSchema>;

export const myShopResponseSchema = z.object({
  dealer_code: z.string().nullable().describe('The shop is at /dealer/{dealer_code}; null: the dealer has no code, so no shop yet'),
  url: z.string().nullable().describe("The shop's full address when APP_URL is set; otherwise null (the console uses its own origin)"),
  status: z.string().describe("The dealer's status: an inactive dealer's shop is closed"),
  company_name: z.string().nullable(),
  brand_color: z.string(),
  description: z.string().nullable(),
  contact_email: z.string().nullable(),
  contact_phone: z.string().nullable(),
  website: z.string().nullable(),
  logo: z.string().nullable().describe('URL path under /storage'),
});
export type MyShopResponse = z.infer<typeof myShopResponseSchema>;
