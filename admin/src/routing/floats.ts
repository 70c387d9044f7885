import { useQuery } from '@tanstack/react-query';
import { useLocaleState, useTranslate } from 'react-admin';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { useSignedInUser, useUserPermissions } from '../auth/identity';
import { hasPermission } from '../permissions/permissions';
import { useLtr } from '../common/Ltr';
import type { AggregatorFloat } from './types';

export const FLOATS_KEY = ['aggregators', 'floats'] as const;
export const FLOATS_PATH = '/aggregators';

/** Only staff holding 'view delivery routes' read the floats (the API refuses dealers): anyone else makes no call at all. */
export function useCanSeeFloats(): boolean {
  const user = useSignedInUser();
  const permissions = useUserPermissions();
  return user?.user_type !== 'dealer' && hasPermission(permissions, 'view delivery routes');
}

/**
 * GET /aggregators: each aggregator's float, one react-query entry shared by the layout's banner
 * and the Aggregators page, read again every few minutes (balances are checked by the server on
 * its own schedule; a closer poll would only repeat them).
 */
export function useAggregatorFloats(refetchInterval: number | false = 5 * 60_000) {
  const enabled = useCanSeeFloats();
  const dataProvider = useConsoleDataProvider();
  return useQuery({
    queryKey: FLOATS_KEY,
    enabled,
    queryFn: async () => (await dataProvider.aggregatorFloats<AggregatorFloat[]>()).data ?? [],
    refetchInterval: enabled ? refetchInterval : false,
    retry: false,
  });
}

/** "1.5" days in the user's language (one decimal at most). */
export function useDaysText() {
  const [locale] = useLocaleState();
  return (days: number) => new Intl.NumberFormat(locale === 'ae' ? 'ar' : locale, { maximumFractionDigits: 1 }).format(days);
}

/** "Reloadly float is low: 40.00 USD left, about 1.5 days at the current pace" (amounts left to right in Arabic). */
export function useLowFloatText() {
  const translate = useTranslate();
  const days = useDaysText();
  const ltr = useLtr();
  return (f: Pick<AggregatorFloat, 'label' | 'balance' | 'currency' | 'threshold' | 'days_left'>) =>
    translate(f.days_left === null ? 'aggregators.low_float' : 'aggregators.low_float_days', {
      name: f.label,
      balance: ltr(`${f.balance ?? '—'} ${f.currency ?? ''}`.trim()),
      threshold: ltr(`${f.threshold ?? '—'} ${f.currency ?? ''}`.trim()),
      days: f.days_left === null ? '' : ltr(days(f.days_left)),
    });
}
