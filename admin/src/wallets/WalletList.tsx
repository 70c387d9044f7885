import { useState } from 'react';
import {
  Confirm,
  Datagrid,
  FunctionField,
  SearchInput,
  SimpleList,
  TextInput,
  useCanAccess,
  useGetList,
  useInput,
  useNotify,
  useRefresh,
  useTranslate,
  usePermissions,
} from 'react-admin';
import { Box, Button, Card, CardContent, CardHeader, Chip, FormControlLabel, Link as MuiLink, Stack, Switch, Tooltip, Typography } from '@mui/material';
import AlertIcon from '@mui/icons-material/NotificationsActiveOutlined';
import { Link } from 'react-router';
import { rejectTopUpSchema, type TopUpRequestResponse, type WalletResponse } from '@app/contracts';
import { Ltr, useLtr } from '../common/Ltr';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { resolveImage } from '../common/image';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { MoneyDialog } from './MoneyDialog';
import { AdjustDialog, LowBalanceDialog, TopUpDialog } from './WalletDialogs';
import { ResourceListPage } from '../common/ResourceListPage';
import { useQueryClient } from '@tanstack/react-query';
import { PENDING_REQUESTS_KEY } from './usePendingRequestCount';
import { MONEY_REQUESTS_ANCHOR } from './walletPaths';

type Action = { kind: 'top-up' | 'adjust' | 'alert'; wallet: WalletResponse } | null;

/**
 * "Below their alert only" as a switch whose off is no filter at all (react-admin's BooleanInput
 * would send below_alert=false, which the API reads as no filter too, but keeps it in the URL).
 */
function BelowAlertFilter({ source, label }: { source: string; label: string; alwaysOn?: boolean }) {
  const translate = useTranslate();
  const { field } = useInput({ source, defaultValue: null });
  return (
    <FormControlLabel
      sx={{ ml: 0, mb: 1, alignSelf: 'center' }}
      control={<Switch checked={field.value === true || field.value === 'true'} onChange={(e) => field.onChange(e.target.checked ? true : null)} />}
      label={translate(label)}
    />
  );
}

/** The red mark of a wallet under its alert, next to its balance. */
const BelowAlertChip = ({ label }: { label: string }) => <Chip size="small" color="error" label={label} />;

