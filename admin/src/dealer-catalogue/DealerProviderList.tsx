import { Datagrid, FunctionField, SearchInput, SelectInput, SimpleList, useTranslate } from 'react-admin';
import { Chip } from '@mui/material';
import type { DealerProviderResponse } from '@app/contracts';
import { PageTitle } from '../common/PageTitle';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { Logo } from '../catalogue/parts';
import { DealerPicker, useDealerScope } from './useDealerScope';
import { DealerSwitch } from './DealerSwitch';
import { ResourceListPage } from '../common/ResourceListPage';
import { ContentTextField } from '../common/ContentText';

export const ENABLED_CHOICES = [
  { id: 'true', name: 'dealer_catalogue.on' },
  { id: 'false', name: 'dealer_catalogue.off' },
];

/** /dealer-providers: the operators a dealer offers on its storefront; a row opens their categories. */
export default function DealerProviderList() {
  const translate = useTranslate();
  const scope = useDealerScope();
  const open = (id: unknown) => scope.link(`/dealer-providers/${id}/categories`);
  const filters = [
    <SearchInput key="q" source="q" alwaysOn />,
    <SelectInput key="enabled" source="enabled" label="dealer_catalogue.offered" choices={ENABLED_CHOICES} />,
  ];
  const title = translate('menu.dealer_providers');
  return (
    <>
      <Breadcrumbs items={[{ label: 'menu.dealer_providers' }]} />
      {/* No dealer chosen yet (an admin): the chooser alone, no list. */}
      {scope.dealerId ? (
        <ResourceListPage
          resource="dealer-providers"
          filter={scope.filter}
          storeKey={`dealer-providers.${scope.dealerId}`}
          title={title}
          intro={<DealerPicker scope={scope} />}
          empty="empty.dealer_catalogue"
          filters={filters}
          sort={{ field: 'sort_order', order: 'ASC' }}
          phone={
            <SimpleList
              primaryText={(r: DealerProviderResponse) => <bdi>{r.name}</bdi>}
              secondaryText={(r: DealerProviderResponse) =>
                translate('dealer_catalogue.categories_on', { on: r.enabled_categories_count, all: r.categories_count })
              }
              tertiaryText={(r: DealerProviderResponse) => translate(r.enabled ? 'dealer_catalogue.on' : 'dealer_catalogue.off')}
              leftAvatar={(r: DealerProviderResponse) => <Logo src={r.logo} />}
              linkType={false}
              rowClick={(id) => open(id)}
            />
          }
          desktop={
            <Datagrid rowClick={(id) => open(id)} bulkActionButtons={false}>
              <FunctionField label="catalogue.fields.logo" render={(r: DealerProviderResponse) => <Logo src={r.logo} />} />
              <ContentTextField source="name" label="catalogue.fields.name" />
              <FunctionField
                label="dealer_catalogue.categories"
                render={(r: DealerProviderResponse) => translate('dealer_catalogue.categories_on', { on: r.enabled_categories_count, all: r.categories_count })}
              />
              <FunctionField
                label=""
                render={(r: DealerProviderResponse) =>
                  r.available ? null : <Chip size="small" color="warning" label={translate('dealer_catalogue.unavailable')} />
                }
              />
              <FunctionField label="dealer_catalogue.offered" render={() => <DealerSwitch resource="dealer-providers" dealerData={scope.filter} />} />
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
