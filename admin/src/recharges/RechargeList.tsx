import { useState } from 'react';
import { AutocompleteInput, Datagrid, DateInput, FunctionField, List, ReferenceInput, SelectInput, TextInput, useNotify, usePermissions, useRefresh, useTranslate } from 'react-admin';
import { useQuery } from '@tanstack/react-query';
import { Alert, Box, Button, Chip, Drawer, IconButton, Stack, Table, TableBody, TableCell, TableRow, Typography } from '@mui/material';
import CloseIcon from '@mui/icons-material/Close';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { RECHARGE_STATUSES, type RechargeResponse, type WalletTransactionResponse } from '@app/contracts';
import { PageTitle } from '../common/PageTitle';
import { CsvExportButton } from '../common/CsvExportButton';
import { useSession } from '../providers/useSession';
import { apiFetch } from '../providers/http';
import { TransactionRows } from '../wallets/WalletTransactionList';
import { useCompanyFormat } from '../common/useCompanyFormat';

const COLORS: Record<string, 'default' | 'info' | 'success' | 'error' | 'warning'> = { pending: 'default', processing: 'info', completed: 'success', failed: 'error', refunded: 'warning' };

export function RechargeStatus({ status }: { status: string }) {
  const translate = useTranslate();
  return <Chip size="small" color={COLORS[status] ?? 'default'} label={translate(`recharges.status.${status}`)} />;
}

/** /recharges: every sale (a dealer: its own), filters, CSV, and /recharges/{id} opens its detail. */
export default function RechargeList() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const dealer = useSession().user?.user_type === 'dealer';
  const fmt = useCompanyFormat();
  const { permissions } = usePermissions<string[]>();
  const seesCost = !!permissions?.includes('view bundles prices');
  const openId = (useParams()['*'] ?? '').split('/')[0];
  // Links from the dashboard carry their filters (?status=completed&from=...&to=...).
  const [params] = useSearchParams();
  const preset = Object.fromEntries(['status', 'from', 'to', 'dealer_id', 'provider_id', 'phone'].flatMap((k) => (params.get(k) ? [[k, params.get(k)!]] : [])));
  const filters = [
    ...(dealer
      ? []
      : [
          <ReferenceInput key="dealer_id" source="dealer_id" reference="users" filter={{ user_type: 'dealer' }} alwaysOn>
            <AutocompleteInput label="wallets.fields.dealer" optionText="name" />
          </ReferenceInput>,
        ]),
    <ReferenceInput key="provider_id" source="provider_id" reference="internet-providers">
      <AutocompleteInput label="recharges.fields.provider" optionText="name" />
    </ReferenceInput>,
    <SelectInput key="status" source="status" label="recharges.fields.status" choices={RECHARGE_STATUSES.map((s) => ({ id: s, name: `recharges.status.${s}` }))} alwaysOn />,
    <DateInput key="from" source="from" label="wallets.fields.from" alwaysOn />,
    <DateInput key="to" source="to" label="wallets.fields.to" alwaysOn />,
    <TextInput key="phone" source="phone" label="recharges.fields.phone" alwaysOn />,
    <TextInput key="q" source="q" label="recharges.fields.reference" />,
  ];
  return (
    <>
      <PageTitle title={translate('menu.recharges')} />
      <List resource="recharges" filters={filters} filterDefaultValues={preset} sort={{ field: 'id', order: 'DESC' }} perPage={25} disableSyncWithLocation title={translate('menu.recharges')} actions={<CsvExportButton path="/recharges/export" filename="recharges" />}>
        <Datagrid bulkActionButtons={false} rowClick={(id) => `/recharges/${id}`}>
          <FunctionField label="recharges.fields.created_at" render={(r: RechargeResponse) => fmt.dateTime(r.created_at)} />
          <FunctionField label="recharges.fields.reference" render={(r: RechargeResponse) => r.reference} />
          {!dealer && <FunctionField label="wallets.fields.dealer" render={(r: RechargeResponse) => r.dealer.name} />}
          <FunctionField label="recharges.fields.bundle" render={(r: RechargeResponse) => `${r.provider_name} · ${r.bundle_name}`} />
          <FunctionField label="recharges.fields.phone" render={(r: RechargeResponse) => r.phone} />
          <FunctionField label="recharges.fields.amount" render={(r: RechargeResponse) => `${r.amount} ${r.currency}`} />
          {seesCost && <FunctionField label="recharges.fields.profit" render={(r: RechargeResponse) => r.profit} />}
          <FunctionField label="recharges.fields.status" render={(r: RechargeResponse) => <RechargeStatus status={r.status} />} />
        </Datagrid>
      </List>
      <RechargeDetail id={openId || null} onClose={() => navigate('/recharges')} />
    </>
  );
}

