import { useEffect, useState } from 'react';
import { useParams } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCanAccess, useGetOne, useNotify, usePermissions, useTranslate } from 'react-admin';
import {
  Alert,
  Avatar,
  Box,
  Button,
  Chip,
  CircularProgress,
  IconButton,
  Menu,
  MenuItem,
  Paper,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import UpIcon from '@mui/icons-material/ArrowUpward';
import DownIcon from '@mui/icons-material/ArrowDownward';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import { AGGREGATORS, MAX_ROUTES, type ProviderResponse } from '@app/contracts';
import { PageTitle } from '../common/PageTitle';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { LoadError } from '../common/ListParts';
import { isolate, Ltr } from '../common/Ltr';
import { useIsPhone } from '../common/useIsPhone';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { useUnsavedChangesGuard } from '../common/useUnsavedChangesGuard';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { fieldErrors, serverMessage } from '../providers/errors';
import { editedRoutes, moveRoute, placeErrors, routesBody, sameRoutes, type EditedRoute, type PlacedErrors } from './routesForm';
import { HealthChip, ProductField, useAggregatorName, useLastFailureText } from './RouteParts';
import { routesQueryKey } from './routesQuery';
import { moneyText, type Aggregator, type ProviderRoutes, type RoutedBundle } from './types';

/**
 * /internet-providers/{id}/routes: an operator's delivery routes in order (move up and down, add one
 * per aggregator, remove, the operator's id at each), each with its health, and a table of the
 * operator's bundles × routes whose cells are the product each bundle is sold as on each route,
 * with whether each bundle can be delivered now and, when not, the server's reason. Save sends the
 * whole list in one PUT; the API's field errors land on the route, field or cell they name.
 * Editing needs 'manage delivery routes'; reading 'view delivery routes' (the route's guard).
 */
export default function DeliveryRoutesPage() {
  const translate = useTranslate();
  const providerId = useParams().id!;
  const dataProvider = useConsoleDataProvider();
  const { permissions } = usePermissions<string[]>();
  const canManage = !!permissions?.includes('manage delivery routes');
  const { canAccess: canSeeProviders } = useCanAccess({ resource: 'internet-providers', action: 'list' });
  const { data: provider } = useGetOne<ProviderResponse>('internet-providers', { id: providerId as never }, { enabled: !!canSeeProviders, retry: false });
  const key = routesQueryKey(providerId);
  const { data, error, refetch, isPending } = useQuery({
    queryKey: key,
    queryFn: async () => (await dataProvider.providerRoutes<ProviderRoutes>({ id: providerId })).data,
    retry: false,
  });
  const name = provider?.name ?? `#${providerId}`;
  const title = translate('routing.title_of', { name });
  return (
    <>
      <Breadcrumbs
        items={[
          { label: 'menu.internet_providers', to: canSeeProviders ? '/internet-providers' : undefined },
          { label: name, to: canSeeProviders ? `/internet-providers/${providerId}/categories` : undefined },
          { label: 'routing.title' },
        ]}
      />
      {error ? (
        <>
          <PageTitle title={title} />
          <LoadError error={error} onRetry={() => refetch()} />
        </>
      ) : isPending || !data ? (
        <>
          <PageTitle title={title} />
          <Box sx={{ display: 'flex', justifyContent: 'center', p: 4 }}>
            <CircularProgress aria-label={translate('ra.page.loading')} />
          </Box>
        </>
      ) : (
        <RoutesEditor key={providerId} providerId={providerId} name={name} title={title} saved={data} canManage={canManage} queryKey={key} />
      )}
    </>
  );
}

function RoutesEditor({
  providerId,
  name,
  title,
  saved: loaded,
  canManage,
  queryKey,
}: {
  providerId: string;
  name: string;
  title: string;
  saved: ProviderRoutes;
  canManage: boolean;
  queryKey: string[];
}) {
  const translate = useTranslate();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const dataProvider = useConsoleDataProvider();
  const aggregatorName = useAggregatorName();
  const [saved, setSaved] = useState(loaded);
  const [routes, setRoutes] = useState<EditedRoute[]>(() => editedRoutes(loaded));
  const [errors, setErrors] = useState<PlacedErrors | null>(null);
  const [saving, setSaving] = useState(false);
  const dirty = !sameRoutes(routes, editedRoutes(saved));
  useUnsavedChangesGuard(dirty);

  // A new reading from the server (another tab saved, a refresh) is taken as it is unless there are edits.
  useEffect(() => {
    if (loaded === saved || dirty) return;
    setSaved(loaded);
    setRoutes(editedRoutes(loaded));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [loaded]);

  const change = (next: EditedRoute[], keepErrors = false) => {
    setRoutes(next);
    // Errors name routes by their place in the list sent: a new order makes them wrong.
    if (!keepErrors) setErrors(null);
  };
  const setRoute = (index: number, patch: Partial<EditedRoute>) =>
    change(
      routes.map((r, i) => (i === index ? { ...r, ...patch } : r)),
      true,
    );
  const save = async () => {
    if (saving) return;
    setSaving(true);
    setErrors(null);
    try {
      const res = await dataProvider.saveProviderRoutes<ProviderRoutes>({ id: providerId, routes: routesBody(routes) as never });
      queryClient.setQueryData(queryKey, res.data);
      setSaved(res.data);
      setRoutes(editedRoutes(res.data));
      notify(res.message ?? 'routing.saved', { type: 'success' });
    } catch (e) {
      const fields = fieldErrors(e);
      setErrors(Object.keys(fields).length ? placeErrors(fields, routes.length) : { general: [serverMessage(e)], routes: {} });
    } finally {
      setSaving(false);
    }
  };
  const discard = () => change(editedRoutes(saved));
  const unused = AGGREGATORS.filter((a) => !routes.some((r) => r.aggregator === a));
  const implicitAdapter = !saved.configured ? saved.routes[0]?.aggregator : undefined;

  return (
    <>
      <PageTitle
        title={title}
        actions={
          canManage && (
            <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
              <Button onClick={discard} disabled={!dirty || saving}>
                {translate('routing.discard')}
              </Button>
              <Button variant="contained" onClick={save} disabled={!dirty || saving}>
                {translate(saving ? 'common.saving' : 'common.save')}
              </Button>
            </Stack>
          )
        }
      />
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2, maxWidth: 900 }}>
        {translate('routing.help')}
      </Typography>
      {!saved.configured && (
        <Alert severity="info" sx={{ mb: 2 }}>
          {translate('routing.implicit', { name, adapter: aggregatorName(implicitAdapter ?? 'sandbox') })}
        </Alert>
      )}
      {dirty && (
        <Alert severity="warning" sx={{ mb: 2 }} role="status">
          {translate('routing.unsaved')}
        </Alert>
      )}
      {!!errors?.general.length && (
        <Alert severity="error" sx={{ mb: 2 }} role="alert">
          {errors.general.join(' ')}
        </Alert>
      )}

      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', gap: 1, mb: 1, flexWrap: 'wrap' }}>
        <Typography variant="h6" component="h2">
          {translate('routing.routes')}
        </Typography>
        {canManage && (
          <AddRouteButton
            choices={unused}
            disabled={routes.length >= MAX_ROUTES}
            onAdd={(a) => change([...routes, { aggregator: a, operator_id: '', products: {}, health: null }])}
          />
        )}
      </Stack>
      <Stack component="ol" aria-label={translate('routing.routes')} sx={{ gap: 1.5, listStyle: 'none', p: 0, m: 0, mb: 3 }}>
        {routes.map((route, i) => (
          <RouteCard
            key={route.aggregator}
            route={route}
            index={i}
            count={routes.length}
            implicit={!saved.configured && route.health !== null && route.aggregator === implicitAdapter}
            errors={errors?.routes[i]}
            canManage={canManage}
            onOperatorId={(v) => setRoute(i, { operator_id: v })}
            onMove={(by) => change(moveRoute(routes, i, by))}
            onRemove={() => change(routes.filter((_, j) => j !== i))}
          />
        ))}
      </Stack>
      {routes.length === 0 && (
        <Alert severity="info" sx={{ mb: 3 }}>
          {translate('routing.none_left', { name })}
        </Alert>
      )}

      <Typography variant="h6" component="h2" sx={{ mb: 0.5 }}>
        {translate('routing.bundles')}
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5, maxWidth: 900 }}>
        {translate('routing.bundles_help')}
        {dirty && ` ${translate('routing.as_saved')}`}
      </Typography>
      <BundleMatrix
        bundles={saved.bundles}
        routes={routes}
        errors={errors}
        canManage={canManage}
        onProduct={(i, bundleId, value) => setRoute(i, { products: { ...routes[i].products, [bundleId]: value } })}
      />
    </>
  );
}

