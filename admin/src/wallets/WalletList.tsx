import { useState } from 'react';
import { Datagrid, FunctionField, List, SearchInput, TextField, useCanAccess, useGetList, useNotify, useRefresh, useTranslate, usePermissions } from 'react-admin';
import { Box, Button, Card, CardContent, CardHeader, Chip, Link as MuiLink, MenuItem, Stack, TextField as MuiTextField, Typography } from '@mui/material';
import { Link } from 'react-router';
import type { TopUpRequestResponse, WalletResponse } from '@app/contracts';
import { PageTitle } from '../common/PageTitle';
import { resolveImage } from '../common/image';
import { apiFetch } from '../providers/http';
import { MoneyDialog } from './MoneyDialog';

type Action = { kind: 'top-up' | 'adjust'; wallet: WalletResponse } | null;

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
  return (
    <>
      <PageTitle title={translate('menu.wallets')} />
      {canReview && <TopUpRequests onDecided={refresh} />}
      <List resource="wallets" filters={[<SearchInput key="q" source="q" alwaysOn />]} sort={{ field: 'dealer', order: 'ASC' }} perPage={25} disableSyncWithLocation actions={false} title={translate('menu.wallets')}>
        <Datagrid bulkActionButtons={false} rowClick={false}>
          <FunctionField source="dealer" label="wallets.fields.dealer" render={(w: WalletResponse) => `${w.dealer.name}${w.dealer.dealer_code ? ` (${w.dealer.dealer_code})` : ''}`} />
          <FunctionField label="wallets.fields.pricing_model" render={(w: WalletResponse) => translate(`wallets.pricing.${w.pricing_model}`)} />
          <FunctionField source="balance" label="wallets.fields.balance" render={(w: WalletResponse) => <strong>{`${w.balance} ${w.currency}`}</strong>} />
          <FunctionField
            label=""
            render={(w: WalletResponse) => (
              <Stack direction="row" sx={{ gap: 1, justifyContent: 'flex-end' }}>
                {canTopUp && <Button size="small" variant="outlined" onClick={() => setAction({ kind: 'top-up', wallet: w })}>{translate('wallets.top_up')}</Button>}
                {canAdjust && <Button size="small" onClick={() => setAction({ kind: 'adjust', wallet: w })}>{translate('wallets.adjust')}</Button>}
                <Button size="small" component={Link} to={`/wallet-transactions?dealer=${w.dealer_id}`}>{translate('wallets.transactions')}</Button>
              </Stack>
            )}
          />
        </Datagrid>
      </List>
      {action?.kind === 'top-up' && (
        <MoneyDialog open title={translate('wallets.top_up_title', { name: action.wallet.dealer.name })} path={`/wallets/${action.wallet.id}/top-up`} initial={{ amount: '', reference: '', note: '' }} submitLabel={translate('wallets.top_up')} onClose={close} onDone={done}>
          {(v, set, e) => (
            <>
              <Typography variant="body2">{translate('wallets.current_balance', { balance: `${action.wallet.balance} ${action.wallet.currency}` })}</Typography>
              <MuiTextField label={translate('wallets.fields.amount')} value={v.amount} onChange={(ev) => set({ amount: ev.target.value })} error={!!e.amount} helperText={e.amount} slotProps={{ htmlInput: { inputMode: 'decimal' } }} autoFocus />
              <MuiTextField label={translate('wallets.fields.reference')} value={v.reference} onChange={(ev) => set({ reference: ev.target.value })} error={!!e.reference} helperText={e.reference ?? translate('wallets.reference_help')} />
              <MuiTextField label={translate('wallets.fields.note')} value={v.note} onChange={(ev) => set({ note: ev.target.value })} error={!!e.note} helperText={e.note} multiline />
            </>
          )}
        </MoneyDialog>
      )}
      {action?.kind === 'adjust' && (
        <MoneyDialog open title={translate('wallets.adjust_title', { name: action.wallet.dealer.name })} path={`/wallets/${action.wallet.id}/adjust`} initial={{ type: 'credit', amount: '', reference: '', note: '' }} submitLabel={translate('wallets.adjust')} onClose={close} onDone={done}>
          {(v, set, e) => (
            <>
              <Typography variant="body2">{translate('wallets.current_balance', { balance: `${action.wallet.balance} ${action.wallet.currency}` })}</Typography>
              <MuiTextField select label={translate('wallets.fields.type')} value={v.type} onChange={(ev) => set({ type: ev.target.value })} error={!!e.type} helperText={e.type}>
                <MenuItem value="credit">{translate('wallets.types.credit')}</MenuItem>
                <MenuItem value="debit">{translate('wallets.types.debit')}</MenuItem>
              </MuiTextField>
              <MuiTextField label={translate('wallets.fields.amount')} value={v.amount} onChange={(ev) => set({ amount: ev.target.value })} error={!!e.amount} helperText={e.amount} slotProps={{ htmlInput: { inputMode: 'decimal' } }} />
              <MuiTextField label={translate('wallets.fields.reference')} value={v.reference} onChange={(ev) => set({ reference: ev.target.value })} error={!!e.reference} helperText={e.reference} />
              <MuiTextField label={translate('wallets.fields.reason')} value={v.note} onChange={(ev) => set({ note: ev.target.value })} error={!!e.note} helperText={e.note ?? translate('wallets.reason_help')} multiline />
            </>
          )}
        </MoneyDialog>
      )}
    </>
  );
}

