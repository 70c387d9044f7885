import type { QueryClient } from '@tanstack/react-query';
import { getStoredUser, getToken, onSessionChange, permissionNames } from '../providers/session';
import { identityOf } from '../providers/authProvider';

/**
 * react-admin's auth answers (useGetIdentity, usePermissions, useCanAccess) follow the session
 * whenever it changes: sign-in, sign-out, a 401, the lock, a profile save. The identity and the
 * permissions are written into react-admin's query cache at once (the authProvider reads them
 * from the same session, so a screen never renders a first time without them), and every
 * canAccess answer is asked again. Returns the unsubscribe.
 */
export function followSession(queryClient: QueryClient): () => void {
  const write = () => {
    const user = getToken() ? getStoredUser() : null;
    if (user) {
      queryClient.setQueryData(['auth', 'getIdentity'], identityOf(user));
      queryClient.setQueryData(['auth', 'getPermissions', {}], permissionNames(user) ?? []);
    } else {
      queryClient.removeQueries({ queryKey: ['auth', 'getIdentity'] });
      queryClient.removeQueries({ queryKey: ['auth', 'getPermissions'] });
    }
    void queryClient.invalidateQueries({ queryKey: ['auth', 'canAccess'] });
  };
  write();
  return onSessionChange(write);
}
