import { z } from 'zod';
import { displayNameSchema } from './common.ts';

/** More names than the catalogue could ever hold is not a request worth reading. */
export const MAX_PERMISSIONS_PER_REQUEST = 300;
const permissionNames = z
  .array(z.string().min(1).max(191), { message: 'validation:permissions_required' })
  .max(MAX_PERMISSIONS_PER_REQUEST, { message: 'validation:permissions_too_many' });

/** The role form of docs/product.md section 5. guard_name is always 'web'; anything else is refused. */
export const roleSchema = z.object({
  name: displayNameSchema({ required: 'validation:name_required', max: 'validation:name_max' }),
  guard_name: z
    .string({ message: 'validation:guard_name_required' })
    .trim()
    .min(1, { message: 'validation:guard_name_required' })
    .refine((v) => v === 'web', { message: 'validation:guard_name_invalid' })
    .default('web'),
  description: z.string().trim().max(500, { message: 'validation:too_long' }).nullable().optional(),
  permissions: permissionNames.optional(),
});

export const updateRoleSchema = roleSchema.partial();

export const assignPermissionsSchema = z.object({
  permissions: permissionNames,
});

export type RoleInput = z.infer<typeof roleSchema>;
