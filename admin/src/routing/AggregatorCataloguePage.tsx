import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import {
  Datagrid,
  FunctionField,
  List,
  SearchInput,
  SelectInput,
  SimpleList,
  TextInput,
  useCanAccess,
  useInput,
  useNotify,
  usePermissions,
  useRefresh,
  useTranslate,
} from 'react-admin';
import { Alert, AlertTitle, Box, Button, Chip, FormControlLabel, Stack, Switch, Tab, Tabs, Typography } from '@mui/material';
import SyncIcon from '@mui/icons-material/Sync';
import AddIcon from '@mui/icons-material/Add';
import { PageTitle } from '../common/PageTitle';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { ListEmpty, ListError, ListTopBar, usePhoneFilters } from '../common/ListParts';
import { Ltr, ltr } from '../common/Ltr';
import { useIsPhone } from '../common/useIsPhone';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { serverMessage } from '../providers/errors';
import { useAggregatorName } from './RouteParts';
import { CreateBundleDialog } from './CreateBundleDialog';
import { CATALOGUE_AGGREGATORS, moneyText, type Aggregator, type AggregatorProduct, type Connector, type SyncResult } from './types';

const BASE = '/aggregator-catalogue';

/**
 * /aggregator-catalogue/{aggregator}: the products each aggregator sold at its last sync (one tab
 * per aggregator), filtered by operator id, status, "changed at the last sync" and a search, with
 * what the sync saw change. "Sync now" ('manage delivery routes') reads every catalogue again and
 * says per aggregator what it found. "Create bundle" on an active product opens the bundle form
 * filled in from it, in the category chosen (CreateBundleDialog).
 */
export default function AggregatorCataloguePage() {
  const translate = useTranslate();
  const segment = (useParams()['*'] ?? '').split('/')[0];
  const aggregator: Aggregator = (CATALOGUE_AGGREGATORS as readonly string[]).includes(segment) ? (segment as Aggregator) : CATALOGUE_AGGREGATORS[0];
  const aggregatorName = useAggregatorName();
  const { permissions } = usePermissions<string[]>();
  const canSync = !!permissions?.includes('manage delivery routes');
  const { canAccess: canSeeProviders } = useCanAccess({ resource: 'internet-providers', action: 'list' });
  const [result, setResult] = useState<SyncResult | null>(null);
  const title = translate('aggregator_catalogue.title');
  return (
    <>
      <Breadcrumbs
        items={[{ label: 'menu.internet_providers', to: canSeeProviders ? '/internet-providers' : undefined }, { label: 'aggregator_catalogue.title' }]}
      />
      <PageTitle title={title} actions={canSync && <SyncButton onSynced={setResult} />} />
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2, maxWidth: 900 }}>
        {translate('aggregator_catalogue.help')}
      </Typography>
      {result && <SyncSummary result={result} onClose={() => setResult(null)} />}
      <Stack direction="row" sx={{ alignItems: 'center', gap: 1, flexWrap: 'wrap', borderBottom: 1, borderColor: 'divider', mb: 1 }}>
        <Tabs value={aggregator} variant="scrollable" allowScrollButtonsMobile aria-label={title} sx={{ flexGrow: 1, minWidth: 0 }}>
          {CATALOGUE_AGGREGATORS.map((a) => (
            <Tab key={a} value={a} label={aggregatorName(a)} component={Link} to={`${BASE}/${a}`} />
          ))}
        </Tabs>
        <ConnectorChip aggregator={aggregator} />
      </Stack>
      <ProductList key={aggregator} aggregator={aggregator} />
    </>
  );
}

/** Whether this server talks to the aggregator's live service or its stand-in (GET /connectors). */
function ConnectorChip({ aggregator }: { aggregator: Aggregator }) {
  const translate = useTranslate();
  const dataProvider = useConsoleDataProvider();
  const { data } = useQuery({
    queryKey: ['connectors'],
    queryFn: async () => (await dataProvider.connectors<Connector[]>()).data ?? [],
    staleTime: 5 * 60_000,
    retry: false,
  });
  const connector = data?.find((c) => c.kind === 'delivery' && c.name === aggregator);
  if (!connector) return null;
  return (
    <Chip
      size="small"
      variant="outlined"
      color={connector.live ? 'success' : 'default'}
      label={translate(connector.live ? 'aggregator_catalogue.live' : 'aggregator_catalogue.stand_in')}
      sx={{ mb: { xs: 1, sm: 0 } }}
    />
  );
}

