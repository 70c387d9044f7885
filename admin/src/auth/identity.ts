import { useGetIdentity, usePermissions } from 'react-admin';
import type { SessionUser } from '../providers/session';
import type { ConsoleIdentity } from '../providers/authProvider';
import { hasPermission } from '../permissions/permissions';

/**
 * The signed-in user and its permissions, as react-admin's authProvider tells them
 * (useGetIdentity, usePermissions; kept in step with the session by sessionQueries.ts).
 */
export function useSignedInUser(): SessionUser | null {
  const { identity } = useGetIdentity();
  return (identity as ConsoleIdentity | undefined)?.user ?? null;
}

/** A dealer sees its own shop's data: the screens drop the dealer column and filter. */
export const useIsDealer = (): boolean => useSignedInUser()?.user_type === 'dealer';

/** The signed-in user's permission names (empty while signed out). */
export function useUserPermissions(): readonly string[] {
  const { permissions } = usePermissions<string[]>();
  return permissions ?? NONE;
}
const NONE: readonly string[] = [];

/** Whether the signed-in user holds one permission, by its name (docs/product.md section 5). */
export const useHasPermission = (name: string): boolean => hasPermission(useUserPermissions(), name);
