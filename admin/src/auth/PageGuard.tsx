import type { ReactNode } from 'react';
import { Navigate, useCanAccess } from 'react-admin';

/**
 * A console page opens for whoever its area lets in (console/areas.ts), asked through react-admin's
 * canAccess (authProvider.canAccess, action 'open' on the page's path); anyone else goes to
 * /unauthorized (docs/product.md section 4). Not kept between mounts: the answer follows the
 * signed-in user, who may change in the same tab.
 */
export function PageGuard({ path, children }: { path: string; children: ReactNode }) {
  const { canAccess, isPending } = useCanAccess({ resource: path, action: 'open', gcTime: 0, staleTime: 0 });
  if (isPending) return null;
  if (!canAccess) return <Navigate to="/unauthorized" replace />;
  return <>{children}</>;
}