/** Pending top-up requests with their receipts: approve (credits once) or reject with a reason. */
function TopUpRequests({ onDecided }: { onDecided: () => void }) {
  const translate = useTranslate();
  const notify = useNotify();
  const { data = [], refetch } = useGetList<TopUpRequestResponse>('wallet-top-up-requests', { filter: { status: 'pending' }, pagination: { page: 1, perPage: 50 }, sort: { field: 'id', order: 'ASC' } });
  const [rejecting, setRejecting] = useState<TopUpRequestResponse | null>(null);
  const { canAccess } = useCanAccess({ resource: 'wallets', action: 'review wallet top-ups' });
  if (!canAccess || data.length === 0) return null;
  const approve = async (r: TopUpRequestResponse) => {
    try {
      const res = await apiFetch(`/wallet-top-up-requests/${r.id}/approve`, { method: 'POST' });
      notify(res.message ?? '', { type: 'success' });
    } catch (e) {
      notify((e as Error).message, { type: 'error' });
    }
    await refetch();
    onDecided();
  };
  return (
    <Card sx={{ mb: 3 }}>
      <CardHeader title={translate('wallets.requests_title')} subheader={translate('wallets.requests_help', { smart_count: data.length })} />
      <CardContent>
        <Stack spacing={1.5}>
          {data.map((r) => (
            <Box key={r.id} sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 2, justifyContent: 'space-between' }}>
              <Box>
                <Typography sx={{ fontWeight: 600 }}>{`${r.dealer.name} · ${r.amount}`}</Typography>
                <Typography variant="body2" color="text.secondary">
                  {translate('wallets.request_line', { reference: r.reference, at: r.created_at ? new Date(r.created_at).toLocaleString() : '' })}
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
                <Button size="small" variant="contained" onClick={() => approve(r)}>{translate('wallets.approve')}</Button>
                <Button size="small" color="error" onClick={() => setRejecting(r)}>{translate('wallets.reject')}</Button>
              </Stack>
            </Box>
          ))}
        </Stack>
      </CardContent>
      {rejecting && (
        <MoneyDialog open title={translate('wallets.reject_title', { name: rejecting.dealer.name })} path={`/wallet-top-up-requests/${rejecting.id}/reject`} initial={{ reason: '' }} submitLabel={translate('wallets.reject')} onClose={() => setRejecting(null)} onDone={async () => { setRejecting(null); await refetch(); }}>
          {(v, set, e) => <MuiTextField label={translate('wallets.fields.reason')} value={v.reason} onChange={(ev) => set({ reason: ev.target.value })} error={!!e.reason} helperText={e.reason} multiline autoFocus />}
        </MoneyDialog>
      )}
    </Card>
  );
}
