import { useEffect, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, Button, InputAdornment, Stack, TextField, Typography } from '@mui/material';
import type { WalletResponse } from '@app/contracts';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { fieldErrors, serverMessage } from '../providers/errors';
import { MY_WALLET_KEY } from './myWallet';

/**
 * The dealer's own low-balance alert (PUT /my-wallet/low-balance-alert): a threshold, or none.
 * Below it the console shows a banner and the dealer gets one email per crossing. The server's
 * message shows whole on the field.
 */
export function LowBalanceAlertForm({ wallet }: { wallet: Pick<WalletResponse, 'low_balance_threshold' | 'low_balance' | 'currency'> }) {
  const translate = useTranslate();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const dataProvider = useConsoleDataProvider();
  const [value, setValue] = useState(wallet.low_balance_threshold ?? '');
  const [error, setError] = useState<string | null>(null);
  const [general, setGeneral] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => setValue(wallet.low_balance_threshold ?? ''), [wallet.low_balance_threshold]);

  const save = async (threshold: string | null) => {
    setBusy(true);
    setError(null);
    setGeneral(null);
    try {
      const res = await dataProvider.setLowBalanceAlert({ id: 'me', threshold });
      notify(res.message ?? 'ra.notification.updated', { type: 'success' });
      if (threshold === null) setValue('');
      await queryClient.invalidateQueries({ queryKey: MY_WALLET_KEY });
    } catch (e) {
      const fields = fieldErrors(e);
      if (fields.threshold) setError(fields.threshold);
      else setGeneral(Object.values(fields).join(' ') || serverMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Stack
      component="form"
      noValidate
      spacing={2}
      onSubmit={(e) => {
        e.preventDefault();
        void save(String(value).trim() === '' ? null : String(value).trim());
      }}
    >
      <Typography variant="body2" color="text.secondary">
        {translate('wallets.alert.help')}
      </Typography>
      {wallet.low_balance_threshold ? (
        <Alert severity={wallet.low_balance ? 'warning' : 'success'} variant="outlined">
          {translate(wallet.low_balance ? 'wallets.alert.state_below' : 'wallets.alert.state_above', {
            threshold: `${wallet.low_balance_threshold} ${wallet.currency}`,
          })}
        </Alert>
      ) : (
        <Typography variant="body2">{translate('wallets.alert.none')}</Typography>
      )}
      {general && (
        <Alert severity="error" role="alert">
          {general}
        </Alert>
      )}
      <TextField
        label={translate('wallets.alert.threshold')}
        value={value}
        onChange={(e) => setValue(e.target.value)}
        error={!!error}
        helperText={error ?? translate('wallets.alert.threshold_help')}
        slotProps={{ htmlInput: { inputMode: 'decimal' }, input: { endAdornment: <InputAdornment position="end">{wallet.currency}</InputAdornment> } }}
        size="small"
      />
      <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
        <Button type="submit" variant="contained" disabled={busy}>
          {translate(busy ? 'common.saving' : 'common.save')}
        </Button>
        {wallet.low_balance_threshold && (
          <Button onClick={() => save(null)} disabled={busy} color="inherit">
            {translate('wallets.alert.clear')}
          </Button>
        )}
      </Stack>
    </Stack>
  );
}
