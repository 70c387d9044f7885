import { useSyncExternalStore } from 'react';
import { getStoredUser, getToken, isLocked, onSessionChange } from '../providers/session';

/** Whether anyone is signed in in this browser, and whether that session is locked. */
export type SignInState = 'signed-out' | 'signed-in' | 'locked';

const read = (): SignInState => (!getToken() || !getStoredUser() ? 'signed-out' : isLocked() ? 'locked' : 'signed-in');

/**
 * The sign-in and lock state the auth pages and the auth guard route by (docs/product.md section 4),
 * re-rendering on sign-in, sign-out, a 401 and the lock. Who the user is and what it may do are
 * react-admin's useGetIdentity and usePermissions (identity.ts), never this.
 */
export const useSignInState = (): SignInState => useSyncExternalStore(onSessionChange, read, read);
