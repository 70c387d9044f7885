import type { SessionUser } from '../providers/session';
import { permissionNames } from '../providers/session';

/**
 * Permission checks by name (SPEC.md section 6): one, any of a list, all of a list.
 * With no user or no permissions list every check is false.
 */
export type Perms = readonly string[] | null | undefined;

export const hasPermission = (perms: Perms, name: string): boolean => !!perms && perms.includes(name);

export const hasAnyPermission = (perms: Perms, names: readonly string[]): boolean =>
  !!perms && names.some((n) => perms.includes(n));

export const hasAllPermissions = (perms: Perms, names: readonly string[]): boolean =>
  !!perms && names.every((n) => perms.includes(n));

/** Routes need all listed permissions; a route without a list only needs a signed-in user. */
export const canOpenRoute = (perms: Perms, required: readonly string[] | undefined): boolean =>
  !!perms && (!required || required.length === 0 || hasAllPermissions(perms, required));

/** Menu items need any of their permissions; an item without a list is always shown. */
export const canSeeMenuItem = (perms: Perms, required: readonly string[] | undefined): boolean =>
  !required || required.length === 0 || hasAnyPermission(perms, required);

export const userPermissions = (user: SessionUser | null | undefined): string[] | null => permissionNames(user);

const ACTION_VERBS: Record<string, string> = {
  list: 'view',
  show: 'view',
  create: 'create',
  edit: 'update',
  delete: 'delete',
  restore: 'restore',
  force_delete: 'force delete',
};

/**
 * react-admin's canAccess answered locally from the permissions loaded at sign-in
 * (REACT-ADMIN.md): "<verb> <resource>", and for the user list any of the three views.
 */
export function canAccessLocally(perms: Perms, params: { action: string; resource: string }): boolean {
  const { action, resource } = params;
  // A full permission name ('change user status') is checked as it is.
  if (action.includes(' ')) return hasPermission(perms, action);
  if (resource === 'users' && (action === 'list' || action === 'show')) {
    return hasAnyPermission(perms, ['view users', 'view admins', 'view dealers']);
  }
  const verb = ACTION_VERBS[action] ?? action;
  return hasPermission(perms, `${verb} ${resource}`);
}
