import type { ReactNode } from 'react';
import { Navigate } from 'react-admin';
import { useSession } from '../providers/useSession';
import { canOpenRoute, hasAnyPermission } from '../permissions/permissions';

/**
 * Missing any of a route's permissions sends the user to /unauthorized (docs/product.md
 * section 4). `anyOf`: a resource screen opens with any one of its view permissions; `userTypes`:
 * only those kinds of user open it.
 */
export function RouteGuard({
  permissions,
  anyOf,
  userTypes,
  children,
}: {
  permissions?: readonly string[];
  anyOf?: readonly string[];
  userTypes?: readonly string[];
  children: ReactNode;
}) {
  const { permissions: held, user } = useSession();
  if (!canOpenRoute(held, permissions) || (anyOf?.length && !hasAnyPermission(held, anyOf))) return <Navigate to="/unauthorized" replace />;
  // A page that serves one kind of user only (/my-wallet: dealers).
  if (userTypes?.length && !(user?.user_type && userTypes.includes(user.user_type))) return <Navigate to="/unauthorized" replace />;
  return <>{children}</>;
}
