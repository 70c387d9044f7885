import { useLocaleState } from 'react-admin';
import { useQuery } from '@tanstack/react-query';
import { apiFetch } from '../providers/http';

interface PublicSettings {
  company_name: string;
  currency: string;
  timezone: string;
  footer_text: string | null;
}

/**
 * Dates and times in the user's language and the company's time zone (the zone the reports count
 * days in), so "today" on a screen is the company's today. Shares the footer's settings query.
 */
export function useCompanyFormat() {
  const [locale] = useLocaleState();
  const { data } = useQuery({ queryKey: ['settings', 'public'], queryFn: async () => (await apiFetch<PublicSettings>('/settings/public')).data ?? null, staleTime: 5 * 60_000, retry: false });
  const lang = locale === 'ae' ? 'ar' : locale;
  const timeZone = data?.timezone;
  return {
    timeZone,
    currency: data?.currency ?? 'USD',
    dateTime: (iso: string | null | undefined) => {
      if (!iso) return '';
      try {
        return new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(new Date(iso));
      } catch {
        return new Date(iso).toLocaleString();
      }
    },
  };
}