interface Detail {
  recharge: RechargeResponse;
  timeline: { at: string; event: string; detail: string | null }[];
  transactions: WalletTransactionResponse[];
}

function RechargeDetail({ id, onClose }: { id: string | null; onClose: () => void }) {
  const translate = useTranslate();
  const notify = useNotify();
  const refresh = useRefresh();
  const fmt = useCompanyFormat();
  const { permissions } = usePermissions<string[]>();
  const [error, setError] = useState<string | null>(null);
  const { data, refetch } = useQuery({ queryKey: ['recharge', id], enabled: !!id, queryFn: async () => (await apiFetch<Detail>(`/recharges/${id}`)).data as Detail, refetchInterval: (q) => (q.state.data && ['pending', 'processing'].includes(q.state.data.recharge.status) ? 2000 : false) });
  const act = async (what: 'retry' | 'refund') => {
    setError(null);
    try {
      const res = await apiFetch(`/recharges/${id}/${what}`, { method: 'POST' });
      notify(res.message ?? '', { type: 'success' });
      await refetch();
      refresh();
    } catch (e) {
      setError((e as { body?: { message?: string } }).body?.message ?? (e as Error).message);
    }
  };
  const r = data?.recharge;
  const rows: [string, string | null | undefined][] = r
    ? [
        ['recharges.fields.reference', r.reference],
        ['wallets.fields.dealer', `${r.dealer.name}${r.dealer.dealer_code ? ` (${r.dealer.dealer_code})` : ''}`],
        ['recharges.fields.bundle', `${r.provider_name} · ${r.category_name} · ${r.bundle_name}`],
        ['recharges.fields.phone', r.phone],
        ['recharges.fields.payer_phone', r.payer_phone],
        ['recharges.fields.payment_method', r.payment_method],
        ['recharges.fields.amount', `${r.amount} ${r.currency}`],
        ...(r.cost !== undefined ? ([['recharges.fields.cost', r.cost], ['recharges.fields.profit', r.profit]] as [string, string][]) : []),
        ['recharges.fields.pricing_model', translate(`wallets.pricing.${r.pricing_model}`)],
        ['recharges.fields.attempts', String(r.attempts)],
        ['recharges.fields.payment_reference', r.payment_reference],
        ['recharges.fields.operator_reference', r.operator_reference],
        ['recharges.fields.failure_reason', r.failure_reason],
      ]
    : [];
  return (
    <Drawer anchor="right" open={!!id} onClose={onClose} slotProps={{ paper: { role: 'dialog', 'aria-labelledby': 'recharge-title', sx: { width: { xs: '100%', md: 640 } } } as object }}>
      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', px: 3, pt: 2 }}>
        <Typography variant="h6" component="h2" id="recharge-title">
          {translate('recharges.detail_title')}
        </Typography>
        <IconButton aria-label={translate('common.close')} onClick={onClose}>
          <CloseIcon />
        </IconButton>
      </Stack>
      {r && (
        <Box sx={{ px: 3, pb: 3 }}>
          <Stack direction="row" sx={{ gap: 1, alignItems: 'center', my: 1 }}>
            <RechargeStatus status={r.status} />
            {r.status === 'failed' && permissions?.includes('retry recharges') && <Button size="small" onClick={() => act('retry')}>{translate('recharges.retry')}</Button>}
            {['pending', 'processing', 'failed'].includes(r.status) && permissions?.includes('refund recharges') && <Button size="small" color="warning" onClick={() => act('refund')}>{translate('recharges.refund')}</Button>}
          </Stack>
          {error && <Alert severity="error" sx={{ mb: 2 }}>{error}</Alert>}
          <Table size="small">
            <TableBody>
              {rows.filter(([, v]) => v !== null && v !== undefined && v !== '').map(([k, v]) => (
                <TableRow key={k}>
                  <TableCell component="th" sx={{ fontWeight: 600, width: 200 }}>{translate(k)}</TableCell>
                  <TableCell>{v}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
          <Typography variant="subtitle1" component="h3" sx={{ mt: 3, mb: 1 }}>{translate('recharges.timeline')}</Typography>
          <Box component="ol" sx={{ pl: 3, m: 0 }}>
            {data!.timeline.map((e, i) => (
              <li key={i}>
                <Typography variant="body2">{`${fmt.dateTime(e.at)} · ${translate(`recharges.events.${e.event}`, { _: e.event })}`}</Typography>
              </li>
            ))}
          </Box>
          <Typography variant="subtitle1" component="h3" sx={{ mt: 3, mb: 1 }}>{translate('recharges.transactions')}</Typography>
          <TransactionRows rows={data!.transactions} showDealer={false} />
        </Box>
      )}
    </Drawer>
  );
}
