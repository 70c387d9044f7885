import { useQuery } from '@tanstack/react-query';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { useUserPermissions } from '../auth/identity';
import { hasPermission } from '../permissions/permissions';

export const BELOW_ALERT_KEY = ['wallets', 'below-alert-count'] as const;
const POLL_MS = 30_000;

/**
 * How many live wallets are under their low-balance alert (GET /wallets/below-alert-count), the
 * Wallets menu's red badge: polled every 30 s for holders of 'view wallets' only; 0 while loading,
 * on failure and for everyone else. As usePendingRequestCount: a 401 goes through checkError.
 * `wanted` false: not shown here, never called.
 */
export function useBelowAlertCount(wanted = true): number {
  const permissions = useUserPermissions();
  const enabled = wanted && hasPermission(permissions, 'view wallets');
  const dataProvider = useConsoleDataProvider();
  const { data } = useQuery({
    queryKey: BELOW_ALERT_KEY,
    enabled,
    queryFn: async () => (await dataProvider.belowAlertCount()).data,
    refetchInterval: POLL_MS,
    retry: false,
  });
  return enabled && typeof data === 'number' ? data : 0;
}