/** /wallets: every dealer's balance, top-up and adjustment dialogs, and the top-up requests waiting for review. */
export default function WalletList() {
  const translate = useTranslate();
  const refresh = useRefresh();
  const { permissions } = usePermissions<string[]>();
  const canTopUp = !!permissions?.includes('top up wallets');
  const canAdjust = !!permissions?.includes('adjust wallets');
  const canReview = !!permissions?.includes('review wallet top-ups');
  const [action, setAction] = useState<Action>(null);
  const close = () => setAction(null);
  const done = () => {
    setAction(null);
    refresh();
  };
  /** A wallet's buttons (top up, adjust, alert, its transactions), as the user may use them. */
  const actions = (w: WalletResponse) => (
    <>
      {canTopUp && (
        <Button size="small" variant="outlined" onClick={() => setAction({ kind: 'top-up', wallet: w })}>
          {translate('wallets.top_up')}
        </Button>
      )}
      {canAdjust && (
        <Button size="small" onClick={() => setAction({ kind: 'adjust', wallet: w })}>
          {translate('wallets.adjust')}
        </Button>
      )}
      {canAdjust && (
        <Tooltip title={translate('wallets.alert.set_for', { name: w.dealer.name })} describeChild>
          <Button size="small" startIcon={<AlertIcon />} onClick={() => setAction({ kind: 'alert', wallet: w })}>
            {translate('wallets.alert.button')}
          </Button>
        </Tooltip>
      )}
      <Button size="small" component={Link} to={`/wallet-transactions?dealer=${w.dealer_id}`}>
        {translate('wallets.transactions')}
      </Button>
      <Button size="small" component={Link} to={`/wallets/${w.id}/statement`}>
        {translate('wallets.statement.title')}
      </Button>
    </>
  );
  return (
    <ResourceListPage
      resource="wallets"
      title={translate('menu.wallets')}
      intro={canReview && <TopUpRequests onDecided={refresh} />}
      empty="empty.wallets"
      filters={[<SearchInput key="q" source="q" alwaysOn />, <BelowAlertFilter key="below_alert" source="below_alert" label="wallets.alert.filter" alwaysOn />]}
      sort={{ field: 'dealer', order: 'ASC' }}
      phone={
        <SimpleList
          primaryText={(w: WalletResponse) => `${w.dealer.name}${w.dealer.dealer_code ? ` (${w.dealer.dealer_code})` : ''}`}
          secondaryText={(w: WalletResponse) => (
            <Box component="span" sx={{ display: 'block' }}>
              <Box component="span" sx={{ display: 'block' }}>
                {translate(`wallets.pricing.${w.pricing_model}`)}
              </Box>
              <Box component="span" sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5, mt: 0.5 }} onClick={(e) => e.stopPropagation()}>
                {actions(w)}
              </Box>
            </Box>
          )}
          tertiaryText={(w: WalletResponse) => (
            <Box component="span" sx={{ display: 'inline-flex', gap: 0.5, alignItems: 'center' }}>
              <strong>{`${w.balance} ${w.currency}`}</strong>
              {w.low_balance && <BelowAlertChip label={translate('wallets.alert.below')} />}
            </Box>
          )}
          linkType={false}
          rowClick={false}
          // react-admin fades the tertiary text (0.54): the balance and its red mark must read at full contrast.
          sx={{ '& .RaSimpleList-tertiary': { opacity: 1 } }}
        />
      }
      desktop={
        <Datagrid bulkActionButtons={false} rowClick={false}>
          <FunctionField
            source="dealer"
            label="wallets.fields.dealer"
            render={(w: WalletResponse) => (
              <>
                {w.dealer.name}
                {w.dealer.dealer_code ? (
                  <>
                    {' '}
                    (<Ltr>{w.dealer.dealer_code}</Ltr>)
                  </>
                ) : null}
              </>
            )}
          />
          <FunctionField label="wallets.fields.pricing_model" render={(w: WalletResponse) => translate(`wallets.pricing.${w.pricing_model}`)} />
          <FunctionField
            source="balance"
            label="wallets.fields.balance"
            render={(w: WalletResponse) => (
              <Stack direction="row" sx={{ gap: 1, alignItems: 'center' }}>
                <strong>
                  <Ltr>{`${w.balance} ${w.currency}`}</Ltr>
                </strong>
                {w.low_balance && <BelowAlertChip label={translate('wallets.alert.below')} />}
              </Stack>
            )}
          />
          <FunctionField
            label="wallets.alert.threshold"
            render={(w: WalletResponse) => (w.low_balance_threshold ? <Ltr>{`${w.low_balance_threshold} ${w.currency}`}</Ltr> : '—')}
          />
          <FunctionField
            label=""
            render={(w: WalletResponse) => (
              <Stack direction="row" sx={{ gap: 1, justifyContent: 'flex-end', flexWrap: 'wrap' }}>
                {actions(w)}
              </Stack>
            )}
          />
        </Datagrid>
      }
      after={
        <>
          {action?.kind === 'top-up' && <TopUpDialog wallet={action.wallet} onClose={close} onDone={done} />}
          {action?.kind === 'adjust' && <AdjustDialog wallet={action.wallet} onClose={close} onDone={done} />}
          {action?.kind === 'alert' && <LowBalanceDialog wallet={action.wallet} onClose={close} onDone={done} />}
        </>
      }
    />
  );
}

/**
 * Pending top-up and payout requests: a top-up with its receipt (approve credits once), a payout
 * with the number to send it to (approve debits once); either rejected with a reason. The words
 * follow the request's kind; the Wallets menu's badge is read again after each decision.
 */
