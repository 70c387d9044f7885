import { useState } from 'react';
import { TextInput, useGetList, useInput, useTranslate } from 'react-admin';
import { Alert, Button, Card, CardContent, CardHeader, Chip, Grid, Stack, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { Link, useSearchParams } from 'react-router';
import { payoutRequestSchema, topUpRequestSchema, type TopUpRequestResponse } from '@app/contracts';
import { PageTitle } from '../common/PageTitle';
import { Ltr, useLtr } from '../common/Ltr';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { FullPageLoader } from '../common/FullPageLoader';
import { serverMessage } from '../providers/errors';
import { MoneyDialog } from './MoneyDialog';
import { decimal } from './WalletDialogs';
import { Chart } from '../charts/Chart';
import { TransactionRows } from './WalletTransactionList';
import { LowBalanceAlertForm } from './LowBalanceAlertForm';
import { WalletStatement } from './WalletStatement';
import { useMyWallet } from './myWallet';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { useHasPermission, useSignedInUser } from '../auth/identity';
import { WhereToPay } from './WhereToPay';

/**
 * /my-wallet: the signed-in dealer's balance, its low-balance alert, the sales it missed today, the
 * last 30 days, its latest transactions and its top-up requests. ?request=1 (the low-balance
 * banner's "Top up") opens the top-up request. A "Profit Only" dealer's wallet holds its profit: it
 * asks for a payout to its mobile number instead.
 */
export default function MyWalletPage() {
  const translate = useTranslate();
  const fmt = useCompanyFormat();
  const ltr = useLtr();
  const dataProvider = useConsoleDataProvider();
  const { data, isPending, error, refetch } = useMyWallet(15_000);
  // Asking for money (a top-up or a payout) and the list of what was asked are their own permission:
  // a role with only "view own wallet" sees its balance and ledger, and is asked nothing it may not read.
  const canAsk = useHasPermission('request wallet top-ups');
  const requests = useGetList<TopUpRequestResponse>(
    'wallet-top-up-requests',
    { pagination: { page: 1, perPage: 5 }, sort: { field: 'id', order: 'DESC' } },
    { enabled: canAsk },
  );
  const [params, setParams] = useSearchParams();
  const [asking, setAskingState] = useState(params.get('request') === '1');
  const [payingOut, setPayingOut] = useState(false);
  const user = useSignedInUser();
  const setAsking = (open: boolean) => {
    setAskingState(open);
    if (!open && params.has('request')) setParams({}, { replace: true });
  };
  // A 401: the session ended and the sign-in page (with ?redirect=) is on its way.
  if (error && !data && (error as { status?: number }).status !== 401) return <Alert severity="error">{serverMessage(error)}</Alert>;
  if (isPending || !data) return <FullPageLoader />;
  const { wallet } = data;
  const missed = data.missed_sales_today;
  const isProfit = wallet.pricing_model === 'profit';
  return (
    <>
      <PageTitle
        title={translate('menu.my_wallet')}
        actions={
          !canAsk ? undefined : isProfit ? (
            <Button variant="contained" onClick={() => setPayingOut(true)}>
              {translate('wallets.request_payout')}
            </Button>
          ) : (
            <Button variant="contained" onClick={() => setAsking(true)}>
              {translate('wallets.request_top_up')}
            </Button>
          )
        }
      />
      <Grid container spacing={3}>
        <Grid size={{ xs: 12, md: 6 }}>
          <Card sx={{ height: '100%' }}>
            <CardContent>
              <Typography color="text.secondary">{translate('wallets.fields.balance')}</Typography>
              <Typography variant="h3" component="p" sx={{ fontWeight: 700 }} data-testid="my-balance">
                <Ltr>{`${wallet.balance} ${wallet.currency}`}</Ltr>
              </Typography>
              <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
                {translate(`wallets.pricing_help.${wallet.pricing_model}`)}
              </Typography>
              {data.pending_top_ups > 0 && (
                <Chip sx={{ mt: 2 }} color="warning" label={translate('wallets.pending_requests', { smart_count: data.pending_top_ups })} />
              )}
            </CardContent>
          </Card>
        </Grid>
        {missed && missed.count > 0 && (
          <Grid size={{ xs: 12 }} sx={{ order: -1 }}>
            <Alert
              severity="warning"
              action={
                <Button component={Link} to="/missed-sales" color="inherit" size="small">
                  {translate('missed_sales.see_them')}
                </Button>
              }
            >
              {translate('missed_sales.today_dealer', { smart_count: missed.count, amount: ltr(`${missed.amount} ${wallet.currency}`) })}
            </Alert>
          </Grid>
        )}
        <Grid size={{ xs: 12, md: 6 }}>
          <Card sx={{ height: '100%' }}>
            <CardHeader title={translate('wallets.alert.card_title')} slotProps={{ title: { component: 'h2', variant: 'h6' } }} />
            <CardContent sx={{ pt: 0 }}>
              <LowBalanceAlertForm wallet={wallet} />
            </CardContent>
          </Card>
        </Grid>
        <Grid size={{ xs: 12 }}>
          <Card sx={{ height: '100%' }}>
            <CardHeader title={translate('wallets.last_30_days')} />
            <CardContent>
              <Chart
                kind="line"
                period="day"
                points={data.days.map((d) => ({ key: d.date, value: Number(d.balance) }))}
                isEmpty={data.days.every((d) => !Number(d.balance) && !Number(d.credits) && !Number(d.debits))}
                label={translate('wallets.chart_label', {
                  from: data.days[0]?.date ?? '',
                  to: data.days.at(-1)?.date ?? '',
                  max: Math.max(0, ...data.days.map((d) => Number(d.balance))).toFixed(2),
                })}
                seriesLabel={translate('wallets.chart_series')}
                currency={wallet.currency}
                empty={translate('wallets.chart_empty')}
              />
            </CardContent>
          </Card>
        </Grid>
        <Grid size={{ xs: 12 }}>
          <Card>
            <CardHeader
              title={translate('wallets.latest')}
              action={
                <Button component={Link} to="/wallet-transactions">
                  {translate('wallets.all_transactions')}
                </Button>
              }
            />
            <CardContent sx={{ overflowX: 'auto' }}>
              <TransactionRows rows={data.transactions} showDealer={false} />
            </CardContent>
          </Card>
        </Grid>
        <Grid size={{ xs: 12 }}>
          {/* Read when asked for: the page already polls the wallet every 15 s. */}
          <WalletStatement walletId={wallet.id} autoLoad={false} />
        </Grid>
        {(requests.data?.length ?? 0) > 0 && (
          <Grid size={{ xs: 12 }}>
            <Card>
              <CardHeader title={translate(isProfit ? 'wallets.money_requests_title' : 'wallets.my_requests')} />
              <CardContent sx={{ overflowX: 'auto' }}>
                <Table size="small">
                  <TableHead>
                    <TableRow>
                      <TableCell>{translate('wallets.fields.date')}</TableCell>
                      <TableCell>{translate('wallets.fields.kind')}</TableCell>
                      <TableCell>{translate('wallets.fields.amount')}</TableCell>
                      <TableCell>{translate('wallets.reference_or_number')}</TableCell>
                      <TableCell>{translate('wallets.fields.status')}</TableCell>
                    </TableRow>
                  </TableHead>
                  <TableBody>
                    {requests.data!.map((r) => (
                      <TableRow key={r.id}>
                        <TableCell>{fmt.dateTime(r.created_at)}</TableCell>
                        <TableCell>{translate(`wallets.request_kinds.${r.kind ?? 'top_up'}`)}</TableCell>
                        <TableCell>
                          <Ltr>{r.amount}</Ltr>
                        </TableCell>
                        <TableCell>
                          <Ltr>{r.reference}</Ltr>
                        </TableCell>
                        <TableCell>
                          <Stack direction="row" sx={{ gap: 1, alignItems: 'center' }}>
                            <Chip
                              size="small"
                              color={r.status === 'approved' ? 'success' : r.status === 'rejected' ? 'error' : 'default'}
                              label={translate(`wallets.request_status.${r.status}`)}
                            />
                            {r.reason && <Typography variant="body2">{r.reason}</Typography>}
                          </Stack>
                        </TableCell>
                      </TableRow>
                    ))}
                  </TableBody>
                </Table>
              </CardContent>
            </Card>
          </Grid>
        )}
      </Grid>
      <MoneyDialog
        open={asking && canAsk}
        title={translate('wallets.request_top_up')}
        schema={topUpRequestSchema}
        initial={{ amount: '', reference: '', note: '', receipt: null as File | null }}
        submitLabel={translate('wallets.send_request')}
        // Multipart when a receipt is attached (the dataProvider sends any file that way).
        send={(v) =>
          dataProvider.requestTopUp({ data: { amount: v.amount, reference: v.reference, note: v.note, ...(v.receipt ? { receipt: v.receipt } : {}) } })
        }
        onClose={() => setAsking(false)}
        onDone={() => {
          setAsking(false);
          void refetch();
          void requests.refetch();
        }}
      >
        <Typography variant="body2">{translate('wallets.request_help')}</Typography>
        <WhereToPay enabled={asking && canAsk} />
        <TextInput source="amount" label="wallets.fields.amount" slotProps={decimal} autoFocus fullWidth helperText={false} />
        <TextInput source="reference" label="wallets.fields.reference" helperText="wallets.reference_help" fullWidth />
        <TextInput source="note" label="wallets.fields.note" multiline fullWidth helperText={false} />
        <ReceiptInput />
      </MoneyDialog>
      <MoneyDialog
        open={payingOut && canAsk}
        title={translate('wallets.request_payout')}
        schema={payoutRequestSchema}
        initial={{ amount: '', phone: user?.phone ?? '', note: '' }}
        submitLabel={translate('wallets.send_request')}
        send={(v) => dataProvider.requestPayout({ data: { amount: v.amount, phone: v.phone, note: v.note } })}
        onClose={() => setPayingOut(false)}
        onDone={() => {
          setPayingOut(false);
          void refetch();
          void requests.refetch();
        }}
      >
        <Typography variant="body2">{translate('wallets.payout_help', { available: ltr(`${wallet.balance} ${wallet.currency}`) })}</Typography>
        <TextInput source="amount" label="wallets.fields.amount" slotProps={decimal} autoFocus fullWidth helperText={false} />
        <TextInput
          source="phone"
          label="wallets.payout_phone"
          helperText={<>{translate('wallets.payout_phone_help', { example: ltr('61 5123456') })}</>}
          type="tel"
          slotProps={{ htmlInput: { inputMode: 'tel', dir: 'ltr' } }}
          fullWidth
        />
        <TextInput source="note" label="wallets.fields.note" multiline fullWidth helperText={false} />
      </MoneyDialog>
    </>
  );
}

/** The top-up request's receipt: an image picked from the phone, its name shown once picked; the API's word on it below. */
function ReceiptInput() {
  const translate = useTranslate();
  const { field, fieldState } = useInput<File | null>({ source: 'receipt', parse: (v) => v, format: (v) => v });
  return (
    <>
      <Button component="label" variant="outlined">
        {field.value ? field.value.name : translate('wallets.attach_receipt')}
        <input hidden type="file" accept="image/*" onChange={(ev) => field.onChange(ev.target.files?.[0] ?? null)} />
      </Button>
      {fieldState.error?.message && (
        <Typography color="error" variant="body2">
          {translate(fieldState.error.message, { _: fieldState.error.message })}
        </Typography>
      )}
    </>
  );
}
