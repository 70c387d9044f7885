import {
  Datagrid,
  FunctionField,
  List,
  SearchInput,
  SelectInput,
  SimpleList,
  TextField,
  useCanAccess,
  useDataProvider,
  useGetOne,
  useNotify,
  usePermissions,
  useRecordContext,
  useRefresh,
  useTranslate,
  useUpdate,
} from 'react-admin';
import { Button, Chip, Dialog, DialogActions, DialogContent, DialogTitle, IconButton, Stack, TextField as MuiTextField, Tooltip } from '@mui/material';
import SaveIcon from '@mui/icons-material/Check';
import UndoIcon from '@mui/icons-material/Undo';
import { useParams } from 'react-router';
import { useState } from 'react';
import type { DealerBundleResponse, DealerCategoryResponse, DealerProviderResponse } from '@app/contracts';
import type { ConsoleDataProvider } from '../providers/dataProvider';
import { serverFieldError } from '../providers/errors';
import { PageTitle } from '../common/PageTitle';
import { useIsPhone } from '../common/useIsPhone';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { volumeLabel } from '../catalogue/parts';
import { DealerPicker, useDealerScope } from './useDealerScope';
import { DealerSwitch } from './DealerSwitch';
import { ENABLED_CHOICES } from './DealerProviderList';
import { ListEmpty, ListError } from '../common/ListParts';

/**
 * /dealer-providers/{id}/categories/{categoryId}/bundles: the dealer's bundles of one category,
 * each switched on or off with its own price (blank: the default). "Offer all" and "Apply a
 * profit to all" act on the whole category at once.
 */
export default function DealerBundleList() {
  const translate = useTranslate();
  const { id: providerId, categoryId } = useParams() as { id: string; categoryId: string };
  const scope = useDealerScope();
  const phone = useIsPhone();
  const { permissions } = usePermissions<string[]>();
  const seesCost = !!permissions?.includes('view bundles prices');
  const { canAccess: canEdit } = useCanAccess({ resource: 'dealer-bundles', action: 'edit' });
  const { data: provider } = useGetOne<DealerProviderResponse>(
    'dealer-providers',
    { id: providerId as never, meta: { query: scope.filter } },
    { enabled: !!scope.dealerId },
  );
  const { data: category } = useGetOne<DealerCategoryResponse>(
    'dealer-categories',
    { id: categoryId as never, meta: { query: scope.filter } },
    { enabled: !!scope.dealerId },
  );
  const title = category ? translate('catalogue.bundle.title_of', { name: `${provider?.name ?? ''} · ${category.name}` }) : translate('menu.dealer_bundles');
  const filters = [
    <SearchInput key="q" source="q" alwaysOn />,
    <SelectInput key="enabled" source="enabled" label="dealer_catalogue.offered" choices={ENABLED_CHOICES} />,
  ];
  return (
    <>
      <Breadcrumbs
        items={[
          { label: 'menu.dealer_providers', to: scope.link('/dealer-providers') },
          { label: provider?.name ?? '…', to: scope.link(`/dealer-providers/${providerId}/categories`) },
          { label: category?.name ?? '…' },
          { label: 'menu.dealer_bundles' },
        ]}
      />
      <PageTitle title={title} actions={scope.dealerId && canEdit && <BulkActions categoryId={categoryId} dealerData={scope.filter} />} />
      <DealerPicker scope={scope} />
      {scope.dealerId && (
        <List
          resource="dealer-bundles"
          filter={{ ...scope.filter, category_id: categoryId }}
          filters={filters}
          sort={{ field: 'sort_order', order: 'ASC' }}
          perPage={25}
          actions={false}
          title={title}
          storeKey={`dealer-bundles.${scope.dealerId}.${categoryId}`}
          empty={<ListEmpty message="empty.dealer_catalogue" />}
          error={<ListError />}
        >
          {phone ? (
            <SimpleList
              primaryText={(r: DealerBundleResponse) => r.name}
              secondaryText={(r: DealerBundleResponse) => `${volumeLabel(r.data_volume_mb, translate)} · ${r.selling_price}`}
              tertiaryText={(r: DealerBundleResponse) =>
                translate(r.enabled && r.below_cost ? 'dealer_catalogue.not_on_sale_below_cost' : r.enabled ? 'dealer_catalogue.on' : 'dealer_catalogue.off')
              }
              linkType={false}
              rowClick={false}
            />
          ) : (
            <Datagrid bulkActionButtons={false} rowClick={false}>
              <TextField source="name" label="catalogue.fields.name" />
              <FunctionField label="catalogue.fields.data_volume" render={(r: DealerBundleResponse) => volumeLabel(r.data_volume_mb, translate)} />
              <FunctionField
                label="catalogue.fields.validity"
                render={(r: DealerBundleResponse) => translate('catalogue.days', { smart_count: r.validity_days })}
              />
              {seesCost && <TextField source="cost_price" label="catalogue.fields.cost_price" sortable={false} />}
              <TextField source="default_selling_price" label="dealer_catalogue.default_price" sortable={false} />
              <FunctionField label="dealer_catalogue.your_price" render={() => <PriceEditor dealerData={scope.filter} disabled={!canEdit} />} />
              {seesCost && (
                <FunctionField
                  label="dealer_catalogue.profit"
                  render={(r: DealerBundleResponse) =>
                    r.below_cost ? <Chip size="small" color="error" label={translate('dealer_catalogue.below_cost')} /> : r.profit
                  }
                />
              )}
              <FunctionField
                label=""
                render={(r: DealerBundleResponse) =>
                  r.available ? null : <Chip size="small" color="warning" label={translate('dealer_catalogue.unavailable')} />
                }
              />
              <FunctionField label="dealer_catalogue.offered" render={() => <OfferedCell dealerData={scope.filter} />} />
            </Datagrid>
          )}
        </List>
      )}
    </>
  );
}

