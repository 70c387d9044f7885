import {
  Datagrid,
  FunctionField,
  ListNoResults,
  RecordContextProvider,
  SearchInput,
  SelectInput,
  SimpleListLoading,
  TextField,
  useCanAccess,
  useDataProvider,
  useNotify,
  usePermissions,
  useRecordContext,
  useRefresh,
  useTranslate,
  useUpdate,
  WithListContext,
} from 'react-admin';
import {
  Box,
  Button,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  IconButton,
  InputAdornment,
  List as MuiList,
  ListItem,
  Stack,
  TextField as MuiTextField,
  ToggleButton,
  ToggleButtonGroup,
  Tooltip,
  Typography,
} from '@mui/material';
import SaveIcon from '@mui/icons-material/Check';
import UndoIcon from '@mui/icons-material/Undo';
import { useParams } from 'react-router';
import { useState } from 'react';
import { applyMarkup, formatMinor, MAX_MARKUP_BASIS_POINTS, toBasisPoints, toMinor } from '@app/contracts';
import type { DealerBundleResponse, DealerCategoryResponse, DealerProviderResponse } from '@app/contracts';
import type { ConsoleDataProvider } from '../providers/dataProvider';
import { serverFieldError } from '../providers/errors';
import { PageTitle } from '../common/PageTitle';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { useParentRecord } from '../resources/useParentRecord';
import { volumeLabel } from '../catalogue/parts';
import { useLtr } from '../common/Ltr';
import { DealerPicker, useDealerScope } from './useDealerScope';
import { DealerSwitch } from './DealerSwitch';
import { ENABLED_CHOICES } from './DealerProviderList';
import { ResourceListPage } from '../common/ResourceListPage';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { ContentTextField } from '../common/ContentText';

/**
 * /dealer-providers/{id}/categories/{categoryId}/bundles: the dealer's bundles of one category,
 * each switched on or off with its own price (blank: the default), typed as a price, a fixed
 * profit or a percentage markup over the cost. "Offer all" and "Apply a profit or markup to all"
 * act on the whole category at once.
 */
export default function DealerBundleList() {
  const translate = useTranslate();
  const { id: providerId, categoryId } = useParams() as { id: string; categoryId: string };
  const scope = useDealerScope();
  const { permissions } = usePermissions<string[]>();
  const seesCost = !!permissions?.includes('view bundles prices');
  const { canAccess: canEdit } = useCanAccess({ resource: 'dealer-bundles', action: 'edit' });
  const { record: provider, readable: providerReadable } = useParentRecord<DealerProviderResponse>('dealer-providers', providerId, {
    meta: { query: scope.filter },
    enabled: !!scope.dealerId,
  });
  const { record: category, readable: categoryReadable } = useParentRecord<DealerCategoryResponse>('dealer-categories', categoryId, {
    meta: { query: scope.filter },
    enabled: !!scope.dealerId,
  });
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
          // The operator's categories stay one click up, named by the operator where it may be read.
          { label: providerReadable ? (provider?.name ?? '…') : 'menu.dealer_categories', to: scope.link(`/dealer-providers/${providerId}/categories`) },
          ...(categoryReadable ? [{ label: category?.name ?? '…' }] : []),
          { label: 'menu.dealer_bundles' },
        ]}
      />
      {/* No dealer chosen yet (an admin): the chooser alone, no list. */}
      {scope.dealerId ? (
        <ResourceListPage
          resource="dealer-bundles"
          filter={{ ...scope.filter, category_id: categoryId }}
          storeKey={`dealer-bundles.${scope.dealerId}.${categoryId}`}
          title={title}
          titleActions={canEdit && <BulkActions categoryId={categoryId} dealerData={scope.filter} />}
          intro={<DealerPicker scope={scope} />}
          empty="empty.dealer_catalogue"
          filters={filters}
          sort={{ field: 'sort_order', order: 'ASC' }}
          phone={<PhoneBundles dealerData={scope.filter} canEdit={!!canEdit} seesCost={seesCost} />}
          desktop={
            <Datagrid bulkActionButtons={false} rowClick={false}>
              <ContentTextField source="name" label="catalogue.fields.name" />
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
          }
        />
      ) : (
        <>
          <PageTitle title={title} />
          <DealerPicker scope={scope} />
        </>
      )}
    </>
  );
}

