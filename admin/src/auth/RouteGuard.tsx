import type { ReactNode } from 'react';
import { Navigate } from 'react-admin';
import { useSession } from '../providers/useSession';
import { canOpenRoute } from '../permissions/permissions';

/** Missing any of a route's permissions sends the user to /unauthorized (SPEC.md section 4). */
export function RouteGuard({ permissions, children }: { permissions?: readonly string[]; children: ReactNode }) {
  const { permissions: held } = useSession();
  if (!canOpenRoute(held, permissions)) return <Navigate to="/unauthorized" replace />;
  return <>{children}</>;
}
