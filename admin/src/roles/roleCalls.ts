import type { DataProvider, Identifier } from 'react-admin';
import { consoleFetch, idOf, restProvider, said, type Rec, type Said } from '../providers/rest';

/** Roles: the permission catalogue, assigning permissions, and two-factor for a role's users. */
export const roleCalls = {
  async getAvailablePermissions(): Promise<{ data: { id: number; name: string; group: string }[] }> {
    const res = await consoleFetch<{ id: number; name: string; group: string }[]>('/roles/permissions/available');
    return { data: res.data ?? [] };
  },
  async assignPermissions(params: { id: Identifier; permissions: string[] }): Promise<{ data: Rec }> {
    const res = await consoleFetch<Rec>(`/roles/${idOf(params.id)}/assign-permissions`, { method: 'POST', body: { permissions: params.permissions } });
    return { data: res.data };
  },
  /** PUT /roles/{id}/two-factor: the role's users must sign in with a second factor (or no longer). */
  async setRoleTwoFactor(params: { id: Identifier; required: boolean }): Promise<Said<Rec>> {
    return said(await consoleFetch<Rec>(`/roles/${idOf(params.id)}/two-factor`, { method: 'PUT', body: { required: params.required } }));
  },
};

/** The resource 'roles': a change of the permissions alone is an assignment (protected roles accept only that). */
export const roleRecords: Partial<DataProvider> = {
  async update(resource, params) {
    const keys = Object.keys(params.data ?? {});
    if (keys.length === 0) return { data: (params.previousData ?? { id: params.id }) as never };
    if (keys.length === 1 && keys[0] === 'permissions') {
      return roleCalls.assignPermissions({
        id: (params.previousData as Rec | undefined)?.h_id ?? params.id,
        permissions: (params.data as { permissions: string[] }).permissions,
      }) as never;
    }
    return restProvider.update(resource, params);
  },
};