function SyncButton({ onSynced }: { onSynced: (r: SyncResult) => void }) {
  const translate = useTranslate();
  const notify = useNotify();
  const refresh = useRefresh();
  const dataProvider = useConsoleDataProvider();
  const [busy, setBusy] = useState(false);
  const sync = async () => {
    if (busy) return;
    setBusy(true);
    try {
      const res = await dataProvider.syncAggregators<SyncResult>();
      const allOk = res.data.aggregators.every((a) => a.status === 'ok');
      notify(res.message ?? 'aggregator_catalogue.synced', { type: allOk ? 'success' : 'warning' });
      onSynced(res.data);
      refresh();
    } catch (e) {
      notify(serverMessage(e), { type: 'error' });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button variant="contained" startIcon={<SyncIcon />} onClick={sync} disabled={busy}>
      {translate(busy ? 'aggregator_catalogue.syncing' : 'aggregator_catalogue.sync')}
    </Button>
  );
}

/** What the last "Sync now" found, per aggregator, until closed. */
function SyncSummary({ result, onClose }: { result: SyncResult; onClose: () => void }) {
  const translate = useTranslate();
  const aggregatorName = useAggregatorName();
  const allOk = result.aggregators.every((a) => a.status === 'ok');
  return (
    <Alert severity={allOk ? 'success' : 'warning'} onClose={onClose} sx={{ mb: 2 }} slotProps={{ closeButton: { title: translate('common.close') } }}>
      <AlertTitle>{translate('aggregator_catalogue.sync_result')}</AlertTitle>
      <Box component="ul" sx={{ m: 0, pl: 2 }}>
        {result.aggregators.map((a) => (
          <li key={a.aggregator}>
            {a.status === 'ok'
              ? translate('aggregator_catalogue.sync_line', {
                  name: aggregatorName(a.aggregator),
                  products: a.products,
                  new: a.new,
                  changed: a.changed,
                  withdrawn: a.withdrawn,
                })
              : translate('aggregator_catalogue.sync_failed', { name: aggregatorName(a.aggregator), error: a.error ?? '' })}
          </li>
        ))}
      </Box>
    </Alert>
  );
}

/** "New", "Price changed from 1.00 USD to 1.20 USD", "Withdrawn on 26 Nov 2026", "Returned", or null. */
export function useChangeText() {
  const translate = useTranslate();
  const fmt = useCompanyFormat();
  return (p: AggregatorProduct): string | null => {
    switch (p.change) {
      case 'new':
        return translate('aggregator_catalogue.change.new');
      case 'price':
        if (p.previous_amount !== null && p.previous_amount !== p.amount)
          return translate('aggregator_catalogue.change.price', { from: moneyText(p.previous_amount, p.currency), to: moneyText(p.amount, p.currency) });
        return translate('aggregator_catalogue.change.cost', {
          from: moneyText(p.previous_wholesale, p.currency) || '—',
          to: moneyText(p.wholesale, p.currency) || '—',
        });
      case 'withdrawn':
        return translate('aggregator_catalogue.change.withdrawn', { date: fmt.dateTime(p.withdrawn_at) });
      case 'returned':
        return translate('aggregator_catalogue.change.returned');
      default:
        return null;
    }
  };
}

const CHANGE_COLORS = { new: 'info', price: 'warning', withdrawn: 'error', returned: 'success' } as const;

function ChangeChip({ product }: { product: AggregatorProduct }) {
  const text = useChangeText()(product);
  if (!text || !product.change) return null;
  return (
    <Chip
      size="small"
      variant="outlined"
      color={CHANGE_COLORS[product.change]}
      label={text}
      sx={{ maxWidth: '100%', height: 'auto', '& .MuiChip-label': { whiteSpace: 'normal', py: 0.25 } }}
    />
  );
}

function StatusChip({ product }: { product: AggregatorProduct }) {
  const translate = useTranslate();
  return (
    <Chip
      size="small"
      color={product.status === 'active' ? 'success' : 'default'}
      variant={product.status === 'active' ? 'outlined' : 'filled'}
      label={translate(`aggregator_catalogue.status.${product.status}`)}
    />
  );
}

/**
 * "Changed at the last sync" as a switch whose off is no filter at all (react-admin's BooleanInput
 * would send changed=false, "unchanged only"; and on MUI 9 it hands FormControlLabel an inputRef).
 */
function ChangedFilter({ source, label }: { source: string; label: string; alwaysOn?: boolean }) {
  const translate = useTranslate();
  const { field } = useInput({ source, defaultValue: null });
  return (
    <FormControlLabel
      sx={{ ml: 0, mb: 1, alignSelf: 'center' }}
      control={<Switch checked={field.value === true || field.value === 'true'} onChange={(e) => field.onChange(e.target.checked ? true : null)} />}
      label={translate(label)}
    />
  );
}

function ProductList({ aggregator }: { aggregator: Aggregator }) {
  const translate = useTranslate();
  const phone = useIsPhone();
  const fmt = useCompanyFormat();
  const changeText = useChangeText();
  // Making a bundle here means choosing its operator and category: reading them is needed too.
  const { canAccess: canCreateBundles } = useCanAccess({ resource: 'bundles', action: 'create' });
  const { canAccess: canListOperators } = useCanAccess({ resource: 'internet-providers', action: 'list' });
  const { canAccess: canListCategories } = useCanAccess({ resource: 'internet-categories', action: 'list' });
  const canCreateBundle = !!(canCreateBundles && canListOperators && canListCategories);
  const [creating, setCreating] = useState<AggregatorProduct | null>(null);
  const filters = usePhoneFilters([
    <SearchInput key="q" source="q" alwaysOn />,
    <TextInput
      key="operator_id"
      source="operator_id"
      label="aggregator_catalogue.fields.operator_id"
      alwaysOn
      slotProps={{ htmlInput: { inputMode: 'numeric' } }}
    />,
    <SelectInput
      key="status"
      source="status"
      label="aggregator_catalogue.fields.status"
      alwaysOn
      choices={[
        { id: 'active', name: 'aggregator_catalogue.status.active' },
        { id: 'withdrawn', name: 'aggregator_catalogue.status.withdrawn' },
      ]}
    />,
    <ChangedFilter key="changed" source="changed" label="aggregator_catalogue.fields.changed" alwaysOn />,
  ]);
  const cost = (p: AggregatorProduct) => (p.wholesale === null ? '—' : moneyText(p.wholesale, p.currency));
  const canCreate = (p: AggregatorProduct) => !!canCreateBundle && p.status === 'active';
  return (
    <>
      <List
        resource="aggregator-catalogue"
        storeKey={`aggregator-catalogue.${aggregator}`}
        filter={{ aggregator }}
        filters={filters}
        perPage={25}
        sort={{ field: 'product_id', order: 'ASC' }}
        actions={<ListTopBar />}
        title={translate('aggregator_catalogue.title')}
        empty={<ListEmpty message="aggregator_catalogue.empty" />}
        error={<ListError />}
      >
        {phone ? (
          <SimpleList<AggregatorProduct>
            primaryText={(p) => <bdi>{p.name}</bdi>}
            secondaryText={(p) =>
              [ltr(p.product_id), ltr(moneyText(p.amount, p.currency)), translate('routing.our_cost_short', { amount: ltr(cost(p)) })].join(' · ')
            }
            tertiaryText={(p) => changeText(p) ?? translate(`aggregator_catalogue.status.${p.status}`)}
            linkType={false}
            // A row that can become a bundle opens the same dialog as the table's button.
            rightIcon={(p) =>
              canCreate(p) ? <AddIcon color="primary" aria-label={translate('aggregator_catalogue.create_bundle_named', { name: p.name })} /> : null
            }
            rowClick={(_, __, p) => {
              if (canCreate(p as AggregatorProduct)) setCreating(p as AggregatorProduct);
              return false;
            }}
          />
        ) : (
          <Datagrid bulkActionButtons={false} rowClick={false}>
            <FunctionField
              label="aggregator_catalogue.fields.name"
              render={(p: AggregatorProduct) => (
                <Box sx={{ minWidth: 160 }}>
                  <Typography variant="body2" sx={{ fontWeight: 600 }}>
                    <bdi>{p.name}</bdi>
                  </Typography>
                  {p.description && (
                    <Typography variant="caption" color="text.secondary">
                      <bdi>{p.description}</bdi>
                    </Typography>
                  )}
                </Box>
              )}
            />
            <FunctionField
              label="aggregator_catalogue.fields.operator"
              render={(p: AggregatorProduct) => (
                <>
                  <bdi>{p.operator_name}</bdi>{' '}
                  <Typography variant="caption" color="text.secondary" component="span">
                    <Ltr>{`#${p.operator_id}`}</Ltr>
                  </Typography>
                </>
              )}
            />
            <FunctionField
              label="aggregator_catalogue.fields.product_id"
              render={(p: AggregatorProduct) => (
                <Box component="code" dir="ltr" sx={{ fontFamily: 'monospace' }}>
                  {p.product_id}
                </Box>
              )}
            />
            <FunctionField
              label="aggregator_catalogue.fields.amount"
              render={(p: AggregatorProduct) => (
                <Box sx={{ whiteSpace: 'nowrap' }}>
                  <Ltr>{moneyText(p.amount, p.currency)}</Ltr>
                </Box>
              )}
            />
            <FunctionField
              label="aggregator_catalogue.fields.wholesale"
              render={(p: AggregatorProduct) => (
                <Box sx={{ whiteSpace: 'nowrap' }}>
                  <Ltr>{cost(p)}</Ltr>
                </Box>
              )}
            />
            <FunctionField label="aggregator_catalogue.fields.status" render={(p: AggregatorProduct) => <StatusChip product={p} />} />
            <FunctionField label="aggregator_catalogue.fields.change" render={(p: AggregatorProduct) => <ChangeChip product={p} />} />
            <FunctionField label="aggregator_catalogue.fields.last_seen" render={(p: AggregatorProduct) => fmt.dateTime(p.last_seen_at)} />
            {canCreateBundle && (
              <FunctionField
                label=""
                render={(p: AggregatorProduct) =>
                  canCreate(p) && (
                    <Button
                      size="small"
                      startIcon={<AddIcon />}
                      onClick={() => setCreating(p)}
                      aria-label={translate('aggregator_catalogue.create_bundle_named', { name: p.name })}
                      sx={{ whiteSpace: 'nowrap' }}
                    >
                      {translate('aggregator_catalogue.create_bundle')}
                    </Button>
                  )
                }
              />
            )}
          </Datagrid>
        )}
      </List>
      <CreateBundleDialog product={creating} onClose={() => setCreating(null)} />
    </>
  );
}
