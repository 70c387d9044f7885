import { useQuery } from '@tanstack/react-query';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { useUserPermissions } from '../auth/identity';
import { hasPermission } from '../permissions/permissions';

export const PENDING_REQUESTS_KEY = ['wallet-top-up-requests', 'pending-count'] as const;
const POLL_MS = 30_000;

/**
 * How many top-up and payout requests wait for a decision (GET /wallet-top-up-requests/pending-count),
 * the Wallets menu's badge: polled every 30 s for reviewers ('review wallet top-ups') only; 0 while
 * loading, on failure and for everyone else. As useReviewCount: a 401 goes through checkError.
 * `wanted` false: not shown here, never called.
 */
export function usePendingRequestCount(wanted = true): number {
  const permissions = useUserPermissions();
  const enabled = wanted && hasPermission(permissions, 'review wallet top-ups');
  const dataProvider = useConsoleDataProvider();
  const { data } = useQuery({
    queryKey: PENDING_REQUESTS_KEY,
    enabled,
    queryFn: async () => (await dataProvider.pendingTopUpCount()).data,
    refetchInterval: POLL_MS,
    retry: false,
  });
  return enabled && typeof data === 'number' ? data : 0;
}
