import { useTranslate } from 'react-admin';
import { useQuery } from '@tanstack/react-query';
import {
  Alert,
  Button,
  Card,
  CardActionArea,
  CardActions,
  CardContent,
  CardHeader,
  Chip,
  Grid,
  Link,
  List,
  ListItem,
  ListItemButton,
  ListItemText,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
  useMediaQuery,
  type Theme,
} from '@mui/material';
import MissedIcon from '@mui/icons-material/RemoveShoppingCartOutlined';
import { Link as RouterLink } from 'react-router';
import { PageTitle } from '../common/PageTitle';
import { FullPageLoader } from '../common/FullPageLoader';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { useIsDealer } from '../auth/identity';
import { Chart } from '../charts/Chart';
import { Ltr, useLtr } from '../common/Ltr';
import { RechargeStatus } from '../recharges/RechargeStatus';
import { useMyWallet } from '../wallets/myWallet';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { useDaysText } from '../routing/floats';
import type { AggregatorFloat } from '../routing/types';
import { AttentionCards, type Attention } from './AttentionCards';
import { ConnectorModeLine } from './ConnectorModeLine';
import { SoldItem } from '../common/ContentText';

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
  latest: {
    id: number;
    reference: string;
    status: string;
    bundle_name: string;
    provider_name: string;
    phone: string;
    amount: string;
    currency: string;
    created_at: string;
  }[];
  wallet_balance: string;
  low_balance: boolean;
  /** Price-list profit beside the real margin (after gateway charges and the aggregators' own cost), staff only. */
  margin?: { last_30_days: { margin: string; list_profit: string; unknown_cost: number } };
  /**
   * The aggregators whose float is already below its threshold (the API's alert list: every one is
   * low, it carries no below_threshold), for holders of 'view delivery routes'.
   */
  floats?: Pick<AggregatorFloat, 'name' | 'label' | 'balance' | 'currency' | 'threshold' | 'days_left'>[];
  /** Staff: money requests waiting and dealers under their low-balance alert (null without the permission). */
  attention?: Attention;
  /** Purchases refused today because the dealer's wallet could not pay (a dealer: its own). */
  missed_sales?: {
    today_count: number;
    today_amount: string;
    by_dealer: { dealer: { id: number; name: string; dealer_code: string | null }; count: number; amount: string }[];
  };
}

const todayIn = (tz: string) => new Intl.DateTimeFormat('en-CA', { timeZone: tz }).format(new Date());

