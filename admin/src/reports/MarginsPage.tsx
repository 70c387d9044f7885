import { useLocaleState, useTranslate } from 'react-admin';
import { useQuery } from '@tanstack/react-query';
import { Box, Card, CardContent, Divider, Stack, Table, TableBody, TableCell, TableFooter, TableHead, TableRow, Typography } from '@mui/material';
import { PageTitle } from '../common/PageTitle';
import { CsvDownloadButton } from '../common/CsvExportButton';
import { Ltr } from '../common/Ltr';
import { useIsPhone } from '../common/useIsPhone';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { formatKey, intlLang } from '../charts/chartFormat';
import { vendorName } from '../recharges/RemoteCallTimeline';
import { GroupByFilter, ReportError, ReportFilterBar, useCanExportReports, useReportFilters } from './ReportParts';

/** GET /reports/margins, declared here while the API's contracts are written. Money is decimal strings. */
interface Figures {
  count: number;
  revenue: string;
  list_profit: string;
  gateway_charges: string;
  aggregator_cost: string;
  margin: string;
  /** Sales whose aggregator cost is not known: left out of the margin. */
  unknown_cost: number;
}
interface Margins {
  rows: (Figures & { key: string; label: string })[];
  totals: Figures;
}

const GROUPS = ['day', 'dealer', 'provider', 'route'] as const;
const COLUMNS = ['revenue', 'list_profit', 'gateway_charges', 'aggregator_cost', 'margin'] as const;

/**
 * /reports/margins (staff): over a period, per day, dealer, operator or route, the price-list
 * profit beside the real margin (what the gateways charged and what the aggregators really cost
 * taken off), with the sales whose aggregator cost is not known counted apart, and its CSV.
 */
export default function MarginsPage() {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const phone = useIsPhone();
  const company = useCompanyFormat();
  const canExport = useCanExportReports();
  const { filters, set, ready, changed } = useReportFilters({ group_by: 'day' });
  const dataProvider = useConsoleDataProvider();
  const { data, error, isPending } = useQuery({
    queryKey: ['reports', 'margins', filters],
    queryFn: async () => (await dataProvider.report<Margins>('margins', { filter: filters })).data,
    enabled: ready,
  });
  // A day in the reader's calendar; a route by the aggregator's name as the console says it; the
  // API's "none" (sales with no aggregator, no dealer...) in the reader's words.
  const label = (r: { key: string; label: string }) =>
    r.key === 'none'
      ? translate(filters.group_by === 'route' ? 'margins.none_route' : 'margins.none')
      : filters.group_by === 'day'
        ? formatKey(r.label, 'day', intlLang(locale), 'tooltip')
        : filters.group_by === 'route'
          ? vendorName(r.label)
          : r.label;
  const money = (v: string) => <Ltr>{`${v} ${company.currency}`}</Ltr>;
  const heading = (c: (typeof COLUMNS)[number]) => translate(`margins.fields.${c}`);
  return (
    <>
      <PageTitle
        title={translate('menu.margins_report')}
        actions={
          canExport && (
            <CsvDownloadButton
              path="/reports/margins"
              query={{ ...filters, format: 'csv' }}
              fileName={`margins-${filters.from}-${filters.to}-by-${filters.group_by}.csv`}
            />
          )
        }
      />
      <ReportFilterBar from={filters.from} to={filters.to} set={set} changed={changed}>
        <GroupByFilter value={filters.group_by} onChange={set('group_by')} groups={GROUPS} />
      </ReportFilterBar>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2, maxWidth: 900 }}>
        {translate('margins.help')}
      </Typography>
      <ReportError error={error} />
      {isPending && ready && <Typography color="text.secondary">{translate('ra.page.loading')}</Typography>}
      {data && (
        <Card>
          <CardContent>
            {data.rows.length === 0 ? (
              <Typography color="text.secondary">{translate('dashboard.no_sales')}</Typography>
            ) : phone ? (
              <Stack divider={<Divider flexItem />} spacing={1}>
                {[...data.rows, { ...data.totals, key: '__total', label: translate('reports.total') }].map((r) => (
                  <Box key={r.key}>
                    <Typography variant="body2" sx={{ fontWeight: 700 }}>
                      {r.key === '__total' ? r.label : label(r)} · {translate('margins.sales', { smart_count: r.count })}
                    </Typography>
                    <Typography variant="body2">
                      {heading('margin')}: <strong>{money(r.margin)}</strong> · {heading('list_profit')}: {money(r.list_profit)}
                    </Typography>
                    <Typography variant="caption" color="text.secondary" component="div">
                      {heading('gateway_charges')}: {money(r.gateway_charges)} · {heading('aggregator_cost')}: {money(r.aggregator_cost)}
                    </Typography>
                  </Box>
                ))}
              </Stack>
            ) : (
              <Box sx={{ overflowX: 'auto' }}>
                <Table size="small" aria-label={translate('menu.margins_report')}>
                  <TableHead>
                    <TableRow>
                      <TableCell>{translate(`reports.groups.${filters.group_by}`)}</TableCell>
                      <TableCell align="right">{translate('reports.count')}</TableCell>
                      {COLUMNS.map((c) => (
                        <TableCell key={c} align="right">
                          {heading(c)}
                        </TableCell>
                      ))}
                      <TableCell align="right">{translate('margins.fields.unknown_cost')}</TableCell>
                    </TableRow>
                  </TableHead>
                  <TableBody>
                    {data.rows.map((r) => (
                      <TableRow key={r.key}>
                        <TableCell>
                          <bdi>{label(r)}</bdi>
                        </TableCell>
                        <TableCell align="right">{r.count}</TableCell>
                        {COLUMNS.map((c) => (
                          <TableCell key={c} align="right" sx={c === 'margin' ? { fontWeight: 700 } : undefined}>
                            <Ltr>{r[c]}</Ltr>
                          </TableCell>
                        ))}
                        <TableCell align="right">{r.unknown_cost || '—'}</TableCell>
                      </TableRow>
                    ))}
                  </TableBody>
                  <TableFooter>
                    <TableRow>
                      <TableCell sx={{ fontWeight: 700 }}>{translate('reports.total')}</TableCell>
                      <TableCell align="right" sx={{ fontWeight: 700 }}>
                        {data.totals.count}
                      </TableCell>
                      {COLUMNS.map((c) => (
                        <TableCell key={c} align="right" sx={{ fontWeight: 700 }}>
                          <Ltr>{data.totals[c]}</Ltr>
                        </TableCell>
                      ))}
                      <TableCell align="right" sx={{ fontWeight: 700 }}>
                        {data.totals.unknown_cost || '—'}
                      </TableCell>
                    </TableRow>
                  </TableFooter>
                </Table>
              </Box>
            )}
            {data.totals.unknown_cost > 0 && (
              <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
                {translate('margins.unknown_cost', { smart_count: data.totals.unknown_cost })}
              </Typography>
            )}
          </CardContent>
        </Card>
      )}
    </>
  );
}