/**
 * Offered or not. A bundle switched on whose price is below its cost (the company raised the cost)
 * is not sold by the storefront: it says so instead of a switch that reads "on", with the way back.
 */
function OfferedCell({ dealerData }: { dealerData: Record<string, unknown> }) {
  const record = useRecordContext<DealerBundleResponse>();
  const translate = useTranslate();
  const notify = useNotify();
  const { canAccess } = useCanAccess({ resource: 'dealer-bundles', action: 'edit' });
  const [update, { isPending }] = useUpdate();
  if (!record) return null;
  if (!record.enabled || !record.below_cost) return <DealerSwitch resource="dealer-bundles" dealerData={dealerData} />;
  return (
    <Stack sx={{ alignItems: 'flex-start', gap: 0.5 }}>
      <Tooltip title={translate('dealer_catalogue.not_on_sale_help')}>
        <Chip size="small" color="error" variant="outlined" label={translate('dealer_catalogue.not_on_sale_below_cost')} />
      </Tooltip>
      {canAccess && (
        <Button
          size="small"
          disabled={isPending}
          aria-label={translate('dealer_catalogue.turn_off', { name: record.name })}
          onClick={() =>
            update(
              'dealer-bundles',
              { id: record.id, data: { ...dealerData, status: 'inactive' }, previousData: record },
              { mutationMode: 'pessimistic', onError: (e) => notify((e as Error).message, { type: 'error' }) },
            )
          }
        >
          {translate('dealer_catalogue.stop_offering')}
        </Button>
      )}
    </Stack>
  );
}

