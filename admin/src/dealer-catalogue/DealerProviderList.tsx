import { Datagrid, FunctionField, List, SearchInput, SelectInput, SimpleList, TextField, useTranslate } from 'react-admin';
import { Chip } from '@mui/material';
import type { DealerProviderResponse } from '@app/contracts';
import { PageTitle } from '../common/PageTitle';
import { useIsPhone } from '../common/useIsPhone';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { Logo } from '../catalogue/parts';
import { DealerPicker, useDealerScope } from './useDealerScope';
import { DealerSwitch } from './DealerSwitch';
import { ListEmpty, ListError } from '../common/ListParts';

export const ENABLED_CHOICES = [
  { id: 'true', name: 'dealer_catalogue.on' },
  { id: 'false', name: 'dealer_catalogue.off' },
];

/** /dealer-providers: the operators a dealer offers on its storefront; a row opens their categories. */
export default function DealerProviderList() {
  const translate = useTranslate();
  const scope = useDealerScope();
  const phone = useIsPhone();
  const open = (id: unknown) => scope.link(`/dealer-providers/${id}/categories`);
  const filters = [
    <SearchInput key="q" source="q" alwaysOn />,
    <SelectInput key="enabled" source="enabled" label="dealer_catalogue.offered" choices={ENABLED_CHOICES} />,
  ];
  return (
    <>
      <Breadcrumbs items={[{ label: 'menu.dealer_providers' }]} />
      <PageTitle title={translate('menu.dealer_providers')} />
      <DealerPicker scope={scope} />
      {scope.dealerId && (
        <List
          resource="dealer-providers"
          filter={scope.filter}
          filters={filters}
          sort={{ field: 'sort_order', order: 'ASC' }}
          perPage={25}
          actions={false}
          title={translate('menu.dealer_providers')}
          storeKey={`dealer-providers.${scope.dealerId}`}
          empty={<ListEmpty message="empty.dealer_catalogue" />}
          error={<ListError />}
        >
          {phone ? (
            <SimpleList
              primaryText={(r: DealerProviderResponse) => r.name}
              secondaryText={(r: DealerProviderResponse) =>
                translate('dealer_catalogue.categories_on', { on: r.enabled_categories_count, all: r.categories_count })
              }
              tertiaryText={(r: DealerProviderResponse) => translate(r.enabled ? 'dealer_catalogue.on' : 'dealer_catalogue.off')}
              leftAvatar={(r: DealerProviderResponse) => <Logo src={r.logo} />}
              linkType={false}
              rowClick={(id) => open(id)}
            />
          ) : (
            <Datagrid rowClick={(id) => open(id)} bulkActionButtons={false}>
              <FunctionField label="catalogue.fields.logo" render={(r: DealerProviderResponse) => <Logo src={r.logo} />} />
              <TextField source="name" label="catalogue.fields.name" />
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
          )}
        </List>
      )}
    </>
  );
}
