import { z } from 'zod';

/** The role form of SPEC.md section 5. guard_name is always 'web'; anything else is refused. */
export const roleSchema = z.object({
  name: z
    .string({ message: 'validation:name_required' })
    .trim()
    .min(1, { message: 'validation:name_required' })
    .max(255, { message: 'validation:name_max' }),
  guard_name: z
    .string({ message: 'validation:guard_name_required' })
    .trim()
    .min(1, { message: 'validation:guard_name_required' })
    .refine((v) => v === 'web', { message: 'validation:guard_name_invalid' })
    .default('web'),
  description: z.string().trim().max(500, { message: 'validation:too_long' }).nullable().optional(),
  permissions: z.array(z.string().min(1)).optional(),
});

export const updateRoleSchema = roleSchema.partial();

export const assignPermissionsSchema = z.object({
  permissions: z.array(z.string().min(1), { message: 'validation:permissions_required' }),
});

export type RoleInput = z.infer<typeof roleSchema>;
