import { useTranslate } from 'react-admin';
import { useQuery } from '@tanstack/react-query';
import { Alert, Card, CardActionArea, CardContent, CardHeader, Chip, Grid, Link, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { Link as RouterLink } from 'react-router';
import { PageTitle } from '../common/PageTitle';
import { FullPageLoader } from '../common/FullPageLoader';
import { apiFetch } from '../providers/http';
import { useSession } from '../providers/useSession';
import { Bars } from '../reports/Bars';
import { RechargeStatus } from '../recharges/RechargeList';
import { useCompanyFormat } from '../common/useCompanyFormat';

interface Figures {
  count: number;
  revenue: string;
  cost?: string;
  profit: string;
  pending: number;
  failed: number;
  success_rate: number | null;
}
interface Dashboard {
  currency: string;
  timezone: string;
  today: Figures;
  month: Figures;
  days: { date: string; count: number; revenue: string; profit: string }[];
  top_bundles: { key: string; label: string; count: number; revenue: string; profit: string }[];
  top_dealers: { key: string; id: number; label: string; count: number; revenue: string; profit: string }[];
  latest: { id: number; reference: string; status: string; bundle_name: string; provider_name: string; phone: string; amount: string; currency: string; created_at: string }[];
  wallet_balance: string;
  low_balance: boolean;
}

const todayIn = (tz: string) => new Intl.DateTimeFormat('en-CA', { timeZone: tz }).format(new Date());

/** /dashboard: the day's and the month's sales, the last 30 days, what sells, who sells, the latest sales. */
export default function DashboardPage() {
  const translate = useTranslate();
  const dealer = useSession().user?.user_type === 'dealer';
  const fmt = useCompanyFormat();
  const { data, isPending, error } = useQuery({ queryKey: ['dashboard'], queryFn: async () => (await apiFetch<Dashboard>('/dashboard')).data as Dashboard, refetchInterval: 60_000 });
  if (error) return <Alert severity="error">{(error as Error).message}</Alert>;
  if (isPending || !data) return <FullPageLoader />;
  const today = todayIn(data.timezone);
  const month = `${today.slice(0, 8)}01`;
  const money = (v: string) => `${v} ${data.currency}`;
  const card = (title: string, f: Figures, from: string) => (
    <Card sx={{ height: '100%' }}>
      <CardActionArea component={RouterLink} to={`/recharges?status=completed&from=${from}&to=${today}`} sx={{ height: '100%' }}>
        <CardContent>
          <Typography color="text.secondary">{translate(title)}</Typography>
          <Typography variant="h4" component="p" sx={{ fontWeight: 700 }}>{money(f.revenue)}</Typography>
          <Typography variant="body2">{translate('dashboard.sales_line', { count: f.count, profit: money(f.profit) })}</Typography>
          <Typography variant="body2" color="text.secondary">
            {translate('dashboard.rate_line', { rate: f.success_rate === null ? '—' : `${f.success_rate}%`, pending: f.pending, failed: f.failed })}
          </Typography>
        </CardContent>
      </CardActionArea>
    </Card>
  );
  return (
    <>
      <PageTitle title={translate('menu.dashboard')} />
      {data.low_balance && (
        <Alert severity="warning" sx={{ mb: 2 }} action={<Link component={RouterLink} to="/my-wallet">{translate('dashboard.top_up')}</Link>}>
          {translate('dashboard.low_balance', { balance: money(data.wallet_balance) })}
        </Alert>
      )}
      <Grid container spacing={2}>
        <Grid size={{ xs: 12, sm: 6, md: 4 }}>{card('dashboard.today', data.today, today)}</Grid>
        <Grid size={{ xs: 12, sm: 6, md: 4 }}>{card('dashboard.month', data.month, month)}</Grid>
        <Grid size={{ xs: 12, md: 4 }}>
          <Card sx={{ height: '100%' }}>
            <CardActionArea component={RouterLink} to={dealer ? '/my-wallet' : '/wallets'} sx={{ height: '100%' }}>
              <CardContent>
                <Typography color="text.secondary">{translate(dealer ? 'dashboard.my_balance' : 'dashboard.dealer_balances')}</Typography>
                <Typography variant="h4" component="p" sx={{ fontWeight: 700 }}>{money(data.wallet_balance)}</Typography>
              </CardContent>
            </CardActionArea>
          </Card>
        </Grid>
        <Grid size={{ xs: 12 }}>
          <Card>
            <CardHeader title={translate('dashboard.last_30_days')} slotProps={{ title: { component: 'h2', variant: 'h6' } }} />
            <CardContent>
              <Bars rows={data.days.map((d) => ({ label: d.date, value: Number(d.revenue) }))} label={translate('dashboard.chart_label')} />
            </CardContent>
          </Card>
        </Grid>
        <Grid size={{ xs: 12, md: dealer ? 12 : 6 }}>
          <Card sx={{ height: '100%' }}>
            <CardHeader title={translate('dashboard.top_bundles')} slotProps={{ title: { component: 'h2', variant: 'h6' } }} />
            <CardContent>
              <Ranked rows={data.top_bundles} money={money} />
            </CardContent>
          </Card>
        </Grid>
        {!dealer && (
          <Grid size={{ xs: 12, md: 6 }}>
            <Card sx={{ height: '100%' }}>
              <CardHeader title={translate('dashboard.top_dealers')} slotProps={{ title: { component: 'h2', variant: 'h6' } }} />
              <CardContent>
                <Ranked rows={data.top_dealers} money={money} />
              </CardContent>
            </Card>
          </Grid>
        )}
        <Grid size={{ xs: 12 }}>
          <Card>
            <CardHeader title={translate('dashboard.latest')} action={<Link component={RouterLink} to="/recharges">{translate('dashboard.all_recharges')}</Link>} slotProps={{ title: { component: 'h2', variant: 'h6' } }} />
            <CardContent sx={{ overflowX: 'auto' }}>
              {data.latest.length === 0 ? (
                <Typography color="text.secondary">{translate('dashboard.no_sales')}</Typography>
              ) : (
                <Table size="small">
                  <TableHead>
                    <TableRow>
                      <TableCell>{translate('recharges.fields.created_at')}</TableCell>
                      <TableCell>{translate('recharges.fields.reference')}</TableCell>
                      <TableCell>{translate('recharges.fields.bundle')}</TableCell>
                      <TableCell>{translate('recharges.fields.phone')}</TableCell>
                      <TableCell>{translate('recharges.fields.amount')}</TableCell>
                      <TableCell>{translate('recharges.fields.status')}</TableCell>
                    </TableRow>
                  </TableHead>
                  <TableBody>
                    {data.latest.map((r) => (
                      <TableRow key={r.id} hover>
                        <TableCell>{fmt.dateTime(r.created_at)}</TableCell>
                        <TableCell>
                          <Link component={RouterLink} to={`/recharges/${r.id}`}>{r.reference}</Link>
                        </TableCell>
                        <TableCell>{`${r.provider_name} · ${r.bundle_name}`}</TableCell>
                        <TableCell>{r.phone}</TableCell>
                        <TableCell>{money(r.amount)}</TableCell>
                        <TableCell>
                          <RechargeStatus status={r.status} />
                        </TableCell>
                      </TableRow>
                    ))}
                  </TableBody>
                </Table>
              )}
            </CardContent>
          </Card>
        </Grid>
      </Grid>
    </>
  );
}

function Ranked({ rows, money }: { rows: { key: string; label: string; count: number; revenue: string; profit: string }[]; money: (v: string) => string }) {
  const translate = useTranslate();
  if (!rows.length) return <Typography color="text.secondary">{translate('dashboard.no_sales')}</Typography>;
  return (
    <Table size="small">
      <TableBody>
        {rows.map((r) => (
          <TableRow key={r.key}>
            <TableCell>{r.label}</TableCell>
            <TableCell align="right">
              <Chip size="small" label={translate('dashboard.count', { count: r.count })} />
            </TableCell>
            <TableCell align="right">{money(r.revenue)}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
