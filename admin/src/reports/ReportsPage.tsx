import { useGetList, useLocaleState, useTranslate } from 'react-admin';
import { useQuery } from '@tanstack/react-query';
import { Box, Card, CardContent, MenuItem, Table, TableBody, TableCell, TableFooter, TableHead, TableRow, TextField, Typography } from '@mui/material';
import { RECHARGE_STATUSES } from '@app/contracts';
import { PageTitle } from '../common/PageTitle';
import { CsvDownloadButton } from '../common/CsvExportButton';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { DealerFilter, GroupByFilter, ReportError, ReportFilterBar, useCanExportReports, useReportFilters } from './ReportParts';
import { useIsDealer, useUserPermissions } from '../auth/identity';
import { hasPermission } from '../permissions/permissions';
import { Chart } from '../charts/Chart';
import { fillPeriods, formatKey, intlLang, type Period } from '../charts/chartFormat';
import { useContentText } from '../common/ContentText';

interface Row {
  key: string;
  label: string;
  count: number;
  revenue: string;
  cost?: string;
  profit: string;
}
interface Report {
  from: string;
  to: string;
  group_by: string;
  rows: Row[];
  totals: Omit<Row, 'key' | 'label'>;
}
const GROUPS = ['day', 'week', 'month', 'provider', 'bundle', 'dealer'] as const;
const periodOf = (group: string): Period => (group === 'day' || group === 'week' || group === 'month' ? group : 'category');
/** The rows as chart points: every day, week or month of the range (0 where nothing sold); names as they are. */
const chartPoints = (data: Report) =>
  fillPeriods(
    data.rows.map((r) => ({ key: r.label, value: Number(r.revenue) })),
    periodOf(data.group_by),
    { from: data.from, to: data.to },
  );

