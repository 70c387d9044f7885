import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useTranslate } from 'react-admin';
import { Link as RouterLink } from 'react-router';
import { Box, Button, Card, CardContent, Link, Pagination, Stack, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { PageTitle } from '../common/PageTitle';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { LoadError } from '../common/ListParts';
import { FullPageLoader } from '../common/FullPageLoader';
import { Ltr } from '../common/Ltr';
import { useIsPhone } from '../common/useIsPhone';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { useSignedInUser, useUserPermissions } from '../auth/identity';
import { hasPermission } from '../permissions/permissions';
import { BATCHES_PATH, fetchBatches } from './batchApi';
import { BatchProgress, BatchStatusChip } from './BatchParts';
import { ModeChip } from '../api-keys/ModeChip';

/**
 * /recharge-batches: bulk sales, newest first (a dealer: its own; staff: every dealer's, with the
 * dealer's name). A dealer starts a new one here; a batch still running refreshes its counts. A
 * test key's batch (its sales on the sandbox) is marked Test.
 */
export default function RechargeBatchListPage() {
  const translate = useTranslate();
  const phone = useIsPhone();
  const fmt = useCompanyFormat();
  const user = useSignedInUser();
  const permissions = useUserPermissions();
  const canSend = user?.user_type === 'dealer' && hasPermission(permissions, 'view own wallet');
  const [page, setPage] = useState(1);
  const { data, error, isPending, refetch } = useQuery({
    queryKey: ['recharge-batches', page],
    queryFn: () => fetchBatches(page),
    refetchInterval: (q) => (q.state.data?.data.some((b) => b.status !== 'completed') ? 3_000 : false),
  });
  const title = translate('menu.recharge_batches');
  const open = (id: string) => `${BATCHES_PATH}/${id}`;
  return (
    <>
      <Breadcrumbs items={[{ label: 'menu.recharges', to: '/recharges' }, { label: 'menu.recharge_batches' }]} />
      <PageTitle
        title={title}
        actions={
          canSend && (
            <Button component={RouterLink} to={`${BATCHES_PATH}/new`} variant="contained">
              {translate('recharge_batches.new')}
            </Button>
          )
        }
      />
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2, maxWidth: 900 }}>
        {translate('recharge_batches.help')}
      </Typography>
      {isPending ? (
        <FullPageLoader />
      ) : error ? (
        <LoadError error={error} onRetry={() => refetch()} />
      ) : !data.data.length ? (
        <Typography sx={{ my: 4 }} color="text.secondary">
          {translate('recharge_batches.empty')}
        </Typography>
      ) : phone ? (
        <Stack sx={{ gap: 1 }}>
          {data.data.map((b) => (
            <Card key={b.id} variant="outlined">
              <CardContent>
                <Stack direction="row" sx={{ justifyContent: 'space-between', alignItems: 'center', mb: 1 }}>
                  <Link component={RouterLink} to={open(b.id)}>
                    <Ltr>{b.id}</Ltr>
                  </Link>
                  <Stack direction="row" sx={{ gap: 0.5, alignItems: 'center' }}>
                    <ModeChip mode={b.mode} />
                    <BatchStatusChip status={b.status} />
                  </Stack>
                </Stack>
                {b.dealer && <Typography variant="body2">{b.dealer.name}</Typography>}
                <Typography variant="body2" color="text.secondary">
                  {fmt.dateTime(b.created_at)}
                </Typography>
                <BatchProgress batch={b} />
              </CardContent>
            </Card>
          ))}
        </Stack>
      ) : (
        <Box sx={{ overflowX: 'auto' }}>
          <Table size="small">
            <TableHead>
              <TableRow>
                <TableCell>{translate('recharge_batches.fields.id')}</TableCell>
                {data.data.some((b) => b.dealer) && <TableCell>{translate('recharge_batches.fields.dealer')}</TableCell>}
                <TableCell>{translate('recharge_batches.fields.status')}</TableCell>
                <TableCell>{translate('recharge_batches.fields.progress')}</TableCell>
                <TableCell>{translate('recharge_batches.fields.client_reference')}</TableCell>
                <TableCell>{translate('recharge_batches.fields.created_at')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {data.data.map((b) => (
                <TableRow key={b.id}>
                  <TableCell>
                    <Link component={RouterLink} to={open(b.id)}>
                      <Ltr>{b.id}</Ltr>
                    </Link>
                  </TableCell>
                  {data.data.some((x) => x.dealer) && <TableCell>{b.dealer?.name ?? '—'}</TableCell>}
                  <TableCell>
                    <Stack direction="row" sx={{ gap: 0.5, alignItems: 'center', flexWrap: 'wrap' }}>
                      <BatchStatusChip status={b.status} />
                      <ModeChip mode={b.mode} />
                    </Stack>
                  </TableCell>
                  <TableCell sx={{ minWidth: 320 }}>
                    <BatchProgress batch={b} />
                  </TableCell>
                  <TableCell>{b.client_reference ? <Ltr>{b.client_reference}</Ltr> : '—'}</TableCell>
                  <TableCell>{fmt.dateTime(b.created_at)}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </Box>
      )}
      {data && (data.meta?.last_page ?? 1) > 1 && <Pagination sx={{ mt: 2 }} page={page} count={data.meta!.last_page} onChange={(_, p) => setPage(p)} />}
    </>
  );
}
