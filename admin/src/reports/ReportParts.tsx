import { useId, useState, type ChangeEvent, type ReactNode } from 'react';
import { useGetList, useTranslate } from 'react-admin';
import { Alert, Button, Card, CardContent, Collapse, MenuItem, Stack, TextField } from '@mui/material';
import FilterListIcon from '@mui/icons-material/FilterList';
import { useIsPhone } from '../common/useIsPhone';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { serverMessage } from '../providers/errors';
import { useUrlFilters } from './useUrlFilters';
import { useUserPermissions } from '../auth/identity';
import { hasPermission } from '../permissions/permissions';

/** Whether the reader may download reports (the API refuses a report's CSV or PDF without 'export reports'). */
export const useCanExportReports = (): boolean => hasPermission(useUserPermissions(), 'export reports');

type Setter<T> = (key: keyof T) => (e: ChangeEvent<HTMLInputElement>) => void;

/**
 * A report's filters, kept in the URL (?from=&to=&group_by=...), with the period defaulting to the
 * last 30 days of the company's calendar (not the browser's) until the user picks dates. `ready`:
 * the company's time zone is known (days computed before would be the browser's).
 */
export function useReportFilters<T extends Record<string, string>>(defaults: T) {
  const company = useCompanyFormat();
  const [picked, set] = useUrlFilters({ from: '', to: '', ...defaults });
  const filters = { ...picked, from: picked.from || company.companyDay(29), to: picked.to || company.companyDay(0) };
  // The page's own filters moved from their defaults (the period aside): the phone's Filters button says how many.
  const changed = Object.keys(defaults).filter((k) => (picked as Record<string, string>)[k] && (picked as Record<string, string>)[k] !== defaults[k]).length;
  return { filters, set: set as Setter<T & { from: string; to: string }>, ready: company.ready, changed };
}

/**
 * The report pages' filter bar: the period, then the page's own filters (`children`). On a phone the
 * period stays in view and the page's own filters wait behind a "Filters" button (with how many are
 * set), so the figures start on the first screen instead of under eight stacked inputs.
 */
export function ReportFilterBar({
  from,
  to,
  set,
  changed = 0,
  children,
}: {
  from: string;
  to: string;
  set: Setter<{ from: string; to: string }>;
  /** How many of the page's own filters are set (useReportFilters): shown on the phone's Filters button while they are hidden. */
  changed?: number;
  children?: ReactNode;
}) {
  const translate = useTranslate();
  const phone = useIsPhone();
  const [more, setMore] = useState(false);
  const moreId = useId();
  const period = (
    <>
      <TextField
        type="date"
        label={translate('wallets.fields.from')}
        value={from}
        onChange={set('from')}
        slotProps={{ inputLabel: { shrink: true } }}
        size="small"
      />
      <TextField type="date" label={translate('wallets.fields.to')} value={to} onChange={set('to')} slotProps={{ inputLabel: { shrink: true } }} size="small" />
    </>
  );
  if (!phone)
    return (
      <Card sx={{ mb: 2 }}>
        <CardContent>
          <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 2, '& .MuiTextField-root': { width: 'auto', minWidth: 160 } }}>
            {period}
            {children}
          </Stack>
        </CardContent>
      </Card>
    );
  return (
    <Card sx={{ mb: 2 }}>
      <CardContent sx={{ '&:last-child': { pb: 2 } }}>
        <Stack direction="row" sx={{ gap: 1, '& .MuiTextField-root': { flex: 1, minWidth: 0 } }}>
          {period}
        </Stack>
        {children && (
          <>
            <Button
              size="small"
              startIcon={<FilterListIcon />}
              onClick={() => setMore((open) => !open)}
              aria-expanded={more}
              aria-controls={moreId}
              sx={{ mt: 1 }}
            >
              {changed ? translate('reports.more_filters_set', { smart_count: changed }) : translate('reports.more_filters')}
            </Button>
            <Collapse in={more} id={moreId} unmountOnExit>
              <Stack sx={{ gap: 2, pt: 1, '& .MuiTextField-root': { width: '100%' } }}>{children}</Stack>
            </Collapse>
          </>
        )}
      </CardContent>
    </Card>
  );
}

/** "Group by" over a report's groups (reports.groups.*). */
export function GroupByFilter({ value, onChange, groups }: { value: string; onChange: (e: ChangeEvent<HTMLInputElement>) => void; groups: readonly string[] }) {
  const translate = useTranslate();
  return (
    <TextField select label={translate('reports.group_by')} value={value} onChange={onChange} size="small" sx={{ minWidth: 140 }}>
      {groups.map((g) => (
        <MenuItem key={g} value={g}>
          {translate(`reports.groups.${g}`)}
        </MenuItem>
      ))}
    </TextField>
  );
}

/** One dealer or all (staff only: a dealer's reports are its own). */
export function DealerFilter({ value, onChange, minWidth = 180 }: { value: string; onChange: (e: ChangeEvent<HTMLInputElement>) => void; minWidth?: number }) {
  const translate = useTranslate();
  const dealers = useGetList('user-options', {
    filter: { user_type: 'dealer' },
    pagination: { page: 1, perPage: 100 },
    sort: { field: 'name', order: 'ASC' },
  });
  return (
    <TextField
      select
      slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
      label={translate('wallets.fields.dealer')}
      value={value}
      onChange={onChange}
      size="small"
      sx={{ minWidth }}
    >
      <MenuItem value="">{translate('reports.all')}</MenuItem>
      {(dealers.data ?? []).map((d) => (
        <MenuItem key={d.id} value={String(d.id)}>
          {d.name}
        </MenuItem>
      ))}
    </TextField>
  );
}

/** Why a report could not be read, in the server's words. */
export function ReportError({ error }: { error: unknown }) {
  if (!error) return null;
  return <Alert severity="error">{serverMessage(error)}</Alert>;
}
