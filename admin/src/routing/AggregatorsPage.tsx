import { useState } from 'react';
import { useCanAccess, useNotify, useTranslate } from 'react-admin';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, Box, Button, Card, CardActions, CardContent, CardHeader, Chip, Grid, Stack, TextField, Typography } from '@mui/material';
import SyncIcon from '@mui/icons-material/Sync';
import { PageTitle } from '../common/PageTitle';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { FullPageLoader } from '../common/FullPageLoader';
import { ListEmpty, LoadError } from '../common/ListParts';
import { isolate, Ltr, useLtr } from '../common/Ltr';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { useUserPermissions } from '../auth/identity';
import { hasPermission } from '../permissions/permissions';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { fieldErrors, serverMessage } from '../providers/errors';
import { FLOATS_KEY, useAggregatorFloats, useDaysText } from './floats';
import type { AggregatorFloat } from './types';

/**
 * /aggregators: the money each aggregator holds for us (its float), how long it lasts at the
 * current pace, when it was last checked (or why the check failed), and for 'manage delivery
 * routes' the threshold under which the console warns and "Check now".
 */
export default function AggregatorsPage() {
  const translate = useTranslate();
  const { data, error, isPending, refetch } = useAggregatorFloats(60_000);
  const canManage = hasPermission(useUserPermissions(), 'manage delivery routes');
  const { canAccess: canSeeProviders } = useCanAccess({ resource: 'internet-providers', action: 'list' });
  return (
    <>
      <Breadcrumbs items={[{ label: 'menu.internet_providers', to: canSeeProviders ? '/internet-providers' : undefined }, { label: 'menu.aggregators' }]} />
      <PageTitle title={translate('menu.aggregators')} />
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2, maxWidth: 900 }}>
        {translate('aggregators.help')}
      </Typography>
      {error && <LoadError error={error} onRetry={() => refetch()} />}
      {isPending && <FullPageLoader />}
      {data && data.length === 0 && <ListEmpty message="aggregators.empty" />}
      {data && data.length > 0 && (
        <Grid container spacing={2}>
          {data.map((f) => (
            <Grid key={f.name} size={{ xs: 12, md: 6, lg: 4 }}>
              <FloatCard float={f} canManage={canManage} />
            </Grid>
          ))}
        </Grid>
      )}
    </>
  );
}

function FloatCard({ float: f, canManage }: { float: AggregatorFloat; canManage: boolean }) {
  const translate = useTranslate();
  const notify = useNotify();
  const fmt = useCompanyFormat();
  const ltr = useLtr();
  const days = useDaysText();
  const queryClient = useQueryClient();
  const dataProvider = useConsoleDataProvider();
  const [threshold, setThreshold] = useState(f.threshold ?? '');
  const [thresholdError, setThresholdError] = useState<string | null>(null);
  const [busy, setBusy] = useState<'save' | 'check' | null>(null);
  const money = (v: string | null) => (v === null ? '—' : `${v} ${f.currency ?? ''}`.trim());
  const done = async (message: string | undefined, fallback: string) => {
    notify(message ?? fallback, { type: 'success' });
    await queryClient.invalidateQueries({ queryKey: FLOATS_KEY });
  };
  const save = async () => {
    setBusy('save');
    setThresholdError(null);
    try {
      // An empty field: no threshold, no warning.
      const res = await dataProvider.setAggregatorThreshold({ name: f.name, threshold: threshold.trim() === '' ? null : threshold.trim() });
      await done(res.message, 'aggregators.threshold_saved');
    } catch (e) {
      setThresholdError(fieldErrors(e).threshold ?? serverMessage(e));
    } finally {
      setBusy(null);
    }
  };
  const check = async () => {
    setBusy('check');
    try {
      const res = await dataProvider.checkAggregator<{ check_error?: string | null }>({ name: f.name });
      const failed = res.data?.check_error;
      if (failed) {
        // The API answered but the aggregator did not: the balance shown is the one before.
        notify(translate('aggregators.check_failed', { error: isolate(failed) }), { type: 'warning' });
        await queryClient.invalidateQueries({ queryKey: FLOATS_KEY });
      } else await done(res.message, 'aggregators.checked');
    } catch (e) {
      notify(serverMessage(e), { type: 'error' });
    } finally {
      setBusy(null);
    }
  };
  const id = `float-${f.name}`;
  return (
    <Card
      component="section"
      aria-labelledby={id}
      sx={{ height: '100%', display: 'flex', flexDirection: 'column', borderColor: f.below_threshold ? 'warning.main' : undefined }}
      variant="outlined"
    >
      <CardHeader
        title={f.label}
        slotProps={{ title: { component: 'h2', variant: 'h6', id } }}
        action={
          <Chip
            size="small"
            variant="outlined"
            color={f.live ? 'success' : 'default'}
            label={translate(f.live ? 'aggregator_catalogue.live' : 'aggregator_catalogue.stand_in')}
          />
        }
      />
      <CardContent sx={{ pt: 0, flex: 1 }}>
        <Typography variant="body2" color="text.secondary">
          {translate('aggregators.balance')}
        </Typography>
        <Stack direction="row" sx={{ alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
          <Typography variant="h4" component="p" sx={{ fontWeight: 700 }}>
            <Ltr>{money(f.balance)}</Ltr>
          </Typography>
          {f.below_threshold && <Chip size="small" color="warning" label={translate('aggregators.low')} />}
        </Stack>
        <Typography variant="body2" sx={{ mt: 1 }}>
          {f.days_left === null
            ? translate('aggregators.days_unknown')
            : translate('aggregators.days_left', { days: ltr(days(f.days_left)), spend: ltr(money(f.daily_spend)) })}
        </Typography>
        <Typography variant="body2" color="text.secondary">
          {f.checked_at ? translate('aggregators.checked_at', { at: fmt.dateTime(f.checked_at) }) : translate('aggregators.never_checked')}
        </Typography>
        {f.check_error && (
          <Alert severity="error" sx={{ mt: 1 }}>
            {translate('aggregators.check_failed', { error: isolate(f.check_error) })}
          </Alert>
        )}
        {canManage ? (
          <Box
            component="form"
            sx={{ display: 'flex', gap: 1, alignItems: 'flex-start', mt: 2, flexWrap: 'wrap' }}
            onSubmit={(e) => {
              e.preventDefault();
              void save();
            }}
          >
            <TextField
              size="small"
              label={translate('aggregators.threshold')}
              value={threshold}
              onChange={(e) => setThreshold(e.target.value)}
              error={!!thresholdError}
              helperText={
                thresholdError ??
                (f.currency ? translate('aggregators.threshold_help', { currency: f.currency }) : translate('aggregators.threshold_help_plain'))
              }
              slotProps={{ htmlInput: { inputMode: 'decimal', dir: 'ltr' } }}
              sx={{ flex: '1 1 160px' }}
            />
            <Button type="submit" variant="outlined" disabled={busy !== null}>
              {translate('common.save')}
            </Button>
          </Box>
        ) : (
          <Typography variant="body2" sx={{ mt: 1 }}>
            {translate('aggregators.threshold_line', { threshold: f.threshold === null ? '—' : ltr(money(f.threshold)) })}
          </Typography>
        )}
      </CardContent>
      {canManage && (
        <CardActions sx={{ px: 2, pb: 2 }}>
          <Button startIcon={<SyncIcon />} onClick={check} disabled={busy !== null} aria-label={translate('aggregators.check_named', { name: f.label })}>
            {translate(busy === 'check' ? 'aggregators.checking' : 'aggregators.check')}
          </Button>
        </CardActions>
      )}
    </Card>
  );
}
