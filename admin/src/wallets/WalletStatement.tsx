import { useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { useTranslate } from 'react-admin';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  CardHeader,
  Divider,
  Grid,
  Link,
  Pagination,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import type { Identifier } from 'react-admin';
import { FileDownloadButton } from '../common/CsvExportButton';
import { Ltr, useLtr } from '../common/Ltr';
import { useIsPhone } from '../common/useIsPhone';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { fieldErrors, serverMessage } from '../providers/errors';
import { FigureCard } from '../common/FigureCard';

/** GET /wallets/{id}/statement (json), declared here while the API's contracts are written. */
export interface StatementLine {
  id: number;
  at: string;
  type: 'credit' | 'debit';
  kind: string;
  amount: string;
  balance_after: string;
  reference: string | null;
  recharge: { id: number; reference: string | null } | null;
  note: string | null;
}
export interface Statement {
  wallet: { id: number; dealer: { id: number; name: string; dealer_code: string | null } };
  currency: string;
  from: string;
  to: string;
  opening_balance: string;
  closing_balance: string;
  totals: { credits: string; debits: string; by_kind: { kind: string; type: 'credit' | 'debit'; count: number; amount: string }[] };
  lines: StatementLine[];
}

const PER_PAGE = 25;

/**
 * A wallet's statement over a period (this month until another is picked): the opening balance,
 * every movement (a sale links to it), the totals per kind and the closing balance, with its CSV
 * and PDF. Staff read it on /wallets/{id}/statement, a dealer on My wallet (`autoLoad` false: the
 * statement is read when asked for). A period the API refuses (422) says why under the dates.
 */
export function WalletStatement({ walletId, autoLoad = true }: { walletId: Identifier; autoLoad?: boolean }) {
  const translate = useTranslate();
  const fmt = useCompanyFormat();
  const phone = useIsPhone();
  const ltr = useLtr();
  const dataProvider = useConsoleDataProvider();
  const today = fmt.companyDay(0);
  const [draft, setDraft] = useState<{ from: string; to: string } | null>(null);
  const [period, setPeriod] = useState<{ from: string; to: string } | null>(null);
  const [shown, setShown] = useState(autoLoad);
  const [page, setPage] = useState(1);
  // This month of the company's calendar until the user picks dates (read once the zone is known).
  const initial = { from: `${today.slice(0, 8)}01`, to: today };
  const fields = draft ?? period ?? initial;
  // The period on screen (what the statement and its files show), never the dates still being typed.
  const applied = period ?? initial;
  const { data, error, isFetching } = useQuery({
    queryKey: ['wallet-statement', String(walletId), applied.from, applied.to, page],
    queryFn: () => dataProvider.walletStatement<Statement>({ id: walletId, query: { from: applied.from, to: applied.to, page, per_page: PER_PAGE } }),
    enabled: shown && fmt.ready,
    retry: false,
  });
  const view = () => {
    setPeriod(fields);
    setDraft(null);
    setPage(1);
    setShown(true);
  };
  const errors = error ? fieldErrors(error) : {};
  const dateError = errors.from || errors.to || errors.period || (error && (error as { status?: number }).status === 422 ? serverMessage(error) : '');
  const statement = data?.data;
  const money = (v: string) => <Ltr>{`${v} ${statement?.currency ?? fmt.currency}`}</Ltr>;
  const base = `/wallets/${encodeURIComponent(String(walletId))}/statement`;
  const file = (format: 'csv' | 'pdf') => `statement-${walletId}-${applied.from}-${applied.to}.${format}`;
  return (
    <Card component="section" aria-labelledby="statement-title">
      <CardHeader
        title={translate('wallets.statement.title')}
        subheader={translate('wallets.statement.help')}
        slotProps={{ title: { component: 'h2', variant: 'h6', id: 'statement-title' } }}
      />
      <CardContent sx={{ pt: 0 }}>
        <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 1.5, alignItems: 'flex-start' }}>
          <TextField
            type="date"
            size="small"
            label={translate('wallets.fields.from')}
            value={fields.from}
            onChange={(e) => setDraft({ ...fields, from: e.target.value })}
            error={!!dateError}
            slotProps={{ inputLabel: { shrink: true } }}
          />
          <TextField
            type="date"
            size="small"
            label={translate('wallets.fields.to')}
            value={fields.to}
            onChange={(e) => setDraft({ ...fields, to: e.target.value })}
            error={!!dateError}
            slotProps={{ inputLabel: { shrink: true } }}
          />
          <Button variant="contained" onClick={view} disabled={isFetching}>
            {translate('wallets.statement.view')}
          </Button>
          <FileDownloadButton path={base} query={{ from: applied.from, to: applied.to, format: 'csv' }} format="csv" fileName={file('csv')} />
          <FileDownloadButton path={base} query={{ from: applied.from, to: applied.to, format: 'pdf' }} format="pdf" fileName={file('pdf')} />
        </Stack>
        {dateError && (
          <Typography role="alert" variant="body2" color="error" sx={{ mt: 0.5 }}>
            {dateError}
          </Typography>
        )}
        {error && !dateError && (
          <Alert severity="error" sx={{ mt: 2 }}>
            {serverMessage(error)}
          </Alert>
        )}
        {statement && (
          <Box sx={{ mt: 2 }}>
            <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
              {translate('wallets.statement.period', {
                dealer: `${statement.wallet.dealer.name}${statement.wallet.dealer.dealer_code ? ` (${ltr(statement.wallet.dealer.dealer_code)})` : ''}`,
                from: ltr(statement.from),
                to: ltr(statement.to),
              })}
            </Typography>
            <Grid container spacing={2} sx={{ mb: 2 }}>
              {(
                [
                  ['opening', statement.opening_balance],
                  ['credits', statement.totals.credits],
                  ['debits', statement.totals.debits],
                  ['closing', statement.closing_balance],
                ] as const
              ).map(([key, value]) => (
                <Grid key={key} size={{ xs: 6, md: 3 }}>
                  <FigureCard title={translate(`wallets.statement.${key}`)} value={money(value)} />
                </Grid>
              ))}
            </Grid>
            <Typography variant="subtitle1" component="h3" sx={{ mb: 1 }}>
              {translate('wallets.statement.lines')}
            </Typography>
            <StatementLines lines={statement.lines} phone={phone} />
            {data.total > PER_PAGE && (
              <Pagination
                sx={{ mt: 1 }}
                count={Math.ceil(data.total / PER_PAGE)}
                page={page}
                onChange={(_, p) => setPage(p)}
                size="small"
                aria-label={translate('wallets.statement.pages')}
              />
            )}
            <Typography variant="subtitle1" component="h3" sx={{ mt: 2, mb: 1 }}>
              {translate('wallets.statement.by_kind')}
            </Typography>
            <Table size="small" aria-label={translate('wallets.statement.by_kind')}>
              <TableHead>
                <TableRow>
                  <TableCell>{translate('wallets.fields.kind')}</TableCell>
                  <TableCell align="right">{translate('wallets.statement.count')}</TableCell>
                  <TableCell align="right">{translate('wallets.fields.amount')}</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {statement.totals.by_kind.map((k) => (
                  <TableRow key={`${k.kind}-${k.type}`}>
                    <TableCell>{translate(`wallets.kinds.${k.kind}`, { _: k.kind })}</TableCell>
                    <TableCell align="right">{k.count}</TableCell>
                    <TableCell align="right">
                      <Signed type={k.type} amount={k.amount} />
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </Box>
        )}
      </CardContent>
    </Card>
  );
}

function Signed({ type, amount }: { type: 'credit' | 'debit'; amount: string }) {
  return (
    <Typography component="span" variant="body2" sx={{ fontWeight: 600, color: type === 'credit' ? 'success.main' : 'error.main', whiteSpace: 'nowrap' }}>
      <Ltr>{`${type === 'credit' ? '+' : '−'}${amount}`}</Ltr>
    </Typography>
  );
}

/** The period's movements: a table, or one line each on a phone. A sale's reference opens the sale. */
function StatementLines({ lines, phone }: { lines: StatementLine[]; phone: boolean }) {
  const translate = useTranslate();
  const fmt = useCompanyFormat();
  if (!lines.length) return <Typography color="text.secondary">{translate('wallets.statement.no_lines')}</Typography>;
  const reference = (l: StatementLine) =>
    l.recharge ? (
      <Link component={RouterLink} to={`/recharges/${l.recharge.id}`}>
        <Ltr>{l.recharge.reference ?? l.reference ?? `#${l.recharge.id}`}</Ltr>
      </Link>
    ) : l.reference ? (
      <Ltr>{l.reference}</Ltr>
    ) : null;
  if (phone) {
    return (
      <Stack divider={<Divider flexItem />} spacing={1}>
        {lines.map((l) => (
          <Box key={l.id} sx={{ display: 'flex', justifyContent: 'space-between', gap: 1 }}>
            <Box sx={{ minWidth: 0 }}>
              <Typography variant="body2" sx={{ fontWeight: 600 }}>
                {translate(`wallets.kinds.${l.kind}`, { _: l.kind })}
              </Typography>
              <Typography variant="caption" color="text.secondary" component="div" sx={{ overflowWrap: 'anywhere' }}>
                {fmt.dateTime(l.at)} {reference(l)}
              </Typography>
            </Box>
            <Box sx={{ textAlign: 'end', flexShrink: 0 }}>
              <Signed type={l.type} amount={l.amount} />
              <Typography variant="caption" color="text.secondary" component="div">
                <Ltr>{l.balance_after}</Ltr>
              </Typography>
            </Box>
          </Box>
        ))}
      </Stack>
    );
  }
  return (
    <Box sx={{ overflowX: 'auto' }}>
      <Table size="small" aria-label={translate('wallets.statement.lines')}>
        <TableHead>
          <TableRow>
            <TableCell>{translate('wallets.fields.date')}</TableCell>
            <TableCell>{translate('wallets.fields.kind')}</TableCell>
            <TableCell>{translate('wallets.fields.reference')}</TableCell>
            <TableCell align="right">{translate('wallets.fields.amount')}</TableCell>
            <TableCell align="right">{translate('wallets.fields.balance_after')}</TableCell>
            <TableCell>{translate('wallets.fields.note')}</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {lines.map((l) => (
            <TableRow key={l.id}>
              <TableCell sx={{ whiteSpace: 'nowrap' }}>{fmt.dateTime(l.at)}</TableCell>
              <TableCell>{translate(`wallets.kinds.${l.kind}`, { _: l.kind })}</TableCell>
              <TableCell>{reference(l) ?? '—'}</TableCell>
              <TableCell align="right">
                <Signed type={l.type} amount={l.amount} />
              </TableCell>
              <TableCell align="right">
                <Ltr>{l.balance_after}</Ltr>
              </TableCell>
              <TableCell>{l.note ?? '—'}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Box>
  );
}
