import { SelectInput, TextInput, useTranslate } from 'react-admin';
import { InputAdornment, Typography } from '@mui/material';
import { lowBalanceAlertSchema, walletAdjustSchema, walletTopUpSchema, type WalletResponse } from '@app/contracts';
import { MoneyDialog } from './MoneyDialog';
import { useConsoleDataProvider } from '../providers/dataProvider';

type Wallet = Pick<WalletResponse, 'id' | 'dealer' | 'balance' | 'currency' | 'low_balance_threshold'>;
interface Props {
  wallet: Wallet;
  open?: boolean;
  onClose: () => void;
  onDone: (data: unknown) => void;
}

/** An amount typed on a phone: the keypad with the decimal point. */
export const decimal = { htmlInput: { inputMode: 'decimal' as const } };

const TYPES = [
  { id: 'credit', name: 'wallets.types.credit' },
  { id: 'debit', name: 'wallets.types.debit' },
];

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
      schema={walletTopUpSchema}
      initial={{ amount: '', reference: '', note: '' }}
      submitLabel={translate('wallets.top_up')}
      onClose={onClose}
      onDone={onDone}
    >
      <Typography variant="body2">{translate('wallets.current_balance', { balance: `${wallet.balance} ${wallet.currency}` })}</Typography>
      <TextInput source="amount" label="wallets.fields.amount" slotProps={decimal} autoFocus isRequired fullWidth />
      <TextInput source="reference" label="wallets.fields.reference" helperText="wallets.reference_help" isRequired fullWidth />
      <TextInput source="note" label="wallets.fields.note" multiline fullWidth helperText={false} />
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
      schema={walletAdjustSchema}
      initial={{ type: 'credit', amount: '', reference: '', note: '' }}
      submitLabel={translate('wallets.adjust')}
      onClose={onClose}
      onDone={onDone}
    >
      <Typography variant="body2">{translate('wallets.current_balance', { balance: `${wallet.balance} ${wallet.currency}` })}</Typography>
      <SelectInput source="type" label="wallets.fields.type" choices={TYPES} helperText={false} fullWidth />
      <TextInput source="amount" label="wallets.fields.amount" slotProps={decimal} isRequired fullWidth helperText={false} />
      <TextInput source="reference" label="wallets.fields.reference" isRequired fullWidth helperText={false} />
      <TextInput source="note" label="wallets.fields.reason" helperText="wallets.reason_help" multiline isRequired fullWidth />
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
      schema={lowBalanceAlertSchema}
      initial={{ threshold: wallet.low_balance_threshold ?? '' }}
      submitLabel={translate('common.save')}
      onClose={onClose}
      onDone={onDone}
    >
      <Typography variant="body2">{translate('wallets.alert.help')}</Typography>
      <Typography variant="body2">{translate('wallets.current_balance', { balance: `${wallet.balance} ${wallet.currency}` })}</Typography>
      <TextInput
        source="threshold"
        label="wallets.alert.threshold"
        helperText="wallets.alert.threshold_help"
        slotProps={{ ...decimal, input: { endAdornment: <InputAdornment position="end">{wallet.currency}</InputAdornment> } }}
        autoFocus
        fullWidth
      />
    </MoneyDialog>
  );
}
