import { useTranslate } from 'react-admin';
import { useQuery } from '@tanstack/react-query';
import type { ConnectorMode } from '@app/contracts';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { useUserPermissions } from '../auth/identity';
import { hasPermission } from '../permissions/permissions';

export const CONNECTOR_MODE_KEY = ['connectors', 'mode'] as const;
/**
 * The configuration changes only with a restart: read once in a while, not polled. react-admin's
 * refresh() invalidates every query, this one too: one small GET per refresh, accepted.
 */
export const CONNECTOR_MODE_STALE_MS = 5 * 60_000;

/**
 * Whether this server's payments, deliveries and SMS receipts are live or sandbox (GET
 * /connectors/mode), for holders of 'view dashboard' only (others never call it). Undefined while
 * loading, when the call fails, or without the permission: the console then says nothing.
 */
export function useConnectorMode(): ConnectorMode | undefined {
  const permissions = useUserPermissions();
  const enabled = hasPermission(permissions, 'view dashboard');
  const dataProvider = useConsoleDataProvider();
  const { data } = useQuery({
    queryKey: CONNECTOR_MODE_KEY,
    enabled,
    queryFn: async () => (await dataProvider.connectorMode()).data,
    staleTime: CONNECTOR_MODE_STALE_MS,
    retry: false,
  });
  // A 401 logs out, and react-admin then answers the call `{data: {}}`: not a mode to show.
  return enabled && typeof data?.payments === 'string' ? data : undefined;
}

/** What is not real, as sentences: the chip's tooltip and accessible name. */
export function useSandboxText(): (mode: ConnectorMode) => string {
  const translate = useTranslate();
  return (mode) =>
    [
      mode.payments === 'sandbox' && translate('connector_mode.payments_not_real'),
      mode.payments === 'mixed' && translate('connector_mode.payments_mixed'),
      mode.deliveries === 'sandbox' && translate('connector_mode.deliveries_sandbox'),
      mode.deliveries === 'mixed' && translate('connector_mode.deliveries_mixed'),
      mode.deliveries === 'none' && translate('connector_mode.deliveries_none'),
    ]
      .filter(Boolean)
      .map((sentence) => `${sentence}.`)
      .join(' ');
}
