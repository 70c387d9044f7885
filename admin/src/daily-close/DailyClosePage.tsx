import { useState, type ReactNode } from 'react';
import { Link as RouterLink, useNavigate, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { Confirm, useNotify, useTranslate } from 'react-admin';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  CardHeader,
  Chip,
  Divider,
  Grid,
  IconButton,
  Link,
  Paper,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import PrevIcon from '@mui/icons-material/ChevronLeft';
import NextIcon from '@mui/icons-material/ChevronRight';
import RefreshIcon from '@mui/icons-material/Refresh';
import LockIcon from '@mui/icons-material/LockOutlined';
import { PageTitle } from '../common/PageTitle';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { FullPageLoader } from '../common/FullPageLoader';
import { LoadError } from '../common/ListParts';
import { FileDownloadButton } from '../common/CsvExportButton';
import { isolate, Ltr, useLtr } from '../common/Ltr';
import { useIsPhone } from '../common/useIsPhone';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { useUserPermissions } from '../auth/identity';
import { hasPermission } from '../permissions/permissions';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { serverMessage } from '../providers/errors';
import { vendorName } from '../recharges/RemoteCallTimeline';
import { DAILY_CLOSE_PATH } from './DailyCloseListPage';
import { DayStatusChip, RecordSide } from './DayParts';
import { FigureCard } from '../common/FigureCard';
import { DifferenceActions } from './DifferenceActions';
import type { DailyClose, Difference } from './types';

/** The day before or after a YYYY-MM-DD (calendar arithmetic, no time zone involved). */
export function shiftDay(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

const isDay = (s: string | undefined): s is string => !!s && /^\d{4}-\d{2}-\d{2}$/.test(s);

/**
 * /reports/daily-close/{date}: one company day reconciled with the vendors' records. The day's
 * figures (sales, price-list profit beside the real margin, what the gateways and aggregators
 * charged, the ledger, sales per status), each vendor's records, the differences found (ours
 * beside theirs, the evidence, and how each was handled) and the corrections booked to the day.
 * 'manage daily close' refreshes it, handles its differences and closes it (which freezes the
 * figures: a closed day only exports).
 */
export default function DailyClosePage() {
  const translate = useTranslate();
  const notify = useNotify();
  const navigate = useNavigate();
  const fmt = useCompanyFormat();
  const ltr = useLtr();
  const phone = useIsPhone();
  const { date: param } = useParams();
  const today = fmt.companyDay(0);
  const date = isDay(param) ? param : today;
  const permissions = useUserPermissions();
  const canManage = hasPermission(permissions, 'manage daily close');
  // Downloading the day is a report's export: 'export reports' (the API refuses it otherwise).
  const canExport = hasPermission(permissions, 'export reports');
  const dataProvider = useConsoleDataProvider();
  const { data, error, isPending, refetch } = useQuery({
    queryKey: ['daily-close', date],
    queryFn: async () => (await dataProvider.dailyClose<DailyClose>({ date })).data,
  });
  const [busy, setBusy] = useState<'refresh' | 'close' | null>(null);
  const [confirmClose, setConfirmClose] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);

  const act = async (action: 'refresh' | 'close') => {
    setBusy(action);
    setActionError(null);
    try {
      const res = await dataProvider.dailyCloseAction({ date, action });
      notify(res.message ?? `daily_close.${action}_done`, { type: 'success' });
      await refetch();
    } catch (e) {
      // A 409 (a day already closed, sales still in flight...) says why in the server's words.
      setActionError(serverMessage(e));
    } finally {
      setBusy(null);
      setConfirmClose(false);
    }
  };

  const title = translate('daily_close.day_title', { date: ltr(date) });
  const open = data?.status === 'open';
  // The API refuses to close a day with differences still to handle, or one never refreshed: say so beforehand.
  const closeBlocked = !data
    ? null
    : data.totals.differences.unhandled > 0
      ? translate('daily_close.close_blocked_unhandled')
      : data.refreshed_at === null
        ? translate('daily_close.close_blocked_refresh')
        : null;
  // Profit is null for a reader without 'view bundles prices': no column of dashes then.
  const showProfit = !!data && (data.totals.corrections.profit !== null || data.corrections.some((c) => c.profit !== null));
  const money = (v: string | null | undefined) => (v === null || v === undefined ? '—' : <Ltr>{`${v} ${data?.currency ?? fmt.currency}`}</Ltr>);
  return (
    <>
      <Breadcrumbs items={[{ label: 'menu.reports' }, { label: 'menu.daily_close', to: DAILY_CLOSE_PATH }, { label: date }]} />
      <PageTitle
        title={title}
        actions={
          <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
            {data && canManage && open && (
              <>
                <Button startIcon={<RefreshIcon />} onClick={() => act('refresh')} disabled={!!busy}>
                  {translate(busy === 'refresh' ? 'daily_close.refreshing' : 'daily_close.refresh')}
                </Button>
                <Tooltip title={closeBlocked ?? ''}>
                  {/* A span: a disabled button gets no hover, its tooltip needs a wrapper that does. */}
                  <span>
                    <Button
                      variant="contained"
                      startIcon={<LockIcon />}
                      onClick={() => setConfirmClose(true)}
                      disabled={!!busy || !!closeBlocked}
                      aria-describedby={closeBlocked ? 'close-blocked' : undefined}
                    >
                      {translate('daily_close.close')}
                    </Button>
                  </span>
                </Tooltip>
              </>
            )}
            {data && canExport && (
              <>
                <FileDownloadButton path={`/daily-close/${date}/export`} query={{ format: 'csv' }} format="csv" fileName={`daily-close-${date}.csv`} />
                <FileDownloadButton path={`/daily-close/${date}/export`} query={{ format: 'pdf' }} format="pdf" fileName={`daily-close-${date}.pdf`} />
              </>
            )}
          </Stack>
        }
      />
      <Stack direction="row" sx={{ alignItems: 'center', gap: 1, mb: 2, flexWrap: 'wrap' }}>
        <Tooltip title={translate('daily_close.previous_day')}>
          <IconButton component={RouterLink} to={`${DAILY_CLOSE_PATH}/${shiftDay(date, -1)}`} aria-label={translate('daily_close.previous_day')}>
            <PrevIcon sx={{ transform: (t) => (t.direction === 'rtl' ? 'scaleX(-1)' : undefined) }} />
          </IconButton>
        </Tooltip>
        <TextField
          type="date"
          size="small"
          label={translate('daily_close.fields.date')}
          value={date}
          onChange={(e) => isDay(e.target.value) && e.target.value <= today && navigate(`${DAILY_CLOSE_PATH}/${e.target.value}`)}
          slotProps={{ inputLabel: { shrink: true }, htmlInput: { max: today } }}
          // Between the two arrows on one line, phones included (the theme makes a phone's fields full width; a breakpoint value outranks it).
          sx={{ width: { xs: 170 } }}
        />
        <Tooltip title={translate('daily_close.next_day')}>
          {/* Never past the company's today (a day still to come has nothing to reconcile). */}
          <span>
            {date >= today ? (
              <IconButton disabled aria-label={translate('daily_close.next_day')}>
                <NextIcon sx={{ transform: (t) => (t.direction === 'rtl' ? 'scaleX(-1)' : undefined) }} />
              </IconButton>
            ) : (
              <IconButton component={RouterLink} to={`${DAILY_CLOSE_PATH}/${shiftDay(date, 1)}`} aria-label={translate('daily_close.next_day')}>
                <NextIcon sx={{ transform: (t) => (t.direction === 'rtl' ? 'scaleX(-1)' : undefined) }} />
              </IconButton>
            )}
          </span>
        </Tooltip>
      </Stack>
      {data && canManage && open && closeBlocked && (
        <Typography id="close-blocked" variant="body2" color="text.secondary" sx={{ mb: 2 }}>
          {closeBlocked}
        </Typography>
      )}
      {error && !data && <LoadError error={error} onRetry={() => refetch()} />}
      {isPending && <FullPageLoader />}
      {actionError && (
        <Alert severity="error" role="alert" sx={{ mb: 2 }} onClose={() => setActionError(null)}>
          {actionError}
        </Alert>
      )}
      {data && (
        <Stack spacing={2}>
          <DayStatusLine day={data} />
          <Figures day={data} money={money} />
          <Card>
            <CardHeader title={translate('daily_close.vendors')} slotProps={{ title: { component: 'h2', variant: 'h6' } }} />
            <CardContent sx={{ pt: 0 }}>
              {data.totals.vendors.length === 0 ? (
                <Typography color="text.secondary">{translate('daily_close.no_vendors')}</Typography>
              ) : phone ? (
                <Stack divider={<Divider flexItem />} spacing={1}>
                  {data.totals.vendors.map((v) => (
                    <Box key={`${v.kind}-${v.vendor}`}>
                      <Typography variant="body2" sx={{ fontWeight: 600 }}>
                        <Ltr>{vendorName(v.vendor)}</Ltr> · {translate(`daily_close.vendor_kinds.${v.kind}`)}
                      </Typography>
                      <Typography variant="body2" color="text.secondary">
                        {translate('daily_close.vendor_line', { records: v.records, matched: v.matched })} · {money(v.amount)}
                      </Typography>
                      {v.error && (
                        <Typography variant="caption" color="error" component="div">
                          {translate('daily_close.vendor_error', { error: isolate(v.error) })}
                        </Typography>
                      )}
                    </Box>
                  ))}
                </Stack>
              ) : (
                <Table size="small" aria-label={translate('daily_close.vendors')}>
                  <TableHead>
                    <TableRow>
                      <TableCell>{translate('daily_close.fields.vendor')}</TableCell>
                      <TableCell>{translate('daily_close.fields.vendor_kind')}</TableCell>
                      <TableCell align="right">{translate('daily_close.fields.records')}</TableCell>
                      <TableCell align="right">{translate('daily_close.fields.matched')}</TableCell>
                      <TableCell align="right">{translate('daily_close.fields.amount')}</TableCell>
                    </TableRow>
                  </TableHead>
                  <TableBody>
                    {data.totals.vendors.map((v) => (
                      <TableRow key={`${v.kind}-${v.vendor}`}>
                        <TableCell>
                          <Ltr>{vendorName(v.vendor)}</Ltr>
                          {v.error && (
                            <Typography variant="caption" color="error" component="div">
                              {translate('daily_close.vendor_error', { error: isolate(v.error) })}
                            </Typography>
                          )}
                        </TableCell>
                        <TableCell>{translate(`daily_close.vendor_kinds.${v.kind}`)}</TableCell>
                        <TableCell align="right">{v.records}</TableCell>
                        <TableCell align="right">{v.matched}</TableCell>
                        <TableCell align="right">{money(v.amount)}</TableCell>
                      </TableRow>
                    ))}
                  </TableBody>
                </Table>
              )}
            </CardContent>
          </Card>
          <Card component="section" aria-labelledby="differences-title">
            <CardHeader
              title={translate('daily_close.differences')}
              subheader={translate('daily_close.differences_line', {
                smart_count: data.totals.differences.total,
                unhandled: data.totals.differences.unhandled,
              })}
              slotProps={{ title: { component: 'h2', variant: 'h6', id: 'differences-title' } }}
            />
            <CardContent sx={{ pt: 0 }}>
              {data.differences.length === 0 ? (
                <Typography color="text.secondary">{translate('daily_close.no_differences')}</Typography>
              ) : (
                <Stack spacing={1.5}>
                  {data.differences.map((d) => (
                    <DifferenceCard key={d.id} day={data} difference={d} canAct={canManage && open} onDone={() => void refetch()} />
                  ))}
                </Stack>
              )}
            </CardContent>
          </Card>
          <Card>
            <CardHeader
              title={translate('daily_close.corrections')}
              subheader={translate('daily_close.corrections_help')}
              slotProps={{ title: { component: 'h2', variant: 'h6' } }}
            />
            <CardContent sx={{ pt: 0 }}>
              {data.corrections.length === 0 ? (
                <Typography color="text.secondary">{translate('daily_close.no_corrections')}</Typography>
              ) : phone ? (
                <Stack divider={<Divider flexItem />} spacing={1}>
                  {data.corrections.map((c) => (
                    <Box key={c.id}>
                      <Typography variant="body2" sx={{ fontWeight: 600 }}>
                        {c.what}
                      </Typography>
                      <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
                        <Ltr>{c.day}</Ltr>
                        {c.reference ? (
                          <>
                            {' · '}
                            <Ltr>{c.reference}</Ltr>
                          </>
                        ) : null}
                        {' · '}
                        {money(c.amount)}
                        {showProfit ? (
                          <>
                            {' · '}
                            {translate('recharges.fields.profit')} {money(c.profit)}
                          </>
                        ) : null}
                      </Typography>
                    </Box>
                  ))}
                </Stack>
              ) : (
                <Table size="small" aria-label={translate('daily_close.corrections')}>
                  <TableHead>
                    <TableRow>
                      <TableCell>{translate('daily_close.fields.sale_day')}</TableCell>
                      <TableCell>{translate('daily_close.fields.reference')}</TableCell>
                      <TableCell>{translate('daily_close.fields.what')}</TableCell>
                      <TableCell align="right">{translate('daily_close.fields.amount')}</TableCell>
                      {showProfit && <TableCell align="right">{translate('recharges.fields.profit')}</TableCell>}
                      <TableCell>{translate('daily_close.fields.at')}</TableCell>
                    </TableRow>
                  </TableHead>
                  <TableBody>
                    {data.corrections.map((c) => (
                      <TableRow key={c.id}>
                        <TableCell>
                          <Link component={RouterLink} to={`${DAILY_CLOSE_PATH}/${c.day}`}>
                            <Ltr>{c.day}</Ltr>
                          </Link>
                        </TableCell>
                        <TableCell>
                          {c.reference && c.recharge_id ? (
                            <Link component={RouterLink} to={`/recharges/${c.recharge_id}`}>
                              <Ltr>{c.reference}</Ltr>
                            </Link>
                          ) : c.reference ? (
                            <Ltr>{c.reference}</Ltr>
                          ) : (
                            '—'
                          )}
                        </TableCell>
                        <TableCell>{c.what}</TableCell>
                        <TableCell align="right">{money(c.amount)}</TableCell>
                        {showProfit && <TableCell align="right">{money(c.profit)}</TableCell>}
                        <TableCell>{fmt.dateTime(c.at)}</TableCell>
                      </TableRow>
                    ))}
                  </TableBody>
                </Table>
              )}
            </CardContent>
          </Card>
        </Stack>
      )}
      <Confirm
        isOpen={confirmClose}
        loading={busy === 'close'}
        title={translate('daily_close.close_confirm.title', { date: ltr(date) })}
        content={translate('daily_close.close_confirm.content')}
        confirm={translate('daily_close.close')}
        onConfirm={() => act('close')}
        onClose={() => setConfirmClose(false)}
      />
    </>
  );
}

/** Open or closed, who closed it and when, the day's hours in the company's zone, the last refresh. */
function DayStatusLine({ day }: { day: DailyClose }) {
  const translate = useTranslate();
  const fmt = useCompanyFormat();
  const ltr = useLtr();
  return (
    <Paper variant="outlined" sx={{ p: 2 }}>
      <Stack direction="row" sx={{ gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
        <DayStatusChip status={day.status} />
        <Typography variant="body2">
          {day.status === 'closed'
            ? translate('daily_close.closed_by', { name: day.closed_by?.name ?? translate('wallets.system'), at: fmt.dateTime(day.closed_at) })
            : day.refreshed_at
              ? translate('daily_close.refreshed_at', { at: fmt.dateTime(day.refreshed_at) })
              : translate('daily_close.never_refreshed')}
        </Typography>
      </Stack>
      <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
        {translate('daily_close.period', { from: fmt.dateTime(day.starts_at), to: fmt.dateTime(day.ends_at), zone: ltr(day.time_zone) })}
        {day.cutoff_at ? ` ${translate('daily_close.cutoff', { at: fmt.dateTime(day.cutoff_at) })}` : ''}
      </Typography>
    </Paper>
  );
}

function Figures({ day, money }: { day: DailyClose; money: (v: string | null) => ReactNode }) {
  const translate = useTranslate();
  const { sales, by_status: status, ledger, corrections } = day.totals;
  const cell = (node: ReactNode) => <Grid size={{ xs: 12, sm: 6, md: 4, lg: 3 }}>{node}</Grid>;
  return (
    <Grid container spacing={2}>
      {cell(
        <FigureCard title={translate('daily_close.figures.sales')} value={money(sales.amount)}>
          {translate('daily_close.figures.sales_line', { smart_count: sales.count })}
        </FigureCard>,
      )}
      {/* The company's costs and margin: the API leaves them null for a reader without 'view bundles prices'. */}
      {sales.margin !== null &&
        cell(
          <FigureCard title={translate('daily_close.figures.margin')} value={money(sales.margin)}>
            {translate('daily_close.figures.list_profit')} {money(sales.profit)}
            {(sales.unknown_cost ?? 0) > 0 && (
              <Typography variant="caption" color="warning.main" component="div" sx={{ mt: 0.5 }}>
                {translate('margins.unknown_cost', { smart_count: sales.unknown_cost })}
              </Typography>
            )}
          </FigureCard>,
        )}
      {sales.gateway_charges !== null &&
        cell(
          <FigureCard title={translate('daily_close.figures.gateway_charges')} value={money(sales.gateway_charges)}>
            {translate('daily_close.figures.cost')} {money(sales.cost)}
          </FigureCard>,
        )}
      {sales.aggregator_cost !== null && cell(<FigureCard title={translate('daily_close.figures.aggregator_cost')} value={money(sales.aggregator_cost)} />)}
      {cell(
        <FigureCard title={translate('daily_close.figures.ledger')} value={money(ledger.net)}>
          <div>
            {translate('daily_close.figures.credits')} {money(ledger.credits)}
          </div>
          <div>
            {translate('daily_close.figures.debits')} {money(ledger.debits)}
          </div>
        </FigureCard>,
      )}
      {cell(
        <FigureCard title={translate('daily_close.figures.by_status')} value={status.completed}>
          <Stack direction="row" sx={{ gap: 0.5, flexWrap: 'wrap' }}>
            {(['completed', 'failed', 'refunded', 'needs_review', 'in_flight'] as const).map((s) => (
              <Chip key={s} size="small" variant="outlined" label={`${translate(`daily_close.by_status.${s}`)}: ${status[s]}`} />
            ))}
          </Stack>
        </FigureCard>,
      )}
      {cell(
        <FigureCard title={translate('daily_close.figures.corrections')} value={money(corrections.amount)}>
          {corrections.profit === null
            ? translate('daily_close.figures.corrections_count', { smart_count: corrections.count })
            : [translate('daily_close.figures.corrections_line', { smart_count: corrections.count }), ' ', money(corrections.profit)]}
        </FigureCard>,
      )}
      {cell(
        <FigureCard title={translate('daily_close.differences')} value={day.totals.differences.unhandled}>
          {translate('daily_close.figures.differences_line', { smart_count: day.totals.differences.total })}
        </FigureCard>,
      )}
    </Grid>
  );
}

/**
 * One difference: what kind, which vendor, the sale (linked when it is one of ours), our record
 * beside theirs, the evidence, and how it was handled (or the Handle menu).
 */
function DifferenceCard({ day, difference: d, canAct, onDone }: { day: DailyClose; difference: Difference; canAct: boolean; onDone: () => void }) {
  const translate = useTranslate();
  const fmt = useCompanyFormat();
  // The vendor and which of its records (a gateway's or an aggregator's): one sale can differ with both.
  const theirs = d.source ? `${vendorName(d.vendor)} (${translate(`daily_close.vendor_kinds.${d.source}`)})` : vendorName(d.vendor);
  return (
    <Paper
      variant="outlined"
      component="article"
      aria-label={translate(`daily_close.kinds.${d.kind}`)}
      sx={{ p: 2, borderColor: d.handled ? 'divider' : 'warning.main' }}
    >
      <Stack direction="row" sx={{ gap: 1, alignItems: 'center', flexWrap: 'wrap', justifyContent: 'space-between' }}>
        <Stack direction="row" sx={{ gap: 1, alignItems: 'center', flexWrap: 'wrap', minWidth: 0 }}>
          <Chip size="small" color={d.handled ? 'default' : 'warning'} label={translate(`daily_close.kinds.${d.kind}`)} />
          <Typography variant="body2" sx={{ fontWeight: 600 }}>
            <Ltr>{vendorName(d.vendor)}</Ltr>
          </Typography>
          {d.source && <Chip size="small" variant="outlined" label={translate(`daily_close.vendor_kinds.${d.source}`)} />}
          {d.reference &&
            (d.recharge_id !== null ? (
              <Link component={RouterLink} to={`/recharges/${d.recharge_id}`} variant="body2" sx={{ overflowWrap: 'anywhere' }}>
                <Ltr>{d.reference}</Ltr>
              </Link>
            ) : (
              <Typography variant="body2" sx={{ overflowWrap: 'anywhere' }}>
                <Ltr>{d.reference}</Ltr>
              </Typography>
            ))}
        </Stack>
        {!d.handled && canAct && <DifferenceActions date={day.date} difference={d} onDone={onDone} />}
      </Stack>
      <Grid container spacing={2} sx={{ mt: 0.5 }}>
        <Grid size={{ xs: 12, sm: 6 }}>
          <RecordSide title={translate('daily_close.ours')} record={d.ours} />
        </Grid>
        <Grid size={{ xs: 12, sm: 6 }}>
          <RecordSide title={translate('daily_close.theirs', { vendor: theirs })} record={d.theirs} />
        </Grid>
      </Grid>
      <Typography variant="body2" sx={{ mt: 1 }}>
        <strong>{translate('daily_close.evidence')}</strong> <bdi>{d.evidence}</bdi>
      </Typography>
      {d.handled && (
        <Alert severity="success" icon={false} sx={{ mt: 1 }}>
          {translate('daily_close.handled_line', {
            action: d.action ? translate(`daily_close.actions.${d.action}_done`) : '',
            name: d.handled_by?.name ?? translate('wallets.system'),
            at: fmt.dateTime(d.handled_at),
          })}
          {d.note ? (
            <Box component="span" sx={{ display: 'block' }}>
              {translate('daily_close.note_line', { note: isolate(d.note) })}
            </Box>
          ) : null}
        </Alert>
      )}
    </Paper>
  );
}
