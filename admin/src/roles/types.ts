export interface PermissionRecord {
  id: number;
  name: string;
  group?: string;
}

export interface RoleRecord {
  id: number;
  h_id?: string;
  name: string;
  guard_name: string;
  description?: string | null;
  protected: boolean;
  permissions?: PermissionRecord[];
  users_count?: number;
  created_at?: string;
  deleted_at?: string | null;
}

/** Permissions grouped by area (the server's group label), groups and names sorted. */
export function groupPermissions(list: readonly PermissionRecord[]): [string, PermissionRecord[]][] {
  const groups = new Map<string, PermissionRecord[]>();
  for (const p of list) {
    const g = p.group || 'other';
    groups.set(g, [...(groups.get(g) ?? []), p]);
  }
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b));
}
