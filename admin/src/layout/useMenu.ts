import { useMemo } from 'react';
import { useSession } from '../providers/useSession';
import { filterMenu, homePath } from './menu';
import { MENU } from './menuItems';

/** The menu as the signed-in user may see it, and the home page that follows from it. */
export function useVisibleMenu() {
  const { permissions, user } = useSession();
  const userType = user?.user_type ?? null;
  return useMemo(() => ({ sections: filterMenu(MENU, permissions, userType), home: homePath(MENU, permissions, userType) }), [permissions, userType]);
}
