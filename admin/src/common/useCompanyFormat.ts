import { useLocaleState, useTranslate } from 'react-admin';
import { useQuery } from '@tanstack/react-query';
import { useConsoleDataProvider } from '../providers/dataProvider';

export interface PublicSettings {
  company_name: string;
  /** The company's logo (an uploads URL), or null. */
  logo?: string | null;
  currency: string;
  timezone: string;
  footer_text: string | null;
}

/** GET /settings/public through the dataProvider: one query, shared by the footer and every date on screen. */
export function usePublicSettings() {
  const dataProvider = useConsoleDataProvider();
  return useQuery({
    queryKey: ['settings', 'public'],
    queryFn: async () => (await dataProvider.publicSettings<PublicSettings>()).data,
    staleTime: 5 * 60_000,
    retry: false,
  });
}

/**
 * The company's name (company settings) for titles, from the public settings once they are read
 * (by the footer, the dates, the top bar); never a request of its own. The product's name until then.
 */
export function useCompanyName(): string {
  const translate = useTranslate();
  const { data } = useQuery<PublicSettings>({ queryKey: ['settings', 'public'], enabled: false });
  return data?.company_name || translate('app.name');
}

/** Somali month names: browsers' Intl has none for 'so' ("2026 M11 27" or English), so they are kept here. */
const SOMALI_MONTHS = ['Jannaayo', 'Febraayo', 'Maarso', 'Abriil', 'Maajo', 'Juun', 'Luuliyo', 'Ogost', 'Sebtembar', 'Oktoobar', 'Nofeembar', 'Desembar'];

/** "27 Nofeembar 2026, 23:16" (with seconds when `precise`) in the company's time zone. */
export function somaliDateTime(iso: string, timeZone: string | undefined, precise: boolean): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      ...(precise ? { second: '2-digit' } : {}),
      hourCycle: 'h23',
    })
      .formatToParts(new Date(iso))
      .map((p) => [p.type, p.value]),
  );
  const time = `${parts.hour}:${parts.minute}${precise ? `:${parts.second}` : ''}`;
  return `${Number(parts.day)} ${SOMALI_MONTHS[Number(parts.month) - 1]} ${parts.year}, ${time}`;
}

/**
 * Dates and times in the user's language and the company's time zone (the zone the reports count
 * days in), so "today" on a screen is the company's today. Shares the footer's settings query.
 */
export function useCompanyFormat() {
  const [locale] = useLocaleState();
  const { data, isPending } = usePublicSettings();
  const lang = locale === 'ae' ? 'ar' : locale;
  const timeZone = data?.timezone;
  return {
    timeZone,
    /** False until the company's settings answered (or failed): days computed before would be the browser's. */
    ready: !isPending,
    /** The company's calendar day `daysAgo` days before now, as YYYY-MM-DD (report filters). */
    companyDay: (daysAgo = 0) => companyDay(Date.now() - daysAgo * 86_400_000, timeZone),
    currency: data?.currency ?? 'USD',
    dateTime: (iso: string | null | undefined) => {
      if (!iso) return '';
      try {
        if (lang === 'so') return somaliDateTime(iso, timeZone, false);
        return new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(new Date(iso));
      } catch {
        return new Date(iso).toLocaleString();
      }
    },
    /** With seconds: remote calls a second apart must read apart. */
    preciseTime: (iso: string | null | undefined) => {
      if (!iso) return '';
      try {
        if (lang === 'so') return somaliDateTime(iso, timeZone, true);
        return new Intl.DateTimeFormat(lang, { dateStyle: 'short', timeStyle: 'medium', timeZone }).format(new Date(iso));
      } catch {
        return new Date(iso).toLocaleString();
      }
    },
    /** How long, in the user's language: "850 ms", "4.2 s", "12 min", "3 h 5 min", "2 d 4 h". */
    duration: (ms: number) => formatDuration(ms, lang),
  };
}

export function formatDuration(ms: number, lang: string): string {
  const unit = (value: number, u: string, digits = 0) => {
    try {
      return new Intl.NumberFormat(lang, { style: 'unit', unit: u, unitDisplay: 'short', maximumFractionDigits: digits }).format(value);
    } catch {
      return `${value} ${u}`;
    }
  };
  const v = Math.max(0, ms);
  if (v < 1000) return unit(Math.round(v), 'millisecond');
  if (v < 60_000) return unit(v / 1000, 'second', 1);
  const minutes = Math.floor(v / 60_000);
  if (minutes < 60) return unit(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 ? `${unit(hours, 'hour')} ${unit(minutes % 60, 'minute')}` : unit(hours, 'hour');
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${unit(days, 'day')} ${unit(hours % 24, 'hour')}` : unit(days, 'day');
}

/** YYYY-MM-DD of an instant in a time zone (the browser's when none or unknown). */
export function companyDay(at: number, timeZone?: string): string {
  try {
    return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(at));
  } catch {
    return new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(at));
  }
}