/** /dashboard: the day's and the month's sales, the last 30 days, what sells, who sells, the latest sales. */
export default function DashboardPage() {
  const translate = useTranslate();
  const dealer = useIsDealer();
  const fmt = useCompanyFormat();
  const ltr = useLtr();
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('md'));
  const dataProvider = useConsoleDataProvider();
  const { data, isPending, error } = useQuery({
    queryKey: ['dashboard'],
    queryFn: async () => (await dataProvider.dashboard<Dashboard>()).data,
    refetchInterval: 60_000,
  });
  // The layout's banner already warns a dealer below its own threshold (same cached call).
  const mine = useMyWallet();
  const days = useDaysText();
  if (error) return <Alert severity="error">{(error as Error).message}</Alert>;
  if (isPending || !data) return <FullPageLoader />;
  const today = todayIn(data.timezone);
  const month = `${today.slice(0, 8)}01`;
  // Amounts stay '0.30 USD' inside Arabic sentences too.
  const money = (v: string) => ltr(`${v} ${data.currency}`);
  const card = (title: string, f: Figures, from: string) => (
    <Card sx={{ height: '100%' }}>
      <CardActionArea component={RouterLink} to={`/recharges?status=completed&from=${from}&to=${today}`} sx={{ height: '100%' }}>
        <CardContent>
          <Typography color="text.secondary">{translate(title)}</Typography>
          <Typography variant="h4" component="p" sx={{ fontWeight: 700 }}>
            <Ltr>{money(f.revenue)}</Ltr>
          </Typography>
          <Typography variant="body2">{translate('dashboard.sales_line', { count: f.count, profit: money(f.profit) })}</Typography>
          <Typography variant="body2" color="text.secondary">
            {translate('dashboard.rate_line', { rate: f.success_rate === null ? '—' : ltr(`${f.success_rate}%`), pending: f.pending, failed: f.failed })}
          </Typography>
        </CardContent>
      </CardActionArea>
    </Card>
  );
  return (
    <>
      <PageTitle title={translate('menu.dashboard')} />
      <ConnectorModeLine />
      {data.missed_sales && data.missed_sales.today_count > 0 && <MissedSalesCard missed={data.missed_sales} dealer={dealer} money={money} today={today} />}
      <AttentionCards attention={data.attention} />
      {data.low_balance && !mine.data?.wallet.low_balance && (
        <Alert
          severity="warning"
          sx={{ mb: 2 }}
          action={
            <Link component={RouterLink} to="/my-wallet">
              {translate('dashboard.top_up')}
            </Link>
          }
        >
          {translate('dashboard.low_balance', { balance: money(data.wallet_balance) })}
        </Alert>
      )}
      <Grid container spacing={2}>
        <Grid size={{ xs: 12, sm: 6, md: data.margin ? 3 : 4 }}>{card('dashboard.today', data.today, today)}</Grid>
        <Grid size={{ xs: 12, sm: 6, md: data.margin ? 3 : 4 }}>{card('dashboard.month', data.month, month)}</Grid>
        {data.margin && (
          <Grid size={{ xs: 12, sm: 6, md: 3 }}>
            <Card sx={{ height: '100%' }}>
              <CardActionArea component={RouterLink} to="/reports/margins" sx={{ height: '100%' }}>
                <CardContent>
                  <Typography color="text.secondary">{translate('dashboard.margin_30_days')}</Typography>
                  <Typography variant="h4" component="p" sx={{ fontWeight: 700 }}>
                    <Ltr>{money(data.margin.last_30_days.margin)}</Ltr>
                  </Typography>
                  <Typography variant="body2">{translate('dashboard.list_profit_line', { profit: money(data.margin.last_30_days.list_profit) })}</Typography>
                  {data.margin.last_30_days.unknown_cost > 0 && (
                    <Typography variant="body2" color="text.secondary">
                      {translate('margins.unknown_cost', { smart_count: data.margin.last_30_days.unknown_cost })}
                    </Typography>
                  )}
                </CardContent>
              </CardActionArea>
            </Card>
          </Grid>
        )}
        <Grid size={{ xs: 12, sm: data.margin ? 6 : 12, md: data.margin ? 3 : 4 }}>
          <Card sx={{ height: '100%' }}>
            <CardActionArea component={RouterLink} to={dealer ? '/my-wallet' : '/wallets'} sx={{ height: '100%' }}>
              <CardContent>
                <Typography color="text.secondary">{translate(dealer ? 'dashboard.my_balance' : 'dashboard.dealer_balances')}</Typography>
                <Typography variant="h4" component="p" sx={{ fontWeight: 700 }}>
                  <Ltr>{money(data.wallet_balance)}</Ltr>
                </Typography>
              </CardContent>
            </CardActionArea>
          </Card>
        </Grid>
        {(data.floats ?? []).map((f) => (
          <Grid key={f.name} size={{ xs: 12, sm: 6, md: 4 }}>
            <Card sx={{ height: '100%', border: 1, borderColor: 'warning.main' }}>
              <CardActionArea component={RouterLink} to="/aggregators" sx={{ height: '100%' }}>
                <CardContent>
                  <Typography color="text.secondary">{translate('dashboard.float', { name: f.label })}</Typography>
                  <Typography variant="h4" component="p" sx={{ fontWeight: 700 }}>
                    <Ltr>{f.balance === null ? '—' : `${f.balance} ${f.currency ?? ''}`.trim()}</Ltr>
                  </Typography>
                  <Typography variant="body2" color="warning.main">
                    {f.days_left === null ? translate('aggregators.days_unknown') : translate('dashboard.float_days', { days: ltr(days(f.days_left)) })}
                  </Typography>
                  <Chip size="small" color="warning" label={translate('aggregators.low')} sx={{ mt: 1 }} />
                </CardContent>
              </CardActionArea>
            </Card>
          </Grid>
        ))}
        <Grid size={{ xs: 12 }}>
          <Card>
            <CardHeader title={translate('dashboard.last_30_days')} slotProps={{ title: { component: 'h2', variant: 'h6' } }} />
            <CardContent>
              <Chart
                points={data.days.map((d) => ({ key: d.date, value: Number(d.revenue) }))}
                isEmpty={data.days.every((d) => !Number(d.revenue))}
                period="day"
                label={translate('dashboard.chart_label')}
                seriesLabel={translate('reports.revenue')}
                currency={data.currency}
                empty={translate('dashboard.chart_empty')}
              />
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
            <CardHeader
              title={translate('dashboard.latest')}
              action={
                <Link component={RouterLink} to="/recharges">
                  {translate('dashboard.all_recharges')}
                </Link>
              }
              slotProps={{ title: { component: 'h2', variant: 'h6' } }}
            />
            <CardContent sx={{ overflowX: 'auto', ...(phone && data.latest.length > 0 ? { px: 0 } : {}) }}>
              {data.latest.length === 0 ? (
                <Typography color="text.secondary">{translate('dashboard.no_sales')}</Typography>
              ) : phone ? (
                <LatestSales latest={data.latest} money={money} />
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
                          <Link component={RouterLink} to={`/recharges/${r.id}`}>
                            <Ltr>{r.reference}</Ltr>
                          </Link>
                        </TableCell>
                        <TableCell>
                          <SoldItem names={[r.provider_name, r.bundle_name]} />
                        </TableCell>
                        <TableCell>
                          <Ltr>{r.phone}</Ltr>
                        </TableCell>
                        <TableCell>
                          <Ltr>{money(r.amount)}</Ltr>
                        </TableCell>
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
            <TableCell align="right">
              <Ltr>{money(r.revenue)}</Ltr>
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/**
 * Sales refused today because a wallet could not pay: a dealer is told to top up (its own
 * count, a link to /my-wallet); an admin sees the count and the dealers who missed the most. Both
 * open the missed-sales list.
 */
function MissedSalesCard({
  missed,
  dealer,
  money,
  today,
}: {
  missed: NonNullable<Dashboard['missed_sales']>;
  dealer: boolean;
  money: (v: string) => string;
  today: string;
}) {
  const translate = useTranslate();
  const list = `/missed-sales?from=${today}&to=${today}`;
  const ltr = useLtr();
  const name = (d: NonNullable<Dashboard['missed_sales']>['by_dealer'][number]['dealer']) => `${d.name}${d.dealer_code ? ` (${ltr(d.dealer_code)})` : ''}`;
  return (
    <Card variant="outlined" sx={{ mb: 2, borderColor: 'warning.main' }} component="section" aria-labelledby="missed-sales-title">
      <CardContent sx={{ pb: 1 }}>
        <Stack direction="row" sx={{ gap: 1.5, alignItems: 'flex-start' }}>
          <MissedIcon color="warning" sx={{ mt: 0.5 }} />
          <div>
            <Typography variant="h6" component="h2" id="missed-sales-title">
              {translate(dealer ? 'missed_sales.card_dealer' : 'missed_sales.card_admin', { smart_count: missed.today_count })}
            </Typography>
            <Typography variant="body2" color="text.secondary">
              {translate(dealer ? 'missed_sales.card_dealer_help' : 'missed_sales.card_admin_help', { amount: money(missed.today_amount) })}
            </Typography>
          </div>
        </Stack>
        {!dealer && missed.by_dealer.length > 0 && (
          <Table size="small" sx={{ mt: 1 }} aria-label={translate('missed_sales.top_dealers')}>
            <TableHead>
              <TableRow>
                <TableCell>{translate('wallets.fields.dealer')}</TableCell>
                <TableCell align="right">{translate('missed_sales.count')}</TableCell>
                <TableCell align="right">{translate('missed_sales.amount')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {missed.by_dealer.slice(0, 5).map((row) => (
                <TableRow key={row.dealer.id}>
                  <TableCell>
                    <Link component={RouterLink} to={`/missed-sales?dealer_id=${row.dealer.id}&from=${today}&to=${today}`}>
                      {name(row.dealer)}
                    </Link>
                  </TableCell>
                  <TableCell align="right">{row.count}</TableCell>
                  <TableCell align="right">
                    <Ltr>{money(row.amount)}</Ltr>
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}
      </CardContent>
      <CardActions sx={{ px: 2, pb: 2, gap: 1, flexWrap: 'wrap' }}>
        {dealer && (
          <Button component={RouterLink} to="/my-wallet?request=1" variant="contained" color="warning">
            {translate('missed_sales.top_up')}
          </Button>
        )}
        <Button component={RouterLink} to={list}>
          {translate('missed_sales.see_them')}
        </Button>
      </CardActions>
    </Card>
  );
}

/** The latest sales on a phone (under md): one line each, like react-admin's SimpleList, not a 600 px table. */
function LatestSales({ latest, money }: { latest: Dashboard['latest']; money: (amount: string) => string }) {
  const fmt = useCompanyFormat();
  return (
    <List dense disablePadding data-testid="latest-sales-list">
      {/* Each link in its own list item: a list holds only <li>s. */}
      {latest.map((r) => (
        <ListItem key={r.id} disablePadding>
          <ListItemButton component={RouterLink} to={`/recharges/${r.id}`} divider sx={{ gap: 1, alignItems: 'flex-start' }}>
            <ListItemText
              sx={{ minWidth: 0 }}
              primary={<SoldItem names={[r.provider_name, r.bundle_name]} />}
              secondary={
                <>
                  <Ltr>{r.phone}</Ltr> · <Ltr>{r.reference}</Ltr>
                  <br />
                  {fmt.dateTime(r.created_at)}
                </>
              }
              slotProps={{ primary: { noWrap: true }, secondary: { component: 'span', sx: { overflowWrap: 'anywhere' } } }}
            />
            <Stack sx={{ alignItems: 'flex-end', gap: 0.5, flexShrink: 0 }}>
              <Typography variant="body2" sx={{ fontWeight: 600 }}>
                <Ltr>{money(r.amount)}</Ltr>
              </Typography>
              <RechargeStatus status={r.status} />
            </Stack>
          </ListItemButton>
        </ListItem>
      ))}
    </List>
  );
}