/** /reports: sales over a date range, filtered and grouped, with totals, a chart and the CSV of exactly what is shown. */
export default function ReportsPage() {
  const translate = useTranslate();
  const text = useContentText();
  const [locale] = useLocaleState();
  const dealer = useIsDealer();
  const permissions = useUserPermissions();
  // Each picker only for those who may read its choices (a dealer's operators are its own).
  const picksOperator = dealer || hasPermission(permissions, 'view internet providers');
  const picksMethod = hasPermission(permissions, 'view payment methods');
  const company = useCompanyFormat();
  // The filters live in the URL (?from=&group_by=provider ...), so a report's link can be shared and reloaded.
  const { filters, set, ready, changed } = useReportFilters({
    group_by: 'day',
    dealer_id: '',
    provider_id: '',
    category: '',
    payment_method_id: '',
    status: '',
  });
  const dataProvider = useConsoleDataProvider();
  const { data, error, isPending } = useQuery({
    queryKey: ['reports', 'sales', filters],
    queryFn: async () => (await dataProvider.report<Report>('sales', { filter: filters })).data,
    enabled: ready,
  });
  // A dealer may not read /internet-providers: its own operators are /dealer-providers (same ids).
  const providers = useGetList(
    dealer ? 'dealer-providers' : 'internet-providers',
    { pagination: { page: 1, perPage: 100 }, sort: { field: 'name', order: 'ASC' } },
    { enabled: picksOperator },
  );
  const methods = useGetList('payment-methods', { pagination: { page: 1, perPage: 100 }, sort: { field: 'name', order: 'ASC' } }, { enabled: picksMethod });
  const seesCost = data?.totals.cost !== undefined;
  const canExport = useCanExportReports();
  return (
    <>
      <PageTitle
        title={translate('menu.sales_report')}
        actions={
          canExport && (
            <CsvDownloadButton
              path="/reports/sales"
              query={{ ...filters, format: 'csv' }}
              fileName={`sales-${filters.from}-${filters.to}-by-${filters.group_by}.csv`}
            />
          )
        }
      />
      <ReportFilterBar from={filters.from} to={filters.to} set={set} changed={changed}>
        <GroupByFilter value={filters.group_by} onChange={set('group_by')} groups={GROUPS.filter((g) => !(dealer && g === 'dealer'))} />
        {!dealer && <DealerFilter value={filters.dealer_id} onChange={set('dealer_id')} />}
        {picksOperator && (
          <TextField
            select
            slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
            label={translate('recharges.fields.provider')}
            value={filters.provider_id}
            onChange={set('provider_id')}
            size="small"
            sx={{ minWidth: 160 }}
          >
            <MenuItem value="">{translate('reports.all')}</MenuItem>
            {(providers.data ?? []).map((p) => (
              <MenuItem key={p.id} value={String(p.id)}>
                <bdi>{text(p, 'name', p.name)}</bdi>
              </MenuItem>
            ))}
          </TextField>
        )}
        <TextField label={translate('reports.category')} value={filters.category} onChange={set('category')} size="small" sx={{ minWidth: 140 }} />
        {picksMethod && (
          <TextField
            select
            slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
            label={translate('recharges.fields.payment_method')}
            value={filters.payment_method_id}
            onChange={set('payment_method_id')}
            size="small"
            sx={{ minWidth: 170 }}
          >
            <MenuItem value="">{translate('reports.all')}</MenuItem>
            {(methods.data ?? []).map((m) => (
              <MenuItem key={m.id} value={String(m.id)}>
                {m.name}
              </MenuItem>
            ))}
          </TextField>
        )}
        <TextField
          select
          slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
          label={translate('recharges.fields.status')}
          value={filters.status}
          onChange={set('status')}
          size="small"
          sx={{ minWidth: 160 }}
        >
          <MenuItem value="">{translate('recharges.status.completed')}</MenuItem>
          <MenuItem value="all">{translate('reports.all')}</MenuItem>
          {RECHARGE_STATUSES.filter((s) => s !== 'completed').map((s) => (
            <MenuItem key={s} value={s}>
              {translate(`recharges.status.${s}`)}
            </MenuItem>
          ))}
        </TextField>
      </ReportFilterBar>
      <ReportError error={error} />
      {isPending && <Typography color="text.secondary">{translate('ra.page.loading')}</Typography>}
      {data && (
        <Card>
          <CardContent sx={{ overflowX: 'auto' }}>
            <Box sx={{ mb: 2 }}>
              <Chart
                points={chartPoints(data)}
                isEmpty={data.rows.every((r) => !Number(r.revenue))}
                period={periodOf(data.group_by)}
                label={translate('reports.chart_label')}
                seriesLabel={translate('reports.revenue')}
                currency={company.currency}
                empty={translate('reports.chart_empty')}
              />
            </Box>
            <Table size="small" aria-label={translate('menu.sales_report')}>
              <TableHead>
                <TableRow>
                  <TableCell>{translate(`reports.groups.${data.group_by}`)}</TableCell>
                  <TableCell align="right">{translate('reports.count')}</TableCell>
                  <TableCell align="right">{translate('reports.revenue')}</TableCell>
                  {seesCost && <TableCell align="right">{translate('recharges.fields.cost')}</TableCell>}
                  <TableCell align="right">{translate('recharges.fields.profit')}</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {data.rows.map((r) => (
                  <TableRow key={r.key}>
                    <TableCell>{formatKey(r.label, periodOf(data.group_by), intlLang(locale), 'tooltip')}</TableCell>
                    <TableCell align="right">{r.count}</TableCell>
                    <TableCell align="right">{r.revenue}</TableCell>
                    {seesCost && <TableCell align="right">{r.cost}</TableCell>}
                    <TableCell align="right">{r.profit}</TableCell>
                  </TableRow>
                ))}
                {data.rows.length === 0 && (
                  <TableRow>
                    <TableCell colSpan={5}>{translate('dashboard.no_sales')}</TableCell>
                  </TableRow>
                )}
              </TableBody>
              <TableFooter>
                <TableRow>
                  <TableCell sx={{ fontWeight: 700 }}>{translate('reports.total')}</TableCell>
                  <TableCell align="right" sx={{ fontWeight: 700 }}>
                    {data.totals.count}
                  </TableCell>
                  <TableCell align="right" sx={{ fontWeight: 700 }}>
                    {data.totals.revenue}
                  </TableCell>
                  {seesCost && (
                    <TableCell align="right" sx={{ fontWeight: 700 }}>
                      {data.totals.cost}
                    </TableCell>
                  )}
                  <TableCell align="right" sx={{ fontWeight: 700 }}>
                    {data.totals.profit}
                  </TableCell>
                </TableRow>
              </TableFooter>
            </Table>
          </CardContent>
        </Card>
      )}
    </>
  );
}
