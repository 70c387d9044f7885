import { Datagrid, DateInput, FunctionField, SelectInput, SimpleList, TextInput, useTranslate } from 'react-admin';
import { Box, Chip, Divider, Stack, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { TRANSACTION_KINDS, type WalletTransactionResponse } from '@app/contracts';
import { CsvExportButton } from '../common/CsvExportButton';
import { useIsDealer } from '../auth/identity';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { useIsPhone } from '../common/useIsPhone';
import { ResourceListPage } from '../common/ResourceListPage';
import { Ltr } from '../common/Ltr';
import { usePresetFilters } from '../common/listUrl';
import { DealerFilterInput } from '../common/userOptions';
import { SortMenuButton } from '../common/SortMenuButton';

/**
 * /wallet-transactions: the ledger, filtered by dealer, type, kind and date range, with its CSV.
 * Phones get one line per movement (kind, signed amount, balance after), filters behind a button and a Sort button (by date).
 */
export default function WalletTransactionList() {
  const translate = useTranslate();
  const { dateTime: when } = useCompanyFormat();
  const dealer = useIsDealer();
  // A wallet's ledger link (/wallet-transactions?dealer=5) presets the dealer filter; the list's filters live in the URL.
  const preset = usePresetFilters(dealer ? {} : { dealer: 'dealer_id' });
  const phone = useIsPhone();
  const filters = [
    ...(dealer ? [] : [<DealerFilterInput key="dealer_id" source="dealer_id" label="wallets.fields.dealer" alwaysOn />]),
    <SelectInput
      key="type"
      source="type"
      label="wallets.fields.type"
      choices={[
        { id: 'credit', name: 'wallets.types.credit' },
        { id: 'debit', name: 'wallets.types.debit' },
      ]}
      alwaysOn
    />,
    <SelectInput
      key="kind"
      source="kind"
      label="wallets.fields.kind"
      choices={TRANSACTION_KINDS.map((k) => ({ id: k, name: `wallets.kinds.${k}` }))}
      alwaysOn
    />,
    <DateInput key="from" source="from" label="wallets.fields.from" alwaysOn />,
    <DateInput key="to" source="to" label="wallets.fields.to" alwaysOn />,
    <TextInput key="q" source="q" label="wallets.fields.reference" />,
  ];
  if (preset) return preset;
  return (
    <ResourceListPage
      resource="wallet-transactions"
      title={translate('menu.wallet_transactions')}
      empty={dealer ? 'empty.transactions_dealer' : 'empty.transactions'}
      filters={filters}
      sort={{ field: 'id', order: 'DESC' }}
      actions={
        <>
          {/* No column headers on a phone: the Date column's sort (newest first, then turned around) is here. */}
          {phone && <SortMenuButton fields={[{ source: 'created_at', label: 'wallets.fields.date', order: 'DESC' }]} />}
          <CsvExportButton path="/wallet-transactions/export" filename="wallet-transactions" />
        </>
      }
      phone={
        <SimpleList
          primaryText={(t: WalletTransactionResponse) =>
            dealer ? translate(`wallets.kinds.${t.kind}`) : `${t.dealer.name} · ${translate(`wallets.kinds.${t.kind}`)}`
          }
          secondaryText={(t: WalletTransactionResponse) => `${when(t.created_at)}${t.reference ? ` · ${t.reference}` : ''}`}
          tertiaryText={(t: WalletTransactionResponse) => <Amount t={t} />}
          linkType={false}
        />
      }
      desktop={
        <Datagrid bulkActionButtons={false} rowClick={false}>
          <FunctionField label="wallets.fields.date" sortBy="created_at" sortByOrder="DESC" render={(t: WalletTransactionResponse) => when(t.created_at)} />
          {!dealer && <FunctionField label="wallets.fields.dealer" render={(t: WalletTransactionResponse) => t.dealer.name} />}
          <FunctionField label="wallets.fields.kind" render={(t: WalletTransactionResponse) => translate(`wallets.kinds.${t.kind}`)} />
          <FunctionField label="wallets.fields.amount" render={(t: WalletTransactionResponse) => <Amount t={t} />} />
          <FunctionField label="wallets.fields.balance_after" render={(t: WalletTransactionResponse) => <Ltr>{t.balance_after}</Ltr>} />
          <FunctionField label="wallets.fields.reference" render={(t: WalletTransactionResponse) => (t.reference ? <Ltr>{t.reference}</Ltr> : '—')} />
          <FunctionField label="wallets.fields.note" render={(t: WalletTransactionResponse) => t.note ?? '—'} />
          <FunctionField label="wallets.fields.by" render={(t: WalletTransactionResponse) => t.actor?.name ?? translate('wallets.system')} />
        </Datagrid>
      }
    />
  );
}

function Amount({ t }: { t: WalletTransactionResponse }) {
  return (
    <Typography component="span" sx={{ fontWeight: 600, color: t.type === 'credit' ? 'success.main' : 'error.main' }}>
      <Ltr>{`${t.type === 'credit' ? '+' : '−'}${t.amount}`}</Ltr>
    </Typography>
  );
}

/** The same rows as a plain table (the dealer's latest transactions on /my-wallet). */
export function TransactionRows({ rows, showDealer }: { rows: WalletTransactionResponse[]; showDealer: boolean }) {
  const translate = useTranslate();
  const { dateTime: when } = useCompanyFormat();
  const phone = useIsPhone();
  if (!rows.length) return <Typography color="text.secondary">{translate('wallets.no_transactions')}</Typography>;
  if (phone) {
    return (
      <Stack divider={<Divider flexItem />} spacing={1}>
        {rows.map((t) => (
          <Box key={t.id} sx={{ display: 'flex', justifyContent: 'space-between', gap: 1 }}>
            <Box sx={{ minWidth: 0 }}>
              <Typography variant="body2" sx={{ fontWeight: 600 }}>
                {showDealer ? `${t.dealer.name} · ` : ''}
                {translate(`wallets.kinds.${t.kind}`)}
              </Typography>
              <Typography
                variant="caption"
                color="text.secondary"
                sx={{ overflowWrap: 'anywhere' }}
              >{`${when(t.created_at)}${t.reference ? ` · ${t.reference}` : ''}`}</Typography>
            </Box>
            <Box sx={{ textAlign: 'end', flexShrink: 0 }}>
              <Amount t={t} />
              <Typography variant="caption" color="text.secondary" component="div">
                {t.balance_after}
              </Typography>
            </Box>
          </Box>
        ))}
      </Stack>
    );
  }
  return (
    <Table size="small">
      <TableHead>
        <TableRow>
          <TableCell>{translate('wallets.fields.date')}</TableCell>
          {showDealer && <TableCell>{translate('wallets.fields.dealer')}</TableCell>}
          <TableCell>{translate('wallets.fields.kind')}</TableCell>
          <TableCell>{translate('wallets.fields.amount')}</TableCell>
          <TableCell>{translate('wallets.fields.balance_after')}</TableCell>
          <TableCell>{translate('wallets.fields.reference')}</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {rows.map((t) => (
          <TableRow key={t.id}>
            <TableCell>{when(t.created_at)}</TableCell>
            {showDealer && <TableCell>{t.dealer.name}</TableCell>}
            <TableCell>
              <Chip size="small" variant="outlined" label={translate(`wallets.kinds.${t.kind}`)} />
            </TableCell>
            <TableCell>
              <Amount t={t} />
            </TableCell>
            <TableCell>
              <Ltr>{t.balance_after}</Ltr>
            </TableCell>
            <TableCell>{t.reference ? <Ltr>{t.reference}</Ltr> : '—'}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
