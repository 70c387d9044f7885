import { useMemo } from 'react';
import { useSignedInUser, useUserPermissions } from '../auth/identity';
import { filterMenu, homePath } from './menu';
import { MENU } from './menuItems';

/** The menu as the signed-in user may see it, and the home page that follows from it. */
export function useVisibleMenu() {
  const user = useSignedInUser();
  const permissions = useUserPermissions();
  const userType = user?.user_type ?? null;
  return useMemo(() => ({ sections: filterMenu(MENU, permissions, userType), home: homePath(MENU, permissions, userType) }), [permissions, userType]);
}
