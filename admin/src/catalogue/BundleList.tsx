import {
  Datagrid,
  FunctionField,
  NumberInput,
  SearchInput,
  SelectInput,
  SimpleList,
  TextField,
  TextInput,
  useCanAccess,
  useTranslate,
  usePermissions,
} from 'react-admin';
import { Stack } from '@mui/material';
import { useLocation, useNavigate, useParams } from 'react-router';
import { bundleSchema, updateBundleSchema, type BundleResponse, type CategoryResponse, type ProviderResponse } from '@app/contracts';
import { useRecordRoute } from '../common/useRecordRoute';
import { RecordFormDrawer } from '../resources/RecordFormDrawer';
import { TranslationFields } from '../common/TranslationFields';
import { StatusToggle } from '../resources/StatusToggle';
import { SortArrows } from '../resources/SortArrows';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { useParentRecord } from '../resources/useParentRecord';
import { STATUS_CHOICES, volumeLabel } from './parts';
import { TrashBulkButton, TrashButton } from '../common/DoneToast';
import { ResourceListPage } from '../common/ResourceListPage';
import { ContentTextField, useContentText } from '../common/ContentText';
import { RouteMappingOffer } from '../routing/RouteMappingOffer';
import type { RouteOffer } from '../routing/CreateBundleDialog';
import { OffSaleChip, useCostRaiseCheck } from './CostRaiseCheck';

// Blank volume means unlimited (null); the shared schema turns text into numbers.
const emptyIsNull = (v: unknown) => (v === '' || v === undefined ? null : v);

