import { useMemo, useState, type ChangeEvent } from 'react';
import { useNavigate } from 'react-router';
import { useNotify, useTranslate } from 'react-admin';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  FormControlLabel,
  Pagination,
  Stack,
  Switch,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import UploadIcon from '@mui/icons-material/UploadFileOutlined';
import type { BatchPreview } from '@app/contracts';
import { PageTitle } from '../common/PageTitle';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { Ltr } from '../common/Ltr';
import { serverMessage } from '../providers/errors';
import { BATCHES_PATH, CSV_TEMPLATE, parseBatchCsv, previewBatch, sendBatch, type BatchLine } from './batchApi';

const PER_PAGE = 50;

/**
 * /recharge-batches/new: the dealer uploads a CSV (read here, in the browser), sees every line's
 * problem and the total against its balance from the preview before anything is paid, then
 * confirms; the batch's page follows it. The Idempotency-Key is made once per preview, so a
 * confirmation sent twice (a double click, a lost answer) makes one batch.
 */
export default function NewRechargeBatchPage() {
  const translate = useTranslate();
  const notify = useNotify();
  const navigate = useNavigate();
  const [fileName, setFileName] = useState('');
  const [lines, setLines] = useState<BatchLine[] | null>(null);
  const [csvError, setCsvError] = useState<string | null>(null);
  const [preview, setPreview] = useState<BatchPreview | null>(null);
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [onlyProblems, setOnlyProblems] = useState(true);
  const [page, setPage] = useState(1);

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    setFileName(file.name);
    setPreview(null);
    setLines(null);
    setCsvError(null);
    const parsed = parseBatchCsv(await file.text());
    if (!parsed.ok) {
      setCsvError(translate(parsed.error, parsed.vars));
      return;
    }
    setLines(parsed.lines);
    setBusy(true);
    try {
      setPreview(await previewBatch({ lines: parsed.lines }));
      setKey(crypto.randomUUID());
      setPage(1);
    } catch (err) {
      setCsvError(serverMessage(err));
    } finally {
      setBusy(false);
    }
  };

  const confirm = async () => {
    if (!lines || !key) return;
    setBusy(true);
    try {
      const batch = await sendBatch({ lines }, key);
      notify('recharge_batches.sent', { type: 'success' });
      navigate(`${BATCHES_PATH}/${batch.id}`);
    } catch (err) {
      notify(serverMessage(err), { type: 'error' });
      setBusy(false);
    }
  };

  const shown = useMemo(() => (preview ? preview.lines.filter((l) => !onlyProblems || l.problems.length) : []), [preview, onlyProblems]);
  const pages = Math.max(1, Math.ceil(shown.length / PER_PAGE));
  const totals = preview?.totals;
  const template = `data:text/csv;charset=utf-8,${encodeURIComponent(CSV_TEMPLATE)}`;

  return (
    <>
      <Breadcrumbs
        items={[{ label: 'menu.recharges', to: '/recharges' }, { label: 'menu.recharge_batches', to: BATCHES_PATH }, { label: 'recharge_batches.new' }]}
      />
      <PageTitle title={translate('recharge_batches.new')} />
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2, maxWidth: 900 }}>
        {translate('recharge_batches.csv_help')}
      </Typography>
      <Stack direction={{ xs: 'column', sm: 'row' }} sx={{ gap: 1, mb: 2, alignItems: { sm: 'center' } }}>
        <Button component="label" variant="contained" startIcon={<UploadIcon />} disabled={busy}>
          {translate('recharge_batches.choose_file')}
          <input hidden type="file" accept=".csv,text/csv" onChange={onFile} data-testid="batch-file" />
        </Button>
        <Button component="a" href={template} download="bulk-sale-template.csv" variant="outlined">
          {translate('recharge_batches.template')}
        </Button>
        {fileName && (
          <Typography variant="body2">
            <Ltr>{fileName}</Ltr>
          </Typography>
        )}
      </Stack>
      {csvError && (
        <Alert severity="error" role="alert" sx={{ mb: 2 }}>
          {csvError}
        </Alert>
      )}
      {preview && totals && (
        <>
          <Card variant="outlined" sx={{ mb: 2 }}>
            <CardContent>
              <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
                {translate('recharge_batches.preview_title')}
              </Typography>
              <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 2 }}>
                <Typography variant="body2">
                  {translate('recharge_batches.counts.total')}: <strong>{totals.lines}</strong>
                </Typography>
                <Typography variant="body2">
                  {translate('recharge_batches.preview_ok')}: <strong>{totals.ok}</strong>
                </Typography>
                <Typography variant="body2">
                  {translate('recharge_batches.preview_refused')}: <strong>{totals.refused}</strong>
                </Typography>
                <Typography variant="body2">
                  {translate('recharge_batches.preview_warnings')}: <strong>{totals.warnings}</strong>
                </Typography>
              </Stack>
              <Typography variant="body1" sx={{ mt: 1 }}>
                {translate('recharge_batches.total_against_balance', {
                  total: `${totals.total_cost} ${totals.currency}`,
                  balance: `${totals.balance} ${totals.currency}`,
                })}
              </Typography>
              {totals.beyond_balance > 0 && (
                <Alert severity="warning" sx={{ mt: 1 }}>
                  {translate('recharge_batches.beyond_balance', { n: totals.beyond_balance })}
                </Alert>
              )}
              <Stack direction={{ xs: 'column', sm: 'row' }} sx={{ gap: 1, mt: 2 }}>
                <Button variant="contained" onClick={confirm} disabled={busy || totals.ok === 0}>
                  {translate('recharge_batches.confirm', { n: totals.ok })}
                </Button>
              </Stack>
              {totals.refused > 0 && (
                <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
                  {translate('recharge_batches.refused_note')}
                </Typography>
              )}
            </CardContent>
          </Card>
          <FormControlLabel
            control={
              <Switch
                checked={onlyProblems}
                onChange={(e) => {
                  setOnlyProblems(e.target.checked);
                  setPage(1);
                }}
              />
            }
            label={translate('recharge_batches.only_problems')}
          />
          <Box sx={{ overflowX: 'auto' }}>
            <Table size="small" aria-label={translate('recharge_batches.preview_title')}>
              <TableHead>
                <TableRow>
                  <TableCell>{translate('recharge_batches.fields.line_no')}</TableCell>
                  <TableCell>{translate('recharge_batches.fields.phone')}</TableCell>
                  <TableCell>{translate('recharge_batches.fields.bundle')}</TableCell>
                  <TableCell>{translate('recharge_batches.fields.problems')}</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {shown.slice((page - 1) * PER_PAGE, page * PER_PAGE).map((l) => (
                  <TableRow key={l.line_no}>
                    <TableCell>{l.line_no}</TableCell>
                    <TableCell>
                      <Ltr>{l.phone ?? lines?.[l.line_no - 1]?.phone ?? ''}</Ltr>
                    </TableCell>
                    <TableCell>{l.bundle_name ?? <Ltr>{String(lines?.[l.line_no - 1]?.bundle_id ?? '')}</Ltr>}</TableCell>
                    <TableCell>
                      {l.problems.length ? (
                        l.problems.map((p) => (
                          <Typography key={p.code} variant="body2" color={p.level === 'error' ? 'error' : 'warning.main'}>
                            {p.message}
                          </Typography>
                        ))
                      ) : (
                        <Typography variant="body2" color="success.main">
                          {translate('recharge_batches.line_ok')}
                        </Typography>
                      )}
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </Box>
          {pages > 1 && <Pagination sx={{ mt: 2 }} page={page} count={pages} onChange={(_, p) => setPage(p)} />}
        </>
      )}
    </>
  );
}
