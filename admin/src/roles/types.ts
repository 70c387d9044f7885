import type { PermissionResponse, RoleResponse } from '@app/contracts';

/** The API's answers, typed once by the shared response schemas (contracts/src/responses.ts). */
export type PermissionRecord = PermissionResponse;
export type RoleRecord = RoleResponse;

/** Permissions grouped by area (the server's group label), groups and names sorted. */
export function groupPermissions(list: readonly PermissionRecord[]): [string, PermissionRecord[]][] {
  const groups = new Map<string, PermissionRecord[]>();
  for (const p of list) {
    const g = p.group || 'other';
    groups.set(g, [...(groups.get(g) ?? []), p]);
  }
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b));
}

/**
 * A permission's label in the user's language (roles.permission_names.*: "view dashboard" reads
 * "عرض لوحة التحكم"); the name stays the value sent to the API. A permission the console does not
 * know yet shows its name.
 */
export const permissionLabel = (translate: (key: string, options?: Record<string, unknown>) => string, name: string): string =>
  translate(`roles.permission_names.${name.replace(/ /g, '_')}`, { _: name });