/**
 * Phones: one card per bundle, with the same price editor as a table row (price, profit or markup,
 * the price it gives, saved with the check) and the Offered switch, so that one bundle is priced
 * and switched from a phone as from a laptop.
 */
function PhoneBundles({ dealerData, canEdit, seesCost }: { dealerData: Record<string, unknown>; canEdit: boolean; seesCost: boolean }) {
  const ltr = useLtr();
  const translate = useTranslate();
  return (
    <WithListContext<DealerBundleResponse>
      loading={<SimpleListLoading hasSecondaryText />}
      empty={<ListNoResults />}
      render={({ data = [] }) => (
        <MuiList disablePadding>
          {data.map((r) => (
            <RecordContextProvider key={r.id} value={r}>
              <ListItem divider sx={{ flexDirection: 'column', alignItems: 'stretch', gap: 1, py: 1.5 }}>
                <Box>
                  <Typography variant="body1" sx={{ fontWeight: 600 }}>
                    <bdi>{r.name}</bdi>
                  </Typography>
                  <Typography variant="body2" color="text.secondary">
                    {/* The volume and the price kept left to right in Arabic ("10 GB · 5.75", not "GB · 5.75 10"). */}
                    {`${ltr(volumeLabel(r.data_volume_mb, translate))} · ${ltr(r.selling_price)}`}
                    {seesCost && !r.below_cost && r.profit !== undefined && ` · ${translate('dealer_catalogue.profit_is', { profit: ltr(r.profit) })}`}
                  </Typography>
                  {((seesCost && r.below_cost) || !r.available) && (
                    <Stack direction="row" sx={{ gap: 0.5, mt: 0.5, flexWrap: 'wrap' }}>
                      {seesCost && r.below_cost && <Chip size="small" color="error" label={translate('dealer_catalogue.below_cost')} />}
                      {!r.available && <Chip size="small" color="warning" label={translate('dealer_catalogue.unavailable')} />}
                    </Stack>
                  )}
                </Box>
                <PriceEditor dealerData={dealerData} disabled={!canEdit} wide />
                <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', gap: 1, flexWrap: 'wrap' }}>
                  <Typography variant="body2">{translate('dealer_catalogue.offered')}</Typography>
                  <OfferedCell dealerData={dealerData} />
                </Stack>
              </ListItem>
            </RecordContextProvider>
          ))}
        </MuiList>
      )}
    />
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

/** How a price is typed: the price itself, a fixed profit over the cost, or a percentage of the cost added. */
type PriceMode = 'selling_price' | 'profit' | 'markup_percent';

/** A typed profit (minor units) or markup (hundredths of a percent) the API would take; null otherwise. */
function typedAddition(mode: 'profit' | 'markup_percent', text: string): number | null {
  if (mode === 'profit') {
    const profit = toMinor(text);
    return profit === null || profit < 0 ? null : profit;
  }
  const basisPoints = toBasisPoints(text);
  return basisPoints === null || basisPoints <= 0 || basisPoints > MAX_MARKUP_BASIS_POINTS ? null : basisPoints;
}

/** The price a profit or markup gives on this cost, by the API's own formula (@app/contracts); null while the text is not valid. */
function previewPrice(costMinor: number | null, mode: PriceMode, text: string): string | null {
  if (costMinor === null || mode === 'selling_price') return null;
  const addition = typedAddition(mode, text);
  if (addition === null) return null;
  const price = mode === 'profit' ? costMinor + addition : applyMarkup(costMinor, addition);
  return price === null ? null : formatMinor(price);
}

/** The value sent for a typed field: a markup that reads as a number goes as one (12.5); anything else as typed, for the server to judge. */
function sentValue(mode: PriceMode, text: string): string | number {
  const basisPoints = mode === 'markup_percent' ? toBasisPoints(text) : null;
  return basisPoints === null ? text : basisPoints / 100;
}

/** The unit after a field: the company's currency, or % for a markup. */
function unitAdornment(mode: PriceMode, currency: string) {
  return <InputAdornment position="end">{mode === 'markup_percent' ? '%' : currency}</InputAdornment>;
}

/**
 * The dealer's own price of a row: type and press the check; the undo returns to the default price.
 * With the cost in view, the price can instead be typed as a fixed profit or a percentage markup,
 * with the price it gives shown as it is typed; the server saves that price (it does not follow a
 * later cost change).
 */
function PriceEditor({ dealerData, disabled, wide = false }: { dealerData: Record<string, unknown>; disabled: boolean; wide?: boolean }) {
  const record = useRecordContext<DealerBundleResponse>();
  const translate = useTranslate();
  const dataProvider = useDataProvider();
  const notify = useNotify();
  const refresh = useRefresh();
  const { currency } = useCompanyFormat();
  const [mode, setMode] = useState<PriceMode>('selling_price');
  const [value, setValue] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  if (!record) return null;
  const shown = value ?? (mode === 'selling_price' ? (record.custom_price ?? '') : '');
  const preview = value === null || record.cost_price === undefined ? null : previewPrice(toMinor(record.cost_price), mode, value.trim());
  const save = async (field: PriceMode, typed: string | null) => {
    setBusy(true);
    setError(undefined);
    try {
      const data = { ...dealerData, [field]: typed === null ? null : sentValue(field, typed) };
      await dataProvider.update('dealer-bundles', { id: record.id, data, previousData: record });
      setValue(null);
      // Back to the price itself: the saved price shows in the field, not an empty profit.
      setMode('selling_price');
      notify('dealer_catalogue.price_saved', { type: 'success' });
      refresh();
    } catch (e) {
      setError(serverFieldError(e, field) ?? (e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const submit = () => {
    if (value === null) return;
    const typed = value.trim();
    // A blank price is the default price; a blank profit or markup is nothing to save.
    if (mode === 'selling_price') save(mode, typed === '' ? null : typed);
    else if (typed !== '') save(mode, typed);
  };
  const label = translate(mode === 'selling_price' ? 'dealer_catalogue.your_price_of' : `dealer_catalogue.${mode}_of`, { name: record.name });
  return (
    // `wide`: a phone's card, the whole width with buttons big enough for a thumb.
    <Stack sx={{ gap: 0.5, minWidth: wide ? 0 : 180 }}>
      {record.cost_price !== undefined && !disabled && (
        <ToggleButtonGroup
          exclusive
          size="small"
          value={mode}
          disabled={busy}
          fullWidth={wide}
          aria-label={translate('dealer_catalogue.price_mode_of', { name: record.name })}
          onChange={(_, next: PriceMode | null) => {
            if (!next) return;
            setMode(next);
            setValue(null);
            setError(undefined);
          }}
          sx={{ '& .MuiToggleButton-root': wide ? { textTransform: 'none' } : { textTransform: 'none', py: 0.25, px: 1 } }}
        >
          <ToggleButton value="selling_price">{translate('dealer_catalogue.mode_price_short')}</ToggleButton>
          <ToggleButton value="profit">{translate('dealer_catalogue.mode_profit_short')}</ToggleButton>
          <ToggleButton value="markup_percent">{translate('dealer_catalogue.mode_markup_short')}</ToggleButton>
        </ToggleButtonGroup>
      )}
      <Stack direction="row" sx={{ alignItems: 'flex-start', gap: 0.5 }}>
        <MuiTextField
          size="small"
          value={shown}
          placeholder={mode === 'selling_price' ? record.default_selling_price : undefined}
          disabled={disabled || busy}
          error={!!error}
          // Until a profit or markup is typed, the price it would replace (never an invented example).
          helperText={
            error ??
            (preview !== null
              ? translate('dealer_catalogue.price_preview', { price: preview })
              : mode !== 'selling_price' && value === null
                ? translate('dealer_catalogue.price_preview', { price: record.selling_price })
                : undefined)
          }
          onChange={(e) => setValue(e.target.value)}
          onKeyDown={(e) => e.key === 'Enter' && submit()}
          slotProps={{ htmlInput: { inputMode: 'decimal', 'aria-label': label }, input: { endAdornment: unitAdornment(mode, currency) } }}
          sx={wide ? { flex: 1, minWidth: 0 } : { width: 150 }}
        />
        {value !== null && (
          <IconButton size="small" aria-label={translate('dealer_catalogue.save_price')} disabled={busy} onClick={submit}>
            <SaveIcon fontSize="small" />
          </IconButton>
        )}
        {value === null && record.custom_price !== null && !disabled && (
          <Tooltip title={translate('dealer_catalogue.use_default')}>
            <IconButton size="small" aria-label={translate('dealer_catalogue.use_default')} disabled={busy} onClick={() => save('selling_price', null)}>
              <UndoIcon fontSize="small" />
            </IconButton>
          </Tooltip>
        )}
      </Stack>
    </Stack>
  );
}

/** "Offer all" and "Apply a profit or markup to all" for the category shown. */
function BulkActions({ categoryId, dealerData }: { categoryId: string; dealerData: Record<string, unknown> }) {
  const translate = useTranslate();
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const notify = useNotify();
  const refresh = useRefresh();
  const { currency } = useCompanyFormat();
  const [open, setOpen] = useState(false);
  const [mode, setMode] = useState<'profit' | 'markup_percent'>('profit');
  const [amount, setAmount] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const run = async (body: Record<string, unknown>, field: string) => {
    setBusy(true);
    setError(undefined);
    try {
      const res = await dataProvider.dealerBundlesBulk({ ...dealerData, category_id: categoryId, ...body });
      notify(res.message ?? 'dealer_catalogue.updated', { type: 'success' });
      setOpen(false);
      setAmount('');
      refresh();
    } catch (e) {
      setError(serverFieldError(e, field) ?? (e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const typed = amount.trim();
  // Each bundle's price is its own cost plus the same amount or percentage: the line says which,
  // with what a cost of 1.00 would sell at.
  const help =
    typedAddition(mode, typed) === null
      ? translate(mode === 'profit' ? 'dealer_catalogue.apply_profit_help' : 'dealer_catalogue.apply_markup_help')
      : translate(mode === 'profit' ? 'dealer_catalogue.each_cost_plus' : 'dealer_catalogue.each_cost_plus_percent', {
          amount: typed,
          currency,
          example: previewPrice(100, mode, typed),
        });
  return (
    <Stack direction="row" sx={{ gap: 1 }}>
      <Button variant="outlined" disabled={busy} onClick={() => run({ status: 'active' }, 'status')}>
        {translate('dealer_catalogue.enable_all')}
      </Button>
      <Button variant="contained" disabled={busy} onClick={() => setOpen(true)}>
        {translate('dealer_catalogue.apply_profit')}
      </Button>
      <Dialog open={open} onClose={() => !busy && setOpen(false)} aria-labelledby="apply-profit-title">
        <DialogTitle id="apply-profit-title">{translate('dealer_catalogue.apply_profit')}</DialogTitle>
        <DialogContent>
          <Typography variant="body2" id="apply-profit-mode" sx={{ mb: 1 }}>
            {translate('dealer_catalogue.price_mode')}
          </Typography>
          <ToggleButtonGroup
            exclusive
            fullWidth
            size="small"
            value={mode}
            disabled={busy}
            aria-labelledby="apply-profit-mode"
            onChange={(_, next: 'profit' | 'markup_percent' | null) => {
              if (!next) return;
              setMode(next);
              setAmount('');
              setError(undefined);
            }}
            sx={{ '& .MuiToggleButton-root': { textTransform: 'none' } }}
          >
            <ToggleButton value="profit">{translate('dealer_catalogue.mode_profit')}</ToggleButton>
            <ToggleButton value="markup_percent">{translate('dealer_catalogue.mode_markup')}</ToggleButton>
          </ToggleButtonGroup>
          <MuiTextField
            autoFocus
            margin="dense"
            label={translate(mode === 'profit' ? 'dealer_catalogue.profit' : 'dealer_catalogue.markup')}
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
            error={!!error}
            helperText={error ?? help}
            slotProps={{ htmlInput: { inputMode: 'decimal' }, input: { endAdornment: unitAdornment(mode, currency) } }}
            fullWidth
          />
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)} disabled={busy}>
            {translate('common.cancel')}
          </Button>
          <Button variant="contained" disabled={busy} onClick={() => run({ [mode]: sentValue(mode, typed) }, mode)}>
            {translate('dealer_catalogue.apply')}
          </Button>
        </DialogActions>
      </Dialog>
    </Stack>
  );
}
