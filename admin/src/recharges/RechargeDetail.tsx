import { useState } from 'react';
import { Confirm, useGetOne, useNotify, usePermissions, useRefresh, useTranslate } from 'react-admin';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, AlertTitle, Box, Button, Drawer, IconButton, Stack, Table, TableBody, TableCell, TableRow, Typography } from '@mui/material';
import CloseIcon from '@mui/icons-material/Close';
import type { ReactNode } from 'react';
import type { RechargeResponse, RemoteCallResponse, WalletTransactionResponse } from '@app/contracts';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { serverMessage } from '../providers/errors';
import { useIsDealer } from '../auth/identity';
import { TransactionRows } from '../wallets/WalletTransactionList';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { Ltr } from '../common/Ltr';
import { REVIEW_COUNT_KEY } from '../layout/useReviewCount';
import { RechargeStatus, StateChip } from './RechargeStatus';
import { RemoteCallTimeline, vendorName } from './RemoteCallTimeline';
import { PaidBackPanel } from './PaidBack';
import { SettlePanel } from './SettlePanel';
import { SaleProfit } from './SaleProfit';
import { ModeChip } from '../api-keys/ModeChip';
import { saleActions } from './saleActions';
import { SoldItem } from '../common/ContentText';

export interface RechargeDetailData {
  recharge: RechargeResponse;
  timeline: { at: string; event: string; detail: string | null }[];
  transactions: WalletTransactionResponse[];
  /** Every request to WaafiPay / Reloadly and its answer; empty for dealers. */
  remote_calls?: RemoteCallResponse[];
}

/**
 * What the gateway and the aggregator said of a sale (issue 26), when the answer carries it:
 * declared here while the API's contracts are written. Money is decimal strings.
 */
export interface VendorFigures {
  gateway_amount?: string | null;
  gateway_charges?: string | null;
  /** The currency of gateway_amount and gateway_charges (the gateway's; the sale's when absent). */
  gateway_currency?: string | null;
  aggregator_cost?: string | null;
  aggregator_currency?: string | null;
  margin?: string | null;
  delivered_amount?: string | null;
  delivered_currency?: string | null;
  fx_rate?: string | null;
}

/** The recharges resource's record (dataProvider.getOne): the sale with its timeline, transactions and remote calls. */
export type RechargeRecord = RechargeResponse & VendorFigures & Partial<Omit<RechargeDetailData, 'recharge'>>;

