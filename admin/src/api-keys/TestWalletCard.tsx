import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Confirm, useNotify, useTranslate, type Identifier } from 'react-admin';
import { Box, Button, Card, CardContent, Skeleton, Stack, Typography } from '@mui/material';
import { TEST_WALLET_BALANCE, formatMinor, type WalletResponse } from '@app/contracts';
import { apiFetch } from '../providers/http';
import { serverMessage } from '../providers/errors';
import { LoadError } from '../common/ListParts';
import { Ltr } from '../common/Ltr';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { ModeChip } from './ModeChip';

const PATH = '/dealer/api-keys/test-wallet';
export const testWalletKey = (dealerId: Identifier | null) => ['dealer/api-keys', 'test-wallet', dealerId === null ? null : String(dealerId)];

/**
 * The dealer's test wallet (GET /dealer/api-keys/test-wallet): what its rk_test_ keys' sales are
 * paid from, null before its first test key. "Reset test balance" ('manage api keys') asks first,
 * then POSTs …/reset and shows the new balance with the server's message. An admin names the
 * dealer (`dealerId`, the list's dealer filter); without one the card says to pick a dealer.
 */
export function TestWalletCard({ dealerId, needsDealer, canManage }: { dealerId: Identifier | null; needsDealer: boolean; canManage: boolean }) {
  const translate = useTranslate();
  const notify = useNotify();
  const fmt = useCompanyFormat();
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const waiting = needsDealer && dealerId === null;
  const query = dealerId === null ? {} : { dealer_id: String(dealerId) };
  const { data, error, isPending, refetch } = useQuery({
    queryKey: testWalletKey(dealerId),
    queryFn: async () => (await apiFetch<WalletResponse | null>(PATH, { query })).data ?? null,
    enabled: !waiting,
  });
  const reset = async () => {
    setBusy(true);
    try {
      const res = await apiFetch<WalletResponse>(`${PATH}/reset`, { method: 'POST', query });
      queryClient.setQueryData(testWalletKey(dealerId), res.data);
      notify(res.message ?? 'test_mode.reset', { type: 'success' });
    } catch (e) {
      notify(serverMessage(e), { type: 'error' });
    } finally {
      setBusy(false);
      setAsking(false);
    }
  };
  const startingBalance = `${formatMinor(TEST_WALLET_BALANCE)} ${data?.currency ?? fmt.currency}`;
  return (
    <Card variant="outlined" sx={{ mb: 2, maxWidth: 900 }} component="section" aria-labelledby="test-wallet-title">
      <CardContent>
        <Stack direction="row" sx={{ gap: 1, alignItems: 'center', flexWrap: 'wrap', mb: 0.5 }}>
          <Typography variant="subtitle1" component="h2" id="test-wallet-title" sx={{ fontWeight: 600 }}>
            {translate('test_mode.wallet_title')}
          </Typography>
          <ModeChip mode="test" />
        </Stack>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
          {translate('test_mode.wallet_help')}
        </Typography>
        {waiting ? (
          <Typography variant="body2">{translate('test_mode.wallet_pick_dealer')}</Typography>
        ) : isPending ? (
          <Skeleton variant="rounded" width={160} height={48} />
        ) : error ? (
          <LoadError error={error} onRetry={() => refetch()} />
        ) : data ? (
          <Stack direction={{ xs: 'column', sm: 'row' }} sx={{ gap: 1.5, alignItems: { xs: 'flex-start', sm: 'center' }, justifyContent: 'space-between' }}>
            <Box>
              <Typography variant="body2" color="text.secondary">
                {translate('wallets.fields.balance')}
              </Typography>
              <Typography variant="h5" component="p" sx={{ fontWeight: 700 }} data-testid="test-wallet-balance">
                <Ltr>{`${data.balance} ${data.currency}`}</Ltr>
              </Typography>
            </Box>
            {canManage && (
              <Button variant="outlined" color="warning" onClick={() => setAsking(true)} disabled={busy}>
                {translate('test_mode.reset')}
              </Button>
            )}
          </Stack>
        ) : (
          <Typography variant="body2">{translate('test_mode.wallet_none')}</Typography>
        )}
        <Confirm
          isOpen={asking}
          loading={busy}
          title={translate('test_mode.reset_title')}
          // The amount is isolated left to right (U+2066..U+2069) inside Arabic text.
          content={translate('test_mode.reset_body', { amount: `\u2066${startingBalance}\u2069` })}
          confirm={translate('test_mode.reset')}
          confirmColor="warning"
          onConfirm={reset}
          onClose={() => setAsking(false)}
        />
      </CardContent>
    </Card>
  );
}
