import type { SessionUser } from '../providers/session';
import { permissionNames } from '../providers/session';
import { canAccessFromRegistry } from '../resources/registry';
import type { Access } from '../console/area';

/**
 * Permission checks by name (docs/product.md section 6): one, any of a list, all of a list.
 * With no user or no permissions list every check is false.
 */
export type Perms = readonly string[] | null | undefined;

export const hasPermission = (perms: Perms, name: string): boolean => !!perms && perms.includes(name);

export const hasAnyPermission = (perms: Perms, names: readonly string[]): boolean => !!perms && names.some((n) => perms.includes(n));

export const hasAllPermissions = (perms: Perms, names: readonly string[]): boolean => !!perms && names.every((n) => perms.includes(n));

/** Routes need all listed permissions; a route without a list only needs a signed-in user. */
export const canOpenRoute = (perms: Perms, required: readonly string[] | undefined): boolean =>
  !!perms && (!required || required.length === 0 || hasAllPermissions(perms, required));

/**
 * Whether a signed-in user opens a page with this access (console/area.ts): all of `permissions`,
 * any one of `anyOf`, and its kind of user among `userTypes`. The routes (authProvider.canAccess)
 * and the menu ask the same question, so the menu shows exactly what opens.
 */
export function canOpen(perms: Perms, userType: string | null | undefined, access: Access | undefined): boolean {
  if (!perms) return false;
  if (!access) return true;
  if (!canOpenRoute(perms, access.permissions)) return false;
  if (access.anyOf?.length && !hasAnyPermission(perms, access.anyOf)) return false;
  return !access.userTypes?.length || (!!userType && access.userTypes.includes(userType));
}

export const userPermissions = (user: SessionUser | null | undefined): string[] | null => permissionNames(user);

/**
 * react-admin's canAccess answered locally from the permissions loaded at sign-in
 * (admin/README.md), by the resource registry: see resources/registry.ts.
 */
export function canAccessLocally(perms: Perms, params: { action: string; resource: string }): boolean {
  return canAccessFromRegistry(perms, params);
}
