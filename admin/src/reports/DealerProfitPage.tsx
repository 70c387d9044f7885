import { useTranslate } from 'react-admin';
import { useQuery } from '@tanstack/react-query';
import { Card, CardContent, CardHeader, Stack, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { PageTitle } from '../common/PageTitle';
import { CsvDownloadButton } from '../common/CsvExportButton';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { DealerFilter, ReportError, ReportFilterBar, useCanExportReports, useReportFilters } from './ReportParts';
import { useIsDealer } from '../auth/identity';

interface Figures {
  count: number;
  revenue: string;
  cost?: string;
  profit: string;
}
interface Profit {
  rows: (Figures & { dealer: { id: number; name: string; dealer_code: string | null }; pricing_model: string })[];
  totals: Figures;
  bundles?: (Figures & { name: string; provider: string })[];
}

/** /reports/dealer-profit: profit per dealer over a period; for one dealer (or a dealer itself), per bundle. */
export default function DealerProfitPage() {
  const translate = useTranslate();
  const dealer = useIsDealer();
  // The filters live in the URL (?from=&dealer_id=), so the page can be shared and reloaded.
  const { filters, set, ready, changed } = useReportFilters({ dealer_id: '' });
  const dataProvider = useConsoleDataProvider();
  const canExport = useCanExportReports();
  const { data, error } = useQuery({
    queryKey: ['reports', 'dealer-profit', filters],
    queryFn: async () => (await dataProvider.report<Profit>('dealer-profit', { filter: filters })).data,
    enabled: ready,
  });
  return (
    <>
      <PageTitle
        title={translate('menu.dealer_profit_report')}
        actions={
          canExport && (
            <CsvDownloadButton
              path="/reports/dealer-profit"
              query={{ ...filters, format: 'csv' }}
              fileName={`dealer-profit-${filters.from}-${filters.to}${dealer || filters.dealer_id ? '-by-bundle' : ''}.csv`}
            />
          )
        }
      />
      <ReportFilterBar from={filters.from} to={filters.to} set={set} changed={changed}>
        {!dealer && <DealerFilter value={filters.dealer_id} onChange={set('dealer_id')} minWidth={200} />}
      </ReportFilterBar>
      <ReportError error={error} />
      {data && (
        <Stack spacing={2}>
          <Card>
            <CardContent sx={{ overflowX: 'auto' }}>
              <Table size="small" aria-label={translate('menu.dealer_profit_report')}>
                <TableHead>
                  <TableRow>
                    <TableCell>{translate('wallets.fields.dealer')}</TableCell>
                    <TableCell>{translate('wallets.fields.pricing_model')}</TableCell>
                    <TableCell align="right">{translate('reports.count')}</TableCell>
                    <TableCell align="right">{translate('reports.revenue')}</TableCell>
                    <TableCell align="right">{translate('recharges.fields.profit')}</TableCell>
                  </TableRow>
                </TableHead>
                <TableBody>
                  {data.rows.map((r) => (
                    <TableRow key={r.dealer.id}>
                      <TableCell>{`${r.dealer.name}${r.dealer.dealer_code ? ` (${r.dealer.dealer_code})` : ''}`}</TableCell>
                      <TableCell>{translate(`wallets.pricing.${r.pricing_model}`)}</TableCell>
                      <TableCell align="right">{r.count}</TableCell>
                      <TableCell align="right">{r.revenue}</TableCell>
                      <TableCell align="right" sx={{ fontWeight: 700 }}>
                        {r.profit}
                      </TableCell>
                    </TableRow>
                  ))}
                  <TableRow>
                    <TableCell sx={{ fontWeight: 700 }}>{translate('reports.total')}</TableCell>
                    <TableCell />
                    <TableCell align="right">{data.totals.count}</TableCell>
                    <TableCell align="right">{data.totals.revenue}</TableCell>
                    <TableCell align="right" sx={{ fontWeight: 700 }}>
                      {data.totals.profit}
                    </TableCell>
                  </TableRow>
                </TableBody>
              </Table>
              {data.rows.length === 0 && (
                <Typography color="text.secondary" sx={{ mt: 1 }}>
                  {translate('dashboard.no_sales')}
                </Typography>
              )}
            </CardContent>
          </Card>
          {data.bundles && (
            <Card>
              <CardHeader title={translate('reports.per_bundle')} slotProps={{ title: { component: 'h2', variant: 'h6' } }} />
              <CardContent sx={{ overflowX: 'auto' }}>
                <Table size="small">
                  <TableBody>
                    {data.bundles.map((b, i) => (
                      <TableRow key={i}>
                        <TableCell>{`${b.provider} · ${b.name}`}</TableCell>
                        <TableCell align="right">{b.count}</TableCell>
                        <TableCell align="right">{b.revenue}</TableCell>
                        <TableCell align="right" sx={{ fontWeight: 700 }}>
                          {b.profit}
                        </TableCell>
                      </TableRow>
                    ))}
                  </TableBody>
                </Table>
              </CardContent>
            </Card>
          )}
        </Stack>
      )}
    </>
  );
}