/** The dealer's own price of a row: type and press the check; the undo returns to the default price. */
function PriceEditor({ dealerData, disabled }: { dealerData: Record<string, unknown>; disabled: boolean }) {
  const record = useRecordContext<DealerBundleResponse>();
  const translate = useTranslate();
  const dataProvider = useDataProvider();
  const notify = useNotify();
  const refresh = useRefresh();
  const [value, setValue] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  if (!record) return null;
  const shown = value ?? record.custom_price ?? '';
  const save = async (price: string | null) => {
    setBusy(true);
    setError(undefined);
    try {
      await dataProvider.update('dealer-bundles', { id: record.id, data: { ...dealerData, selling_price: price }, previousData: record });
      setValue(null);
      notify('dealer_catalogue.price_saved', { type: 'success' });
      refresh();
    } catch (e) {
      setError(serverFieldError(e, 'selling_price') ?? (e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const label = translate('dealer_catalogue.your_price_of', { name: record.name });
  return (
    <Stack direction="row" sx={{ alignItems: 'flex-start', gap: 0.5, minWidth: 180 }}>
      <MuiTextField
        size="small"
        value={shown}
        placeholder={record.default_selling_price}
        disabled={disabled || busy}
        error={!!error}
        helperText={error}
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={(e) => e.key === 'Enter' && value !== null && save(value.trim() === '' ? null : value.trim())}
        slotProps={{ htmlInput: { inputMode: 'decimal', 'aria-label': label } }}
        sx={{ width: 110 }}
      />
      {value !== null && (
        <IconButton
          size="small"
          aria-label={translate('dealer_catalogue.save_price')}
          disabled={busy}
          onClick={() => save(value.trim() === '' ? null : value.trim())}
        >
          <SaveIcon fontSize="small" />
        </IconButton>
      )}
      {value === null && record.custom_price !== null && !disabled && (
        <Tooltip title={translate('dealer_catalogue.use_default')}>
          <IconButton size="small" aria-label={translate('dealer_catalogue.use_default')} disabled={busy} onClick={() => save(null)}>
            <UndoIcon fontSize="small" />
          </IconButton>
        </Tooltip>
      )}
    </Stack>
  );
}

/** "Offer all" and "Apply a profit to all" for the category shown. */
function BulkActions({ categoryId, dealerData }: { categoryId: string; dealerData: Record<string, unknown> }) {
  const translate = useTranslate();
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const notify = useNotify();
  const refresh = useRefresh();
  const [open, setOpen] = useState(false);
  const [profit, setProfit] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const run = async (body: Record<string, unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      const res = await dataProvider.dealerBundlesBulk({ ...dealerData, category_id: categoryId, ...body });
      notify(res.message ?? 'dealer_catalogue.updated', { type: 'success' });
      setOpen(false);
      setProfit('');
      refresh();
    } catch (e) {
      setError(serverFieldError(e, 'profit') ?? (e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack direction="row" sx={{ gap: 1 }}>
      <Button variant="outlined" disabled={busy} onClick={() => run({ status: 'active' })}>
        {translate('dealer_catalogue.enable_all')}
      </Button>
      <Button variant="contained" disabled={busy} onClick={() => setOpen(true)}>
        {translate('dealer_catalogue.apply_profit')}
      </Button>
      <Dialog open={open} onClose={() => !busy && setOpen(false)} aria-labelledby="apply-profit-title">
        <DialogTitle id="apply-profit-title">{translate('dealer_catalogue.apply_profit')}</DialogTitle>
        <DialogContent>
          <MuiTextField
            autoFocus
            margin="dense"
            label={translate('dealer_catalogue.profit')}
            value={profit}
            onChange={(e) => setProfit(e.target.value)}
            error={!!error}
            helperText={error ?? translate('dealer_catalogue.apply_profit_help')}
            slotProps={{ htmlInput: { inputMode: 'decimal' } }}
            fullWidth
          />
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)} disabled={busy}>
            {translate('common.cancel')}
          </Button>
          <Button variant="contained" disabled={busy} onClick={() => run({ profit: profit.trim() })}>
            {translate('dealer_catalogue.apply')}
          </Button>
        </DialogActions>
      </Dialog>
    </Stack>
  );
}