function TopUpRequests({ onDecided }: { onDecided: () => void }) {
  const translate = useTranslate();
  const queryClient = useQueryClient();
  const decided = async () => {
    await refetch();
    void queryClient.invalidateQueries({ queryKey: PENDING_REQUESTS_KEY });
  };
  const fmt = useCompanyFormat();
  const ltr = useLtr();
  const notify = useNotify();
  const dataProvider = useConsoleDataProvider();
  const { data = [], refetch } = useGetList<TopUpRequestResponse>('wallet-top-up-requests', {
    filter: { status: 'pending' },
    pagination: { page: 1, perPage: 50 },
    sort: { field: 'id', order: 'ASC' },
  });
  const [rejecting, setRejecting] = useState<TopUpRequestResponse | null>(null);
  // Approving credits the wallet at once: asked first, naming the amount and the dealer.
  const [approving, setApproving] = useState<TopUpRequestResponse | null>(null);
  const [busy, setBusy] = useState(false);
  const { canAccess } = useCanAccess({ resource: 'wallets', action: 'review wallet top-ups' });
  if (!canAccess || data.length === 0) return null;
  const approve = async (r: TopUpRequestResponse) => {
    setBusy(true);
    try {
      const res = await dataProvider.approveTopUp({ id: r.id });
      notify(res.message ?? '', { type: 'success' });
    } catch (e) {
      notify((e as Error).message, { type: 'error' });
    }
    setBusy(false);
    setApproving(null);
    await decided();
    onDecided();
  };
  // Isolated left to right (U+2066..U+2069): the amount keeps its order in Arabic text.
  const amountOf = (r: TopUpRequestResponse) => `\u2066${r.amount} ${fmt.currency}\u2069`;
  return (
    <Card sx={{ mb: 3 }} id={MONEY_REQUESTS_ANCHOR}>
      <CardHeader title={translate('wallets.money_requests_title')} subheader={translate('wallets.requests_help', { smart_count: data.length })} />
      <CardContent>
        <Stack spacing={1.5}>
          {data.map((r) => (
            <Box key={r.id} sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 2, justifyContent: 'space-between' }}>
              <Box>
                <Typography sx={{ fontWeight: 600 }}>
                  {translate(`wallets.request_kinds.${r.kind ?? 'top_up'}`)} · {r.dealer.name} · <Ltr>{r.amount}</Ltr>
                </Typography>
                <Typography variant="body2" color="text.secondary">
                  {r.kind === 'payout'
                    ? translate('wallets.payout_line', { phone: ltr(r.reference), at: fmt.dateTime(r.created_at) })
                    : translate('wallets.request_line', { reference: ltr(r.reference), at: fmt.dateTime(r.created_at) })}
                  {r.note ? ` · ${r.note}` : ''}
                </Typography>
                {r.receipt && (
                  <MuiLink href={resolveImage(r.receipt)} target="_blank" rel="noopener noreferrer" variant="body2">
                    {translate('wallets.receipt')}
                  </MuiLink>
                )}
              </Box>
              <Stack direction="row" sx={{ gap: 1 }}>
                <Chip size="small" label={translate('wallets.request_status.pending')} />
                <Button size="small" variant="contained" onClick={() => setApproving(r)}>
                  {translate('wallets.approve')}
                </Button>
                <Button size="small" color="error" onClick={() => setRejecting(r)}>
                  {translate('wallets.reject')}
                </Button>
              </Stack>
            </Box>
          ))}
        </Stack>
      </CardContent>
      <Confirm
        isOpen={approving !== null}
        loading={busy}
        title={approving?.kind === 'payout' ? 'wallets.payout_approve_confirm_title' : 'wallets.approve_confirm_title'}
        titleTranslateOptions={approving ? { amount: amountOf(approving), name: approving.dealer.name } : {}}
        content={approving?.kind === 'payout' ? 'wallets.payout_approve_confirm' : 'wallets.approve_confirm'}
        contentTranslateOptions={
          approving ? { amount: amountOf(approving), name: approving.dealer.name, reference: ltr(approving.reference), phone: ltr(approving.reference) } : {}
        }
        confirm="wallets.approve"
        onConfirm={() => approving && approve(approving)}
        onClose={() => !busy && setApproving(null)}
      />
      {rejecting && (
        <MoneyDialog
          open
          title={translate('wallets.reject_title', { name: rejecting.dealer.name })}
          send={(v) => dataProvider.rejectTopUp({ id: rejecting.id, data: v })}
          schema={rejectTopUpSchema}
          initial={{ reason: '' }}
          submitLabel={translate('wallets.reject')}
          onClose={() => setRejecting(null)}
          onDone={async () => {
            setRejecting(null);
            await decided();
          }}
        >
          <TextInput source="reason" label="wallets.fields.reason" multiline autoFocus fullWidth helperText={false} />
        </MoneyDialog>
      )}
    </Card>
  );
}
