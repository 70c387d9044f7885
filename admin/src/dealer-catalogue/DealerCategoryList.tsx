import { Datagrid, FunctionField, SearchInput, SelectInput, SimpleList, useDataProvider, useNotify, useRefresh, useTranslate, useCanAccess } from 'react-admin';
import { Button, Chip } from '@mui/material';
import { useParams } from 'react-router';
import { useState } from 'react';
import type { DealerCategoryResponse, DealerProviderResponse } from '@app/contracts';
import type { ConsoleDataProvider } from '../providers/dataProvider';
import { PageTitle } from '../common/PageTitle';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { useParentRecord } from '../resources/useParentRecord';
import { DealerPicker, useDealerScope } from './useDealerScope';
import { DealerSwitch } from './DealerSwitch';
import { ENABLED_CHOICES } from './DealerProviderList';
import { ResourceListPage } from '../common/ResourceListPage';
import { ContentTextField } from '../common/ContentText';

/** /dealer-providers/{id}/categories: an operator's categories as the dealer offers them; a row opens the bundles. */
export default function DealerCategoryList() {
  const translate = useTranslate();
  const providerId = useParams().id!;
  const scope = useDealerScope();
  const { record: provider, readable: providerReadable } = useParentRecord<DealerProviderResponse>('dealer-providers', providerId, {
    meta: { query: scope.filter },
    enabled: !!scope.dealerId,
  });
  const open = (id: unknown) => scope.link(`/dealer-providers/${providerId}/categories/${id}/bundles`);
  const filters = [
    <SearchInput key="q" source="q" alwaysOn />,
    <SelectInput key="enabled" source="enabled" label="dealer_catalogue.offered" choices={ENABLED_CHOICES} />,
  ];
  const title = provider ? translate('catalogue.category.title_of', { name: provider.name }) : translate('menu.dealer_categories');
  return (
    <>
      <Breadcrumbs
        items={[
          { label: 'menu.dealer_providers', to: scope.link('/dealer-providers') },
          ...(providerReadable ? [{ label: provider?.name ?? '…' }] : []),
          { label: 'menu.dealer_categories' },
        ]}
      />
      {/* No dealer chosen yet (an admin): the chooser alone, no list. */}
      {scope.dealerId ? (
        <ResourceListPage
          resource="dealer-categories"
          filter={{ ...scope.filter, provider_id: providerId }}
          storeKey={`dealer-categories.${scope.dealerId}.${providerId}`}
          title={title}
          intro={<DealerPicker scope={scope} />}
          empty="empty.dealer_catalogue"
          filters={filters}
          sort={{ field: 'sort_order', order: 'ASC' }}
          phone={
            <SimpleList
              primaryText={(r: DealerCategoryResponse) => <bdi>{r.name}</bdi>}
              secondaryText={(r: DealerCategoryResponse) => translate('dealer_catalogue.bundles_on', { on: r.enabled_bundles_count, all: r.bundles_count })}
              tertiaryText={(r: DealerCategoryResponse) => translate(r.enabled ? 'dealer_catalogue.on' : 'dealer_catalogue.off')}
              linkType={false}
              rowClick={(id) => open(id)}
            />
          }
          desktop={
            <Datagrid rowClick={(id) => open(id)} bulkActionButtons={false}>
              <ContentTextField source="name" label="catalogue.fields.name" />
              <FunctionField
                label="dealer_catalogue.bundles"
                render={(r: DealerCategoryResponse) => translate('dealer_catalogue.bundles_on', { on: r.enabled_bundles_count, all: r.bundles_count })}
              />
              <FunctionField
                label=""
                render={(r: DealerCategoryResponse) =>
                  r.available ? null : <Chip size="small" color="warning" label={translate('dealer_catalogue.unavailable')} />
                }
              />
              <FunctionField label="" render={(r: DealerCategoryResponse) => <EnableAllButton category={r} dealerData={scope.filter} />} />
              <FunctionField label="dealer_catalogue.offered" render={() => <DealerSwitch resource="dealer-categories" dealerData={scope.filter} />} />
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

/** "Offer all bundles": turns on every bundle of the category (and the category and operator). */
function EnableAllButton({ category, dealerData }: { category: DealerCategoryResponse; dealerData: Record<string, unknown> }) {
  const translate = useTranslate();
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const notify = useNotify();
  const refresh = useRefresh();
  const [busy, setBusy] = useState(false);
  const { canAccess } = useCanAccess({ resource: 'dealer-bundles', action: 'edit' });
  if (!canAccess || category.bundles_count === 0 || category.enabled_bundles_count === category.bundles_count) return null;
  return (
    <Button
      size="small"
      disabled={busy}
      onClick={async (e) => {
        e.stopPropagation();
        setBusy(true);
        try {
          const res = await dataProvider.dealerBundlesBulk({ ...dealerData, category_id: category.id, status: 'active' });
          notify(res.message ?? 'dealer_catalogue.updated', { type: 'success' });
          refresh();
        } catch (err) {
          notify((err as Error).message, { type: 'error' });
        } finally {
          setBusy(false);
        }
      }}
    >
      {translate('dealer_catalogue.enable_all')}
    </Button>
  );
}