/** "What the vendors said" of a sale: hidden when the answer has none of it (a dealer, an older sale). */
function VendorSaid({ sale }: { sale: RechargeResponse & VendorFigures }) {
  const translate = useTranslate();
  const money = (v: string | null | undefined, currency: string | null | undefined) => (v ? <Ltr>{`${v} ${currency ?? sale.currency}`}</Ltr> : null);
  const rows: [string, ReactNode][] = [
    ['gateway_amount', money(sale.gateway_amount, sale.gateway_currency)],
    ['gateway_charges', money(sale.gateway_charges, sale.gateway_currency)],
    ['aggregator_cost', money(sale.aggregator_cost, sale.aggregator_currency)],
    ['margin', money(sale.margin, sale.currency)],
    ['delivered_amount', money(sale.delivered_amount, sale.delivered_currency)],
    ['fx_rate', sale.fx_rate ? <Ltr>{sale.fx_rate}</Ltr> : null],
  ];
  const shown = rows.filter(([, v]) => v !== null);
  if (!shown.length) return null;
  return (
    <>
      <Typography variant="subtitle1" component="h3" sx={{ mt: 3, mb: 1 }}>
        {translate('recharges.vendor_said.title')}
      </Typography>
      <Table size="small" aria-label={translate('recharges.vendor_said.title')}>
        <TableBody>
          {shown.map(([k, v]) => (
            <TableRow key={k}>
              <TableCell component="th" scope="row" sx={{ fontWeight: 600, width: { xs: 130, sm: 200 } }}>
                {translate(`recharges.vendor_said.${k}`)}
              </TableCell>
              <TableCell sx={{ wordBreak: 'break-word' }}>{v}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </>
  );
}

/**
 * What a person wrote or was told with an event (a review's reason, a settlement's outcome, what
 * the payment service's portal showed and the note; a payment paid back by hand: its note and reference).
 */
function eventDetail(detail: string | null, translate: (key: string, opts?: object) => string): string | null {
  if (!detail) return null;
  let after: Record<string, unknown>;
  try {
    after = JSON.parse(detail) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (!after || typeof after !== 'object') return null;
  const parts: string[] = [];
  if (typeof after.outcome === 'string') parts.push(translate(`recharges.timeline_detail.event_outcome.${after.outcome}`, { _: String(after.outcome) }));
  const payment = after.payment as { paid?: unknown; reference?: unknown } | undefined;
  if (payment && typeof payment === 'object' && typeof payment.paid === 'boolean')
    parts.push(
      translate(`recharges.timeline_detail.event_payment.${payment.paid ? 'paid' : 'not_paid'}`, {
        reference: typeof payment.reference === 'string' ? `\u2066${payment.reference}\u2069` : '',
      }),
    );
  if (typeof after.reason === 'string' && after.reason) parts.push(translate('recharges.timeline_detail.event_reason', { reason: after.reason }));
  if (typeof after.note === 'string' && after.note) parts.push(translate('recharges.timeline_detail.event_note', { note: after.note }));
  if (typeof after.reference === 'string' && after.reference)
    parts.push(translate('recharges.timeline_detail.event_reference', { reference: `\u2066${after.reference}\u2069` }));
  return parts.length ? parts.join(' · ') : null;
}

/** When a sale went into review, else when it was made: how long it has waited. */
export const waitingSince = (r: Pick<RechargeResponse, 'needs_review_at' | 'created_at'>) => r.needs_review_at ?? r.created_at;

/**
 * One sale in a drawer over its list: the figures, where the payment and the delivery stand, the
 * review reason and (for 'review recharges') the Settle panel, the remote-call trail, the
 * activity timeline and its wallet transactions. Pending and processing sales refresh every 2 s.
 * A test sale (a test key's, on the sandbox) says so first.
 */
export function RechargeDetail({ id, onClose }: { id: string | null; onClose: () => void }) {
  const translate = useTranslate();
  const notify = useNotify();
  const refresh = useRefresh();
  const queryClient = useQueryClient();
  const fmt = useCompanyFormat();
  const { permissions } = usePermissions<string[]>();
  const dealer = useIsDealer();
  const [error, setError] = useState<string | null>(null);
  /** A refund moves money: asked once more, saying what goes back. */
  const [confirmRefund, setConfirmRefund] = useState(false);
  const [acting, setActing] = useState(false);
  const dataProvider = useConsoleDataProvider();
  // react-admin's getOne of the recharges resource; a row the list put in the cache has no timeline
  // yet, so the drawer waits for the full record as it did.
  const {
    data: record,
    refetch,
    error: loadError,
  } = useGetOne<RechargeRecord>(
    'recharges',
    { id: (id ?? '') as unknown as number },
    { enabled: !!id, refetchInterval: (q) => (q.state.data && ['pending', 'processing'].includes(q.state.data.status) ? 2000 : false) },
  );
  const data: RechargeDetailData | undefined = record?.timeline
    ? { recharge: record, timeline: record.timeline, transactions: record.transactions ?? [], remote_calls: record.remote_calls }
    : undefined;
  const reload = async () => {
    await refetch();
    refresh();
    await queryClient.invalidateQueries({ queryKey: REVIEW_COUNT_KEY });
  };
  const act = async (what: 'retry' | 'refund') => {
    setError(null);
    setActing(true);
    try {
      const res = await dataProvider.rechargeAction({ id: id!, action: what });
      notify(res.message ?? '', { type: 'success' });
      await reload();
    } catch (e) {
      setError(serverMessage(e));
    } finally {
      setActing(false);
      setConfirmRefund(false);
    }
  };
  const r = data?.recharge;
  const can = (p: string) => !!permissions?.includes(p);
  const rows: [string, ReactNode][] = r
    ? [
        ['recharges.fields.reference', <Ltr>{r.reference}</Ltr>],
        [
          'wallets.fields.dealer',
          <>
            {r.dealer.name}
            {r.dealer.dealer_code ? (
              <>
                {' '}
                (<Ltr>{r.dealer.dealer_code}</Ltr>)
              </>
            ) : null}
          </>,
        ],
        ['recharges.fields.bundle', <SoldItem names={[r.provider_name, r.category_name, r.bundle_name]} />],
        ['recharges.fields.phone', <Ltr>{r.phone}</Ltr>],
        ['recharges.fields.payer_phone', r.payer_phone ? <Ltr>{r.payer_phone}</Ltr> : null],
        ['recharges.fields.payment_method', r.payment_method],
        ['recharges.fields.amount', <Ltr>{`${r.amount} ${r.currency}`}</Ltr>],
        ...(r.cost !== undefined
          ? ([
              ['recharges.fields.cost', <Ltr>{r.cost}</Ltr>],
              ['recharges.fields.profit', <SaleProfit r={r} explained />],
            ] as [string, ReactNode][])
          : []),
        ['recharges.fields.pricing_model', translate(`wallets.pricing.${r.pricing_model}`)],
        ['recharges.fields.created_at', fmt.dateTime(r.created_at)],
        ['recharges.fields.payment_state', r.payment_state ? <StateChip kind="payment" state={r.payment_state} /> : null],
        ['recharges.fields.payment_flow', r.payment_flow ? translate(`recharges.payment_flows.${r.payment_flow}`, { _: r.payment_flow }) : null],
        ['recharges.fields.payment_gateway', r.payment_gateway ? <Ltr>{vendorName(r.payment_gateway)}</Ltr> : null],
        ['recharges.fields.delivery_state', r.delivery_state ? <StateChip kind="delivery" state={r.delivery_state} /> : null],
        ['recharges.fields.route', r.route ? <Ltr>{vendorName(r.route)}</Ltr> : null],
        ['recharges.fields.delivery_id', r.delivery_id ? <Ltr>{r.delivery_id}</Ltr> : null],
        ['recharges.fields.attempts', String(r.attempts)],
        ['recharges.fields.payment_reference', r.payment_reference ? <Ltr>{r.payment_reference}</Ltr> : null],
        ['recharges.fields.operator_reference', r.operator_reference ? <Ltr>{r.operator_reference}</Ltr> : null],
        // Why it failed in the reader's words (from the sale's state); what was recorded, often the vendor's English, beside it.
        ['recharges.fields.failure_reason', r.failure_summary],
        ['recharges.fields.failure_words', r.failure_reason ? <Ltr>{r.failure_reason}</Ltr> : null],
      ]
    : [];
  const inReview = r?.status === 'needs_review';
  // Only what the API would accept for this sale (a failed "Profit Only" sale often holds nothing).
  const actions = r ? saleActions(r, data?.transactions ?? []) : { retry: false, refund: false };
  return (
    <Drawer
      anchor="right"
      open={!!id}
      onClose={onClose}
      slotProps={{ paper: { role: 'dialog', 'aria-labelledby': 'recharge-title', sx: { width: { xs: '100%', md: 720 } } } as object }}
    >
      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', px: { xs: 2, sm: 3 }, pt: 2 }}>
        <Typography variant="h6" component="h2" id="recharge-title">
          {translate('recharges.detail_title')}
        </Typography>
        <IconButton aria-label={translate('common.close')} onClick={onClose}>
          <CloseIcon />
        </IconButton>
      </Stack>
      {loadError && !r && (
        <Alert severity="error" sx={{ mx: 3 }}>
          {serverMessage(loadError)}
        </Alert>
      )}
      {r && (
        <Box sx={{ px: { xs: 2, sm: 3 }, pb: 3 }}>
          {r.mode === 'test' && (
            <Alert severity="warning" variant="outlined" icon={false} sx={{ my: 1 }} data-testid="test-sale">
              <Stack direction="row" sx={{ gap: 1, alignItems: 'center', flexWrap: 'wrap', mb: 0.5 }}>
                <ModeChip mode="test" />
                <AlertTitle sx={{ m: 0 }}>{translate('test_mode.test_sale')}</AlertTitle>
              </Stack>
              {translate('test_mode.test_sale_help')}
            </Alert>
          )}
          <Stack direction="row" sx={{ gap: 1, alignItems: 'center', flexWrap: 'wrap', my: 1 }}>
            <RechargeStatus status={r.status} payment={r.payment_state} />
            {actions.retry && can('retry recharges') && (
              <Button size="small" onClick={() => act('retry')}>
                {translate('recharges.retry')}
              </Button>
            )}
            {actions.refund && can('refund recharges') && (
              <Button size="small" color="warning" onClick={() => setConfirmRefund(true)}>
                {translate('recharges.refund')}
              </Button>
            )}
            <Confirm
              isOpen={confirmRefund}
              loading={acting}
              // Isolated left to right (U+2066..U+2069) inside Arabic text: the reference and the amount keep their order.
              title={translate('recharges.refund_confirm.title', { reference: `\u2066${r.reference}\u2069` })}
              content={translate(r.status === 'completed' ? 'recharges.refund_confirm.delivered' : 'recharges.refund_confirm.not_delivered', {
                amount: `\u2066${r.amount} ${r.currency}\u2069`,
              })}
              confirm={translate('recharges.refund')}
              confirmColor="warning"
              onConfirm={() => act('refund')}
              onClose={() => setConfirmRefund(false)}
            />
          </Stack>
          {error && (
            <Alert severity="error" role="alert" sx={{ mb: 2 }}>
              {error}
            </Alert>
          )}
          {inReview && (
            <Alert severity="warning" sx={{ mb: 2 }}>
              <AlertTitle>
                {translate('recharges.review.waiting', { time: fmt.duration(Date.now() - new Date(waitingSince(r) ?? Date.now()).getTime()) })}
              </AlertTitle>
              {r.review_summary ?? r.review_reason ?? translate('recharges.review.no_reason')}
              {/* The system's own sentence, with the vendor's code, kept for the record (often English). */}
              {r.review_summary && r.review_reason && r.review_summary !== r.review_reason && (
                <Box sx={{ mt: 1, color: 'text.secondary', fontSize: '0.85em' }}>
                  {translate('recharges.review.system_words')}: <Ltr>{r.review_reason}</Ltr>
                </Box>
              )}
            </Alert>
          )}
          {r.reviewed_at && r.review_outcome && (
            <Alert severity="info" sx={{ mb: 2 }}>
              {translate(`recharges.review.settled_${r.review_outcome}`, {
                name: r.reviewed_by?.name ?? translate('wallets.system'),
                at: fmt.dateTime(r.reviewed_at),
              })}
              {r.review_reason ? ` ${translate('recharges.review.was_because', { reason: r.review_summary ?? r.review_reason })}` : ''}
            </Alert>
          )}
          <PaidBackPanel recharge={r} canRecord={can('refund recharges')} onRecorded={reload} />
          {inReview && can('review recharges') && <SettlePanel recharge={r} onSettled={reload} />}
          <Table size="small" aria-label={translate('recharges.detail_title')}>
            <TableBody>
              {rows
                .filter(([, v]) => v !== null && v !== undefined && v !== '')
                .map(([k, v]) => (
                  <TableRow key={k}>
                    <TableCell component="th" scope="row" sx={{ fontWeight: 600, width: { xs: 130, sm: 200 } }}>
                      {translate(k)}
                    </TableCell>
                    <TableCell sx={{ wordBreak: 'break-word' }}>{v}</TableCell>
                  </TableRow>
                ))}
            </TableBody>
          </Table>
          <VendorSaid sale={r} />
          {!dealer && data!.remote_calls && (
            <>
              <Typography variant="subtitle1" component="h3" sx={{ mt: 3, mb: 1 }}>
                {translate('recharges.remote.title')}
              </Typography>
              <RemoteCallTimeline calls={data!.remote_calls} />
            </>
          )}
          <Typography variant="subtitle1" component="h3" sx={{ mt: 3, mb: 1 }}>
            {translate('recharges.timeline')}
          </Typography>
          <Box component="ol" sx={{ pl: 3, m: 0 }}>
            {data!.timeline.map((e, i) => {
              const extra = eventDetail(e.detail, translate);
              return (
                <li key={i}>
                  <Typography variant="body2">{`${fmt.dateTime(e.at)} · ${translate(`recharges.events.${e.event}`, { _: e.event })}`}</Typography>
                  {extra && (
                    <Typography variant="body2" color="text.secondary">
                      {extra}
                    </Typography>
                  )}
                </li>
              );
            })}
          </Box>
          <Typography variant="subtitle1" component="h3" sx={{ mt: 3, mb: 1 }}>
            {translate('recharges.transactions')}
          </Typography>
          <Box sx={{ overflowX: 'auto' }}>
            <TransactionRows rows={data!.transactions} showDealer={false} />
          </Box>
        </Box>
      )}
    </Drawer>
  );
}
