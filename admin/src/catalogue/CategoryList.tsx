import { Datagrid, FunctionField, NumberInput, SearchInput, SelectInput, SimpleList, TextInput, useCanAccess, usePermissions, useTranslate } from 'react-admin';
import { Button, IconButton } from '@mui/material';
import RouteIcon from '@mui/icons-material/AltRouteOutlined';
import EditIcon from '@mui/icons-material/EditOutlined';
import { useNavigate, useParams } from 'react-router';
import { categorySchema, updateCategorySchema, type CategoryResponse, type ProviderResponse } from '@app/contracts';
import { useRecordRoute } from '../common/useRecordRoute';
import { RecordFormDrawer } from '../resources/RecordFormDrawer';
import { TranslationFields } from '../common/TranslationFields';
import { StatusToggle } from '../resources/StatusToggle';
import { SortArrows } from '../resources/SortArrows';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { useParentRecord } from '../resources/useParentRecord';
import { STATUS_CHOICES } from './parts';
import { TrashBulkButton, TrashButton } from '../common/DoneToast';
import { ResourceListPage } from '../common/ResourceListPage';
import { ContentTextField, useContentText } from '../common/ContentText';

/** /internet-providers/{id}/categories: one operator's categories; a row opens its bundles. */
export default function CategoryList() {
  const translate = useTranslate();
  const text = useContentText();
  const navigate = useNavigate();
  const providerId = useParams().id!;
  const base = `/internet-providers/${providerId}/categories`;
  const route = useRecordRoute<CategoryResponse>(base, 'internet-categories');
  const { record: provider, readable: providerReadable } = useParentRecord<ProviderResponse>('internet-providers', providerId);
  const { canAccess: canCreate } = useCanAccess({ resource: 'internet-categories', action: 'create' });
  const { canAccess: canEdit } = useCanAccess({ resource: 'internet-categories', action: 'edit' });
  const { canAccess: canDelete } = useCanAccess({ resource: 'internet-categories', action: 'delete' });
  const { canAccess: canSeeProviders } = useCanAccess({ resource: 'internet-providers', action: 'list' });
  const { permissions } = usePermissions<string[]>();
  const seesRoutes = !!permissions?.includes('view delivery routes');
  const open = (id: unknown) => `${base}/${id}/bundles`;
  const title = provider ? translate('catalogue.category.title_of', { name: text(provider, 'name', provider.name) }) : translate('menu.internet_categories');
  const filters = [
    <SearchInput key="q" source="q" alwaysOn />,
    <SelectInput key="status" source="status" label="catalogue.fields.status" choices={STATUS_CHOICES} />,
  ];
  return (
    <>
      <Breadcrumbs
        items={[
          { label: 'menu.internet_providers', to: canSeeProviders ? '/internet-providers' : undefined },
          ...(providerReadable ? [{ label: text(provider, 'name', provider?.name) ?? '…' }] : []),
          { label: 'menu.internet_categories' },
        ]}
      />
      <ResourceListPage
        resource="internet-categories"
        title={title}
        titleActions={
          // The operator's delivery routes: how its bundles reach the customer.
          seesRoutes ? (
            <Button variant="outlined" startIcon={<RouteIcon />} onClick={() => navigate(`/internet-providers/${providerId}/routes`)}>
              {translate('routing.title')}
            </Button>
          ) : undefined
        }
        create={canCreate && { label: 'catalogue.category.new_title', onClick: route.openCreate }}
        empty="empty.category"
        filters={filters}
        filter={{ provider_id: providerId }}
        sort={{ field: 'sort_order', order: 'ASC' }}
        storeKey={`internet-categories.${providerId}`}
        phone={
          <SimpleList
            primaryText={(r: CategoryResponse) => <bdi>{text(r, 'name', r.name)}</bdi>}
            secondaryText={(r: CategoryResponse) => translate('catalogue.bundles_count', { smart_count: r.bundles_count })}
            tertiaryText={(r: CategoryResponse) => translate(`users.status.${r.status}`)}
            linkType={false}
            rowClick={(id) => open(id)}
          />
        }
        desktop={
          <Datagrid rowClick={(id) => open(id)} bulkActionButtons={canDelete ? <TrashBulkButton /> : false}>
            <ContentTextField source="name" label="catalogue.fields.name" />
            <ContentTextField source="description" label="catalogue.fields.description" sortable={false} />
            <FunctionField
              label="catalogue.fields.bundles"
              render={(r: CategoryResponse) => (
                <Button
                  size="small"
                  onClick={(e) => {
                    e.stopPropagation();
                    navigate(open(r.id));
                  }}
                >
                  {translate('catalogue.bundles_count', { smart_count: r.bundles_count })}
                </Button>
              )}
            />
            <FunctionField
              source="sort_order"
              label="catalogue.fields.sort_order"
              render={() => <SortArrows resource="internet-categories" disabled={!canEdit} />}
            />
            <FunctionField source="status" label="catalogue.fields.status" render={() => <StatusToggle />} />
            {canEdit && (
              <FunctionField
                label=""
                render={(r: CategoryResponse) => (
                  <IconButton
                    aria-label={translate('catalogue.edit_named', { name: text(r, 'name', r.name) })}
                    onClick={(e) => {
                      e.stopPropagation();
                      route.openEdit(r);
                    }}
                  >
                    <EditIcon fontSize="small" />
                  </IconButton>
                )}
              />
            )}
            {canDelete && <TrashButton />}
          </Datagrid>
        }
        after={
          <RecordFormDrawer
            resource="internet-categories"
            route={route}
            schemas={{ create: categorySchema, update: updateCategorySchema }}
            titles={{ create: 'catalogue.category.new_title', edit: 'catalogue.category.edit_title' }}
            defaultValues={{ provider_id: Number(providerId) || providerId }}
          >
            <TextInput source="name" label="catalogue.fields.name" fullWidth />
            <TranslationFields source="name" label="catalogue.fields.name" />
            <TextInput source="description" label="catalogue.fields.description" fullWidth multiline minRows={2} />
            <TranslationFields source="description" label="catalogue.fields.description" multiline />
            <NumberInput source="sort_order" label="catalogue.fields.sort_order" min={0} />
            <SelectInput source="status" label="catalogue.fields.status" choices={STATUS_CHOICES} defaultValue="active" />
          </RecordFormDrawer>
        }
      />
    </>
  );
}
