import type { ReactNode } from 'react';
import { Navigate } from 'react-admin';
import { useSession } from '../providers/useSession';
import { canOpenRoute, hasAnyPermission } from '../permissions/permissions';

/**
 * Missing any of a route's permissions sends the user to /unauthorized (docs/product.md
 * section 4). `anyOf`: a resource screen opens with any one of its view permissions.
 */
export function RouteGuard({ permissions, anyOf, children }: { permissions?: readonly string[]; anyOf?: readonly string[]; children: ReactNode }) {
  const { permissions: held } = useSession();
  if (!canOpenRoute(held, permissions) || (anyOf?.length && !hasAnyPermission(held, anyOf))) return <Navigate to="/unauthorized" replace />;
  return <>{children}</>;
}
