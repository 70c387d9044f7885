import { useState } from 'react';
import { Link } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNotify, usePermissions, useTranslate } from 'react-admin';
import { Alert, Button, CircularProgress, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle, Stack } from '@mui/material';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { fieldErrors, serverMessage } from '../providers/errors';
import { planMapping } from './routesForm';
import { routesQueryKey } from './routesQuery';
import { useAggregatorName } from './RouteParts';
import type { RouteOffer } from './CreateBundleDialog';
import type { ProviderRoutes } from './types';

/**
 * After a bundle made from an aggregator's product is created: the offer to sell it through that
 * aggregator's route of its operator, in one PUT of the operator's routes with the bundle mapped
 * (the route's mapping set, or a new route at the end). Without 'manage delivery routes', or when
 * the route is for another operator id, it says where to do it instead.
 */
export function RouteMappingOffer({
  offer,
  bundle,
  providerId,
  providerName,
  onClose,
}: {
  offer: RouteOffer;
  bundle: { id: number; name: string };
  providerId: string;
  providerName: string;
  onClose: () => void;
}) {
  const translate = useTranslate();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const dataProvider = useConsoleDataProvider();
  const aggregatorName = useAggregatorName();
  const { permissions } = usePermissions<string[]>();
  const canManage = !!permissions?.includes('manage delivery routes');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const key = routesQueryKey(providerId);
  const { data, error } = useQuery({
    queryKey: key,
    queryFn: async () => (await dataProvider.providerRoutes<ProviderRoutes>({ id: providerId })).data,
    enabled: canManage,
    retry: false,
  });
  const plan = data ? planMapping(data, offer.aggregator, offer.operator_id, bundle.id, offer.product_id) : null;
  const words = {
    bundle: bundle.name,
    product: offer.product_id,
    product_name: offer.product_name,
    route: aggregatorName(offer.aggregator),
    operator: providerName,
    operator_id: offer.operator_id,
  };
  const routesPath = `/internet-providers/${providerId}/routes`;
  const confirm = async () => {
    if (!plan || plan.kind === 'conflict' || busy) return;
    setBusy(true);
    setFailure(null);
    try {
      const res = await dataProvider.saveProviderRoutes<ProviderRoutes>({ id: providerId, routes: plan.routes as never });
      queryClient.setQueryData(key, res.data);
      notify(res.message ?? 'routing.saved', { type: 'success' });
      onClose();
    } catch (e) {
      const fields = Object.values(fieldErrors(e));
      setFailure(fields.length ? fields.join(' ') : serverMessage(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog open onClose={() => !busy && onClose()} fullWidth maxWidth="sm" aria-labelledby="route-offer-title">
      <DialogTitle id="route-offer-title">{translate('routing.offer.title')}</DialogTitle>
      <DialogContent>
        <Stack spacing={1.5}>
          {!canManage ? (
            <DialogContentText>{translate('routing.offer.manual', words)}</DialogContentText>
          ) : error ? (
            <Alert severity="error">{serverMessage(error)}</Alert>
          ) : !plan ? (
            <CircularProgress size={24} aria-label={translate('ra.page.loading')} />
          ) : plan.kind === 'conflict' ? (
            <Alert severity="warning">{translate('routing.offer.conflict', { ...words, route_operator: plan.operatorId ?? '' })}</Alert>
          ) : plan.kind === 'map' ? (
            <>
              <DialogContentText>{translate('routing.offer.map', { ...words, position: plan.position })}</DialogContentText>
              {plan.previous && <DialogContentText>{translate('routing.offer.replaces', { previous: plan.previous })}</DialogContentText>}
            </>
          ) : (
            <>
              <DialogContentText>{translate('routing.offer.add', words)}</DialogContentText>
              {plan.keepsImplicit && <DialogContentText>{translate('routing.offer.keeps_implicit', words)}</DialogContentText>}
            </>
          )}
          {failure && (
            <Alert severity="error" role="alert">
              {failure}
            </Alert>
          )}
        </Stack>
      </DialogContent>
      <DialogActions sx={{ flexWrap: 'wrap', gap: 1 }}>
        <Button onClick={onClose} disabled={busy}>
          {translate('routing.offer.later')}
        </Button>
        <Button component={Link} to={routesPath} disabled={busy}>
          {translate('routing.offer.open_routes')}
        </Button>
        {canManage && plan && plan.kind !== 'conflict' && (
          <Button variant="contained" onClick={confirm} disabled={busy}>
            {translate('routing.offer.confirm')}
          </Button>
        )}
      </DialogActions>
    </Dialog>
  );
}
