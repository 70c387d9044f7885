import { z } from 'zod';
import { httpUrlSchema, recordRefSchema, sortOrderSchema, statusSchema } from './common.ts';
import { TRANSLATABLE_FIELDS, translationsSchema } from './translations.ts';

/**
 * A storefront banner (docs/data-model.md): title, image, link, sort, status, optional dealer.
 * The image is the multipart file field `image` (required on create). Dealers manage only their
 * own banners: the API forces dealer_id to the signed-in dealer; an admin leaves it empty for a
 * banner on every storefront.
 */
export const bannerSchema = z.object({
  title: z
    .string({ message: 'validation:title_required' })
    .trim()
    .min(1, { message: 'validation:title_required' })
    .max(191, { message: 'validation:too_long' }),
  link_url: httpUrlSchema(500),
  sort_order: sortOrderSchema,
  status: statusSchema.optional(),
  dealer_id: recordRefSchema,
  /** The title per language (multipart: JSON text). */
  translations: translationsSchema(TRANSLATABLE_FIELDS.banners),
});
export const updateBannerSchema = bannerSchema.partial();
export type BannerInput = z.infer<typeof bannerSchema>;
