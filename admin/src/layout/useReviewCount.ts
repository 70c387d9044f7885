import { useQuery } from '@tanstack/react-query';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { useUserPermissions } from '../auth/identity';
import { hasPermission } from '../permissions/permissions';

export const REVIEW_COUNT_KEY = ['recharges', 'review-count'] as const;
export const REVIEW_POLL_MS = 30_000;

/**
 * How many sales wait for a person (GET /recharges/review-count), polled every 30 s for holders of
 * 'review recharges' only (others never call it). 0 while loading or when the call fails. A
 * dataProvider call: a 401 (the session ended elsewhere) goes through react-admin's checkError, so
 * the user lands on sign-in with the expiry message. `wanted` false: not shown here, never called.
 */
export function useReviewCount(wanted = true): number {
  const permissions = useUserPermissions();
  const enabled = wanted && hasPermission(permissions, 'review recharges');
  const dataProvider = useConsoleDataProvider();
  const { data } = useQuery({
    queryKey: REVIEW_COUNT_KEY,
    enabled,
    queryFn: async () => (await dataProvider.reviewCount()).data,
    refetchInterval: REVIEW_POLL_MS,
    retry: false,
  });
  // A 401 logs out, and react-admin then answers the call `{data: {}}`: not a count to show.
  return enabled && typeof data === 'number' ? data : 0;
}
