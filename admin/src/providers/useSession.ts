import { useSyncExternalStore } from 'react';
import { getStoredUser, getToken, isLocked, onSessionChange, type SessionUser } from './session';
import { userPermissions } from '../permissions/permissions';

export interface SessionState {
  token: string | null;
  user: SessionUser | null;
  isAuthenticated: boolean;
  isLocked: boolean;
  permissions: string[] | null;
}

let version = 0;
let cached: { version: number; state: SessionState } | null = null;
onSessionChange(() => {
  version += 1;
});

function snapshot(): SessionState {
  if (cached && cached.version === version) return cached.state;
  const token = getToken();
  const user = getStoredUser();
  const state = { token, user, isAuthenticated: !!token && !!user, isLocked: isLocked(), permissions: userPermissions(user) };
  cached = { version, state };
  return state;
}

/** The client auth state (docs/product.md section 3), re-rendering on sign-in, sign-out, 401 and lock. */
export const useSession = (): SessionState => useSyncExternalStore(onSessionChange, snapshot, snapshot);
