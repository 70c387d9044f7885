import { useEffect } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useLogoutIfAccessDenied } from 'react-admin';
import { apiFetch } from '../providers/http';
import { useSession } from '../providers/useSession';
import { hasPermission } from '../permissions/permissions';

export const REVIEW_COUNT_KEY = ['recharges', 'review-count'] as const;
export const REVIEW_POLL_MS = 30_000;

/**
 * How many sales wait for a person (GET /recharges/review-count), polled every 30 s for holders of
 * 'review recharges' only (others never call it). 0 while loading or when the call fails. A 401
 * (the session ended elsewhere) goes through react-admin's checkError, like the dataProvider's
 * calls, so the user lands on sign-in with the expiry message.
 */
export function useReviewCount(): number {
  const { permissions } = useSession();
  const enabled = hasPermission(permissions, 'review recharges');
  const logoutIfAccessDenied = useLogoutIfAccessDenied();
  const { data, error } = useQuery({
    queryKey: REVIEW_COUNT_KEY,
    enabled,
    queryFn: async () => Number((await apiFetch<{ count: number }>('/recharges/review-count', { on401: 'checkError' })).data?.count ?? 0),
    refetchInterval: REVIEW_POLL_MS,
    retry: false,
  });
  useEffect(() => {
    if (error) void logoutIfAccessDenied(error);
  }, [error, logoutIfAccessDenied]);
  return enabled ? (data ?? 0) : 0;
}