function AddRouteButton({ choices, disabled, onAdd }: { choices: readonly Aggregator[]; disabled: boolean; onAdd: (a: Aggregator) => void }) {
  const translate = useTranslate();
  const aggregatorName = useAggregatorName();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  return (
    <>
      <Button
        startIcon={<AddIcon />}
        variant="outlined"
        disabled={disabled || choices.length === 0}
        onClick={(e) => setAnchor(e.currentTarget)}
        aria-haspopup="menu"
        aria-expanded={!!anchor}
      >
        {translate('routing.add')}
      </Button>
      <Menu anchorEl={anchor} open={!!anchor} onClose={() => setAnchor(null)}>
        {choices.map((a) => (
          <MenuItem
            key={a}
            onClick={() => {
              setAnchor(null);
              onAdd(a);
            }}
          >
            {aggregatorName(a)}
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}

function RouteCard({
  route,
  index,
  count,
  implicit,
  errors,
  canManage,
  onOperatorId,
  onMove,
  onRemove,
}: {
  route: EditedRoute;
  index: number;
  count: number;
  implicit: boolean;
  errors?: PlacedErrors['routes'][number];
  canManage: boolean;
  onOperatorId: (v: string) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
}) {
  const translate = useTranslate();
  const aggregatorName = useAggregatorName();
  const lastFailure = useLastFailureText()(route.health);
  const routeName = aggregatorName(route.aggregator);
  return (
    <Paper component="li" variant="outlined" sx={{ p: 1.5, borderColor: errors?.aggregator || errors?.products ? 'error.main' : undefined }}>
      <Stack direction="row" sx={{ alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
        <Avatar sx={{ width: 28, height: 28, fontSize: 14, bgcolor: 'primary.main' }} aria-hidden>
          {index + 1}
        </Avatar>
        <Typography sx={{ fontWeight: 600 }}>{routeName}</Typography>
        {implicit && <Chip size="small" variant="outlined" label={translate('routing.implicit_chip')} />}
        <HealthChip health={route.health} />
        <Box sx={{ flexGrow: 1 }} />
        {canManage && (
          <Stack direction="row">
            <IconButton size="small" aria-label={translate('routing.move_up', { name: routeName })} disabled={index === 0} onClick={() => onMove(-1)}>
              <UpIcon fontSize="small" />
            </IconButton>
            <IconButton size="small" aria-label={translate('routing.move_down', { name: routeName })} disabled={index === count - 1} onClick={() => onMove(1)}>
              <DownIcon fontSize="small" />
            </IconButton>
            <IconButton size="small" aria-label={translate('routing.remove', { name: routeName })} onClick={onRemove}>
              <DeleteIcon fontSize="small" />
            </IconButton>
          </Stack>
        )}
      </Stack>
      {errors?.aggregator && (
        <Typography variant="body2" color="error" role="alert" sx={{ mt: 0.5 }}>
          {errors.aggregator}
        </Typography>
      )}
      {lastFailure && (
        <Typography variant="body2" color="text.secondary" sx={{ mt: 0.5, overflowWrap: 'anywhere' }}>
          {lastFailure}
        </Typography>
      )}
      <TextField
        size="small"
        label={translate('routing.operator_id', { name: routeName })}
        value={route.operator_id}
        onChange={(e) => onOperatorId(e.target.value)}
        disabled={!canManage}
        error={!!errors?.operator_id}
        helperText={errors?.operator_id ?? translate('routing.operator_id_help')}
        slotProps={{ htmlInput: { inputMode: 'numeric' } }}
        sx={{ mt: 1.5, width: { xs: '100%', sm: 320 } }}
      />
      {errors?.products && (
        <Typography variant="body2" color="error" role="alert" sx={{ mt: 0.5 }}>
          {errors.products}
        </Typography>
      )}
    </Paper>
  );
}

/**
 * The operator's bundles × routes: each cell the product a bundle is sold as on a route, and per
 * bundle whether it can be delivered now (the server's reading of the saved routes). A table on
 * wider screens, one card per bundle on phones.
 */
function BundleMatrix({
  bundles,
  routes,
  errors,
  canManage,
  onProduct,
}: {
  bundles: RoutedBundle[];
  routes: EditedRoute[];
  errors: PlacedErrors | null;
  canManage: boolean;
  onProduct: (routeIndex: number, bundleId: string, value: string) => void;
}) {
  const translate = useTranslate();
  const phone = useIsPhone();
  const fmt = useCompanyFormat();
  const aggregatorName = useAggregatorName();
  if (!bundles.length) return <Typography color="text.secondary">{translate('routing.no_bundles')}</Typography>;
  const cell = (b: RoutedBundle, r: EditedRoute, i: number) => (
    <ProductField
      value={r.products[String(b.id)] ?? ''}
      onChange={(v) => onProduct(i, String(b.id), v)}
      aggregator={r.aggregator}
      operatorId={r.operator_id}
      label={translate('routing.cell_label', { bundle: b.name, route: aggregatorName(r.aggregator) })}
      error={errors?.routes[i]?.cells[String(b.id)]}
      disabled={!canManage}
    />
  );
  const delivery = (b: RoutedBundle) =>
    b.deliverable ? (
      <Chip size="small" color="success" variant="outlined" label={translate('routing.deliverable')} />
    ) : (
      <Typography variant="body2" color="error" sx={{ overflowWrap: 'anywhere' }}>
        {translate('routing.unavailable', { reason: isolate(b.reason) })}
      </Typography>
    );
  if (phone)
    return (
      <Stack sx={{ gap: 1.5 }}>
        {bundles.map((b) => (
          <Paper key={b.id} variant="outlined" sx={{ p: 1.5 }} aria-label={b.name} role="group">
            <Typography sx={{ fontWeight: 600 }}>
              <bdi>{b.name}</bdi>
            </Typography>
            <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
              {translate('routing.our_cost')}: <Ltr>{moneyText(b.cost, fmt.currency)}</Ltr>
            </Typography>
            <Stack sx={{ gap: 1.5 }}>
              {routes.map((r, i) => (
                <Box key={r.aggregator}>
                  <RouteLabel index={i} name={aggregatorName(r.aggregator)} />
                  {cell(b, r, i)}
                </Box>
              ))}
            </Stack>
            <Box sx={{ mt: 1 }}>{delivery(b)}</Box>
          </Paper>
        ))}
      </Stack>
    );
  return (
    <TableContainer component={Paper} variant="outlined">
      <Table size="small" aria-label={translate('routing.bundles')}>
        <TableHead>
          <TableRow>
            <TableCell>{translate('routing.bundle')}</TableCell>
            <TableCell>{translate('routing.our_cost')}</TableCell>
            {routes.map((r, i) => (
              <TableCell key={r.aggregator} sx={{ color: errors?.routes[i]?.products ? 'error.main' : undefined }}>
                <RouteLabel index={i} name={aggregatorName(r.aggregator)} />
              </TableCell>
            ))}
            <TableCell>{translate('routing.delivery')}</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {bundles.map((b) => (
            <TableRow key={b.id}>
              <TableCell component="th" scope="row" sx={{ fontWeight: 600 }}>
                <bdi>{b.name}</bdi>
              </TableCell>
              <TableCell sx={{ whiteSpace: 'nowrap' }}>
                <Ltr>{moneyText(b.cost, fmt.currency)}</Ltr>
              </TableCell>
              {routes.map((r, i) => (
                <TableCell key={r.aggregator} sx={{ verticalAlign: 'top', minWidth: 190 }}>
                  {cell(b, r, i)}
                </TableCell>
              ))}
              <TableCell sx={{ maxWidth: 320 }}>{delivery(b)}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

/** A route's place and name ("① DT One"): the number as the route cards show it, whatever the direction. */
function RouteLabel({ index, name }: { index: number; name: string }) {
  return (
    <Stack direction="row" component="span" sx={{ alignItems: 'center', gap: 0.75, mb: 0.5 }}>
      <Avatar component="span" sx={{ width: 20, height: 20, fontSize: 12, bgcolor: 'primary.main' }}>
        {index + 1}
      </Avatar>
      <Typography variant="body2" component="span" sx={{ fontWeight: 500 }}>
        {name}
      </Typography>
    </Stack>
  );
}
