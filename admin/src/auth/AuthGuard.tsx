import { useEffect, useState, type ReactNode } from 'react';
import { Navigate, useLocation, useTranslate } from 'react-admin';
import { useQuery } from '@tanstack/react-query';
import { authProvider, LOCK_PATH, LOGIN_PATH, TWO_FACTOR_SETUP_PATH } from '../providers/authProvider';
import { mustEnrolTwoFactor, rehydrate } from '../providers/session';
import { useSignInState } from './useSignInState';
import { useSignedInUser } from './identity';
import { authRetry, LOCK_STALE_MS, ME_STALE_MS } from './retry';
import { FullPageLoader } from '../common/FullPageLoader';

/**
 * The auth guard of docs/product.md section 4, around every signed-in route: initialise (rehydrate),
 * load the user, check the lock; not signed in goes to /auth/login?redirect=<path and query>,
 * locked goes to the lock screen, a user who must set up two-factor sign-in to its setup page.
 * Each page's own access is checked by PageGuard (authProvider.canAccess).
 */
export function AuthGuard({ children }: { children: ReactNode }) {
  const translate = useTranslate();
  const location = useLocation();
  const state = useSignInState();
  const user = useSignedInUser();
  const [initialized, setInitialized] = useState(false);
  useEffect(() => {
    rehydrate();
    setInitialized(true);
  }, []);

  const enabled = initialized && state !== 'signed-out';
  const me = useQuery({ queryKey: ['auth', 'me'], queryFn: () => authProvider.me(), staleTime: ME_STALE_MS, retry: authRetry, enabled });
  const lock = useQuery({
    queryKey: ['auth', 'check-lock'],
    queryFn: () => authProvider.checkLock(),
    staleTime: LOCK_STALE_MS,
    retry: authRetry,
    enabled,
  });

  if (!initialized) return <FullPageLoader text={translate('auth.initializing', { _: 'Initializing...' })} />;
  if (state === 'signed-out') {
    const redirect = encodeURIComponent(`${location.pathname}${location.search}`);
    return <Navigate to={`${LOGIN_PATH}?redirect=${redirect}`} replace />;
  }
  if (state === 'locked') return <Navigate to={LOCK_PATH} replace />;
  if (me.isPending) return <FullPageLoader text={translate('auth.loading_user', { _: 'Loading user data...' })} />;
  if (lock.isPending) return <FullPageLoader text={translate('auth.checking_session', { _: 'Checking session status...' })} />;
  // A role requires two-factor and the user has none yet: the API opens nothing but enrolment.
  if (mustEnrolTwoFactor(user)) return <Navigate to={TWO_FACTOR_SETUP_PATH} replace />;
  return <>{children}</>;
}
