import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Confirm, useNotify, useTranslate } from 'react-admin';
import { Link as RouterLink, useParams } from 'react-router';
import { Box, Button, Card, CardContent, Divider, Link, Pagination, Stack, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import type { RechargeBatchLineResponse } from '@app/contracts';
import { useIsPhone } from '../common/useIsPhone';
import { PageTitle } from '../common/PageTitle';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { LoadError } from '../common/ListParts';
import { FullPageLoader } from '../common/FullPageLoader';
import { Ltr } from '../common/Ltr';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { RechargeStatus } from '../recharges/RechargeStatus';
import { useSignedInUser, useUserPermissions } from '../auth/identity';
import { hasPermission } from '../permissions/permissions';
import { serverMessage } from '../providers/errors';
import { BATCHES_PATH, cancelBatch, fetchBatch } from './batchApi';
import { BatchProgress, BatchStatusChip } from './BatchParts';
import { ModeChip } from '../api-keys/ModeChip';

/** A line's outcome: its sale (a link, with the sale's status), or why it was refused. */
function LineOutcome({ line }: { line: RechargeBatchLineResponse }) {
  if (line.recharge)
    return (
      <Stack direction="row" sx={{ gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
        <Link component={RouterLink} to={`/recharges/${line.recharge.id}`}>
          <Ltr>{line.recharge.reference}</Ltr>
        </Link>
        <RechargeStatus status={line.recharge.status} />
      </Stack>
    );
  if (line.error)
    return (
      <Typography variant="body2" color="error">
        {line.error.message}
      </Typography>
    );
  return <>—</>;
}

/** How often a batch still running, or with sales still on their way, is read again. */
export const FOLLOW_MS = 2_000;

/**
 * /recharge-batches/{id}: a batch followed while it runs (its counts and progress read again every
 * two seconds until every line is handled and every sale settled), and its lines page by page:
 * each accepted line with its sale (a link to it) and the sale's status, each refused one with why.
 */
/**
 * The dealer's "Cancel" on its own batch still queued or running, after a confirmation: the lines
 * not yet sold are refused, those sold stay sold. Dealers with "view own wallet", as sending.
 */
function CancelBatchButton({ id, onDone }: { id: string; onDone: () => void }) {
  const translate = useTranslate();
  const notify = useNotify();
  const user = useSignedInUser();
  const permissions = useUserPermissions();
  const [open, setOpen] = useState(false);
  const [pending, setPending] = useState(false);
  if (user?.user_type !== 'dealer' || !hasPermission(permissions, 'view own wallet')) return null;
  const cancel = async () => {
    setPending(true);
    try {
      const res = await cancelBatch(id);
      notify(res.message ?? 'recharge_batches.cancelled', { type: 'success' });
      setOpen(false);
      onDone();
    } catch (err) {
      notify(serverMessage(err), { type: 'error' });
    } finally {
      setPending(false);
    }
  };
  return (
    <>
      <Button size="small" color="warning" variant="outlined" onClick={() => setOpen(true)}>
        {translate('recharge_batches.cancel')}
      </Button>
      <Confirm
        isOpen={open}
        loading={pending}
        title={translate('recharge_batches.cancel_title', { id })}
        content={translate('recharge_batches.cancel_text')}
        confirm={translate('recharge_batches.cancel')}
        cancel={translate('recharge_batches.keep')}
        confirmColor="warning"
        onConfirm={cancel}
        onClose={() => setOpen(false)}
      />
    </>
  );
}

export default function RechargeBatchPage() {
  const translate = useTranslate();
  const fmt = useCompanyFormat();
  const isPhone = useIsPhone();
  const id = useParams().id ?? '';
  const [page, setPage] = useState(1);
  const queryClient = useQueryClient();
  const { data, error, isPending, refetch } = useQuery({
    queryKey: ['recharge-batch', id, page],
    queryFn: () => fetchBatch(id, page),
    refetchInterval: (q) => {
      const b = q.state.data;
      return b && (b.status !== 'completed' || b.sales.in_progress > 0) ? FOLLOW_MS : false;
    },
  });
  return (
    <>
      <Breadcrumbs items={[{ label: 'menu.recharges', to: '/recharges' }, { label: 'menu.recharge_batches', to: BATCHES_PATH }, { label: id }]} />
      <PageTitle
        title={translate('recharge_batches.batch_title', { id })}
        actions={
          data && (
            <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
              {data.status !== 'completed' && (
                <CancelBatchButton id={id} onDone={() => void queryClient.invalidateQueries({ queryKey: ['recharge-batch', id] })} />
              )}
              <ModeChip mode={data.mode} />
              <BatchStatusChip status={data.status} />
            </Stack>
          )
        }
      />
      {isPending ? (
        <FullPageLoader />
      ) : error ? (
        <LoadError error={error} onRetry={() => refetch()} />
      ) : (
        <>
          <Card variant="outlined" sx={{ mb: 2 }}>
            <CardContent>
              <BatchProgress batch={data} />
              <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 2, mt: 1 }}>
                {data.dealer && <Typography variant="body2">{data.dealer.name}</Typography>}
                {data.client_reference && (
                  <Typography variant="body2">
                    {translate('recharge_batches.fields.client_reference')}: <Ltr>{data.client_reference}</Ltr>
                  </Typography>
                )}
                <Typography variant="body2" color="text.secondary">
                  {translate('recharge_batches.fields.created_at')}: {fmt.dateTime(data.created_at)}
                </Typography>
                {data.completed_at && (
                  <Typography variant="body2" color="text.secondary">
                    {translate('recharge_batches.fields.completed_at')}: {fmt.dateTime(data.completed_at)}
                  </Typography>
                )}
              </Stack>
            </CardContent>
          </Card>
          {isPhone ? (
            // A phone: each line as a short block (number, then its sale or why), nothing to scroll sideways.
            <Stack
              component="ol"
              aria-label={translate('recharge_batches.lines')}
              sx={{ listStyle: 'none', p: 0, m: 0 }}
              divider={<Divider component="li" aria-hidden />}
            >
              {data.lines.map((l) => (
                <Box component="li" key={l.line_no} sx={{ py: 1.5 }}>
                  <Typography variant="body2" color="text.secondary">
                    {translate('recharge_batches.fields.line_no')} {l.line_no} · {translate(`recharge_batches.line_status.${l.status}`)}
                  </Typography>
                  <Typography variant="body1">
                    <Ltr>{l.phone}</Ltr>
                  </Typography>
                  <LineOutcome line={l} />
                </Box>
              ))}
            </Stack>
          ) : (
            <Box sx={{ overflowX: 'auto' }}>
              <Table size="small" aria-label={translate('recharge_batches.lines')}>
                <TableHead>
                  <TableRow>
                    <TableCell>{translate('recharge_batches.fields.line_no')}</TableCell>
                    <TableCell>{translate('recharge_batches.fields.phone')}</TableCell>
                    <TableCell>{translate('recharge_batches.fields.line_status')}</TableCell>
                    <TableCell>{translate('recharge_batches.fields.sale')}</TableCell>
                  </TableRow>
                </TableHead>
                <TableBody>
                  {data.lines.map((l) => (
                    <TableRow key={l.line_no}>
                      <TableCell>{l.line_no}</TableCell>
                      <TableCell>
                        <Ltr>{l.phone}</Ltr>
                      </TableCell>
                      <TableCell>{translate(`recharge_batches.line_status.${l.status}`)}</TableCell>
                      <TableCell>
                        <LineOutcome line={l} />
                      </TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </Box>
          )}
          {data.lines_meta.last_page > 1 && <Pagination sx={{ mt: 2 }} page={page} count={data.lines_meta.last_page} onChange={(_, p) => setPage(p)} />}
        </>
      )}
    </>
  );
}
