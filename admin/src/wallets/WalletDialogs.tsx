import { useTranslate } from 'react-admin';
import { InputAdornment, MenuItem, TextField, Typography } from '@mui/material';
import type { WalletResponse } from '@app/contracts';
import { MoneyDialog } from './MoneyDialog';
import { useConsoleDataProvider } from '../providers/dataProvider';

type Wallet = Pick<WalletResponse, 'id' | 'dealer' | 'balance' | 'currency' | 'low_balance_threshold'>;
interface Props {
  wallet: Wallet;
  open?: boolean;
  onClose: () => void;
  onDone: (data: unknown) => void;
}

const decimal = { htmlInput: { inputMode: 'decimal' as const } };

/**
 * POST /wallets/{id}/top-up with an Idempotency-Key made once per opening: a double click or a
 * retry after a network error credits once, and the API's answer to a replay shows as success.
 */
export function TopUpDialog({ wallet, open = true, onClose, onDone }: Props) {
  const translate = useTranslate();
  const dataProvider = useConsoleDataProvider();
  return (
    <MoneyDialog
      open={open}
      title={translate('wallets.top_up_title', { name: wallet.dealer.name })}
      send={(data, idempotencyKey) => dataProvider.topUp({ id: wallet.id, data, idempotencyKey })}
      initial={{ amount: '', reference: '', note: '' }}
      submitLabel={translate('wallets.top_up')}
      onClose={onClose}
      onDone={onDone}
    >
      {(v, set, e) => (
        <>
          <Typography variant="body2">{translate('wallets.current_balance', { balance: `${wallet.balance} ${wallet.currency}` })}</Typography>
          <TextField
            label={translate('wallets.fields.amount')}
            value={v.amount}
            onChange={(ev) => set({ amount: ev.target.value })}
            error={!!e.amount}
            helperText={e.amount}
            slotProps={decimal}
            autoFocus
            required
          />
          <TextField
            label={translate('wallets.fields.reference')}
            value={v.reference}
            onChange={(ev) => set({ reference: ev.target.value })}
            error={!!e.reference}
            helperText={e.reference ?? translate('wallets.reference_help')}
            required
          />
          <TextField
            label={translate('wallets.fields.note')}
            value={v.note}
            onChange={(ev) => set({ note: ev.target.value })}
            error={!!e.note}
            helperText={e.note}
            multiline
          />
        </>
      )}
    </MoneyDialog>
  );
}

/** POST /wallets/{id}/adjust (credit or debit with its reason), idempotent like the top-up. */
export function AdjustDialog({ wallet, open = true, onClose, onDone }: Props) {
  const translate = useTranslate();
  const dataProvider = useConsoleDataProvider();
  return (
    <MoneyDialog
      open={open}
      title={translate('wallets.adjust_title', { name: wallet.dealer.name })}
      send={(data, idempotencyKey) => dataProvider.adjustWallet({ id: wallet.id, data, idempotencyKey })}
      initial={{ type: 'credit', amount: '', reference: '', note: '' }}
      submitLabel={translate('wallets.adjust')}
      onClose={onClose}
      onDone={onDone}
    >
      {(v, set, e) => (
        <>
          <Typography variant="body2">{translate('wallets.current_balance', { balance: `${wallet.balance} ${wallet.currency}` })}</Typography>
          <TextField
            select
            label={translate('wallets.fields.type')}
            value={v.type}
            onChange={(ev) => set({ type: ev.target.value })}
            error={!!e.type}
            helperText={e.type}
          >
            <MenuItem value="credit">{translate('wallets.types.credit')}</MenuItem>
            <MenuItem value="debit">{translate('wallets.types.debit')}</MenuItem>
          </TextField>
          <TextField
            label={translate('wallets.fields.amount')}
            value={v.amount}
            onChange={(ev) => set({ amount: ev.target.value })}
            error={!!e.amount}
            helperText={e.amount}
            slotProps={decimal}
            required
          />
          <TextField
            label={translate('wallets.fields.reference')}
            value={v.reference}
            onChange={(ev) => set({ reference: ev.target.value })}
            error={!!e.reference}
            helperText={e.reference}
            required
          />
          <TextField
            label={translate('wallets.fields.reason')}
            value={v.note}
            onChange={(ev) => set({ note: ev.target.value })}
            error={!!e.note}
            helperText={e.note ?? translate('wallets.reason_help')}
            multiline
            required
          />
        </>
      )}
    </MoneyDialog>
  );
}

/**
 * The alert threshold of one wallet: PUT /wallets/{id}/low-balance-alert (admin) or
 * /my-wallet/low-balance-alert (the dealer, `mine`). Empty clears it.
 */
export function LowBalanceDialog({ wallet, mine = false, open = true, onClose, onDone }: Props & { mine?: boolean }) {
  const translate = useTranslate();
  const dataProvider = useConsoleDataProvider();
  return (
    <MoneyDialog
      open={open}
      title={mine ? translate('wallets.alert.title_mine') : translate('wallets.alert.title', { name: wallet.dealer.name })}
      send={(v) =>
        dataProvider.setLowBalanceAlert({ id: mine ? 'me' : wallet.id, threshold: String(v.threshold).trim() === '' ? null : String(v.threshold).trim() })
      }
      initial={{ threshold: wallet.low_balance_threshold ?? '' }}
      submitLabel={translate('common.save')}
      onClose={onClose}
      onDone={onDone}
    >
      {(v, set, e) => (
        <>
          <Typography variant="body2">{translate('wallets.alert.help')}</Typography>
          <Typography variant="body2">{translate('wallets.current_balance', { balance: `${wallet.balance} ${wallet.currency}` })}</Typography>
          <TextField
            label={translate('wallets.alert.threshold')}
            value={v.threshold}
            onChange={(ev) => set({ threshold: ev.target.value })}
            error={!!e.threshold}
            helperText={e.threshold ?? translate('wallets.alert.threshold_help')}
            slotProps={{ ...decimal, input: { endAdornment: <InputAdornment position="end">{wallet.currency}</InputAdornment> } }}
            autoFocus
          />
        </>
      )}
    </MoneyDialog>
  );
}