/** /internet-providers/{id}/categories/{categoryId}/bundles: a category's bundles and their prices. */
export default function BundleList() {
  const translate = useTranslate();
  const text = useContentText();
  const { id: providerId, categoryId } = useParams() as { id: string; categoryId: string };
  const base = `/internet-providers/${providerId}/categories/${categoryId}/bundles`;
  const route = useRecordRoute<BundleResponse>(base, 'bundles');
  const { permissions } = usePermissions<string[]>();
  const seesCost = !!permissions?.includes('view bundles prices');
  const { record: provider, readable: providerReadable } = useParentRecord<ProviderResponse>('internet-providers', providerId);
  const { record: category, readable: categoryReadable } = useParentRecord<CategoryResponse>('internet-categories', categoryId);
  const { canAccess: canCreate } = useCanAccess({ resource: 'bundles', action: 'create' });
  const { canAccess: canEdit } = useCanAccess({ resource: 'bundles', action: 'edit' });
  const { canAccess: canDelete } = useCanAccess({ resource: 'bundles', action: 'delete' });
  const { canAccess: canSeeProviders } = useCanAccess({ resource: 'internet-providers', action: 'list' });
  const title = category
    ? translate('catalogue.bundle.title_of', { name: `${text(provider, 'name', provider?.name) ?? ''} · ${text(category, 'name', category.name)}` })
    : translate('menu.bundles');
  const filters = [
    <SearchInput key="q" source="q" alwaysOn />,
    <SelectInput key="status" source="status" label="catalogue.fields.status" choices={STATUS_CHOICES} />,
  ];
  const volume = (r: BundleResponse) => volumeLabel(r.data_volume_mb, translate);
  // A raised cost takes the bundle off the shops priced below it: asked before, said after.
  const costRaise = useCostRaiseCheck();
  // A bundle made from an aggregator's product (the catalogue's "Create bundle") comes with the
  // product it is (location state). Once created, the list opens with the offer to sell it through
  // that aggregator's route (state again: the page is mounted anew at each path, Layout.tsx).
  const location = useLocation();
  const navigate = useNavigate();
  const state = location.state as { routeOffer?: RouteOffer; offerBundle?: { id: number; name: string } } | null;
  const stateAfterCreate = (r: { id: unknown; name?: unknown }) =>
    state?.routeOffer && permissions?.includes('view delivery routes')
      ? { routeOffer: state.routeOffer, offerBundle: { id: Number(r.id), name: String(r.name ?? '') } }
      : undefined;
  const offer = route.mode === null && state?.routeOffer && state.offerBundle ? { offer: state.routeOffer, bundle: state.offerBundle } : null;
  return (
    <>
      <Breadcrumbs
        items={[
          { label: 'menu.internet_providers', to: canSeeProviders ? '/internet-providers' : undefined },
          // The operator's categories stay one click up, named by the operator where it may be read.
          {
            label: providerReadable ? (text(provider, 'name', provider?.name) ?? '…') : 'menu.internet_categories',
            to: `/internet-providers/${providerId}/categories`,
          },
          ...(categoryReadable ? [{ label: text(category, 'name', category?.name) ?? '…' }] : []),
          { label: 'menu.bundles' },
        ]}
      />
      <ResourceListPage
        resource="bundles"
        title={title}
        create={canCreate && { label: 'catalogue.bundle.new_title', onClick: route.openCreate }}
        intro={costRaise.notice}
        empty="empty.bundle"
        filters={filters}
        filter={{ category_id: categoryId }}
        sort={{ field: 'sort_order', order: 'ASC' }}
        storeKey={`bundles.${categoryId}`}
        phone={
          <SimpleList
            primaryText={(r: BundleResponse) => <bdi>{text(r, 'name', r.name)}</bdi>}
            secondaryText={(r: BundleResponse) => `${volume(r)} · ${translate('catalogue.days', { smart_count: r.validity_days })}`}
            tertiaryText={(r: BundleResponse) => r.selling_price}
            rowClick={(id) => route.path(id)}
          />
        }
        desktop={
          <Datagrid rowClick={(id) => (canEdit ? route.path(id) : false)} bulkActionButtons={canDelete ? <TrashBulkButton /> : false}>
            <ContentTextField source="name" label="catalogue.fields.name" />
            <FunctionField source="data_volume_mb" label="catalogue.fields.data_volume" render={volume} />
            <FunctionField
              source="validity_days"
              label="catalogue.fields.validity"
              render={(r: BundleResponse) => translate('catalogue.days', { smart_count: r.validity_days })}
            />
            {seesCost && <TextField source="cost_price" label="catalogue.fields.cost_price" sortable={false} />}
            <FunctionField
              source="selling_price"
              label="catalogue.fields.selling_price"
              render={(r: BundleResponse) => (
                <Stack direction="row" sx={{ gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
                  {r.selling_price}
                  <OffSaleChip record={r} />
                </Stack>
              )}
            />
            <TextField source="operator_product_code" label="catalogue.fields.operator_product_code" emptyText="—" sortable={false} />
            <FunctionField source="sort_order" label="catalogue.fields.sort_order" render={() => <SortArrows resource="bundles" disabled={!canEdit} />} />
            <FunctionField source="status" label="catalogue.fields.status" render={() => <StatusToggle />} />
            {canDelete && <TrashButton />}
          </Datagrid>
        }
        after={
          <>
            <RecordFormDrawer
              resource="bundles"
              route={route}
              schemas={{ create: bundleSchema, update: updateBundleSchema }}
              titles={{ create: 'catalogue.bundle.new_title', edit: 'catalogue.bundle.edit_title' }}
              defaultValues={{ category_id: Number(categoryId) || categoryId, validity_days: 1 }}
              stateAfterCreate={stateAfterCreate}
              beforeSave={seesCost ? costRaise.beforeSave : undefined}
              onSaved={costRaise.onSaved}
              stateAfterUpdate={costRaise.stateAfterUpdate}
            >
              <TextInput source="name" label="catalogue.fields.name" fullWidth />
              <TranslationFields source="name" label="catalogue.fields.name" />
              <NumberInput
                source="data_volume_mb"
                label="catalogue.fields.data_volume_mb"
                helperText="catalogue.bundle.volume_help"
                min={1}
                parse={emptyIsNull}
              />
              <NumberInput source="validity_days" label="catalogue.fields.validity_days" min={1} max={366} />
              {seesCost && (
                <TextInput
                  source="cost_price"
                  label="catalogue.fields.cost_price"
                  slotProps={{ htmlInput: { inputMode: 'decimal' } }}
                  helperText="catalogue.bundle.price_help"
                />
              )}
              <TextInput
                source="selling_price"
                label="catalogue.fields.selling_price"
                slotProps={{ htmlInput: { inputMode: 'decimal' } }}
                helperText="catalogue.bundle.price_help"
              />
              <TextInput source="operator_product_code" label="catalogue.fields.operator_product_code" />
              <NumberInput source="sort_order" label="catalogue.fields.sort_order" min={0} />
              <SelectInput source="status" label="catalogue.fields.status" choices={STATUS_CHOICES} defaultValue="active" />
            </RecordFormDrawer>
            {costRaise.dialog}
            {offer && (
              <RouteMappingOffer
                offer={offer.offer}
                bundle={offer.bundle}
                providerId={providerId}
                providerName={provider?.name ?? ''}
                // Answered: the list's URL without the offer (a reload or Back does not offer it again).
                onClose={() => navigate(`${location.pathname}${location.search}`, { replace: true, state: null })}
              />
            )}
          </>
        }
      />
    </>
  );
}
