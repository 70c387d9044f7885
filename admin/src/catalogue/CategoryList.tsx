import {
  Datagrid,
  FunctionField,
  List,
  NumberInput,
  SearchInput,
  SelectInput,
  SimpleList,
  TextField,
  TextInput,
  useCanAccess,
  useGetOne,
  usePermissions,
  useTranslate,
} from 'react-admin';
import { Button, IconButton, Stack } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import RouteIcon from '@mui/icons-material/AltRouteOutlined';
import EditIcon from '@mui/icons-material/EditOutlined';
import { useNavigate, useParams } from 'react-router';
import { categorySchema, updateCategorySchema, type CategoryResponse, type ProviderResponse } from '@app/contracts';
import { PageTitle } from '../common/PageTitle';
import { useIsPhone } from '../common/useIsPhone';
import { useRecordRoute } from '../common/useRecordRoute';
import { RecordFormDrawer } from '../resources/RecordFormDrawer';
import { TranslationFields } from '../common/TranslationFields';
import { StatusToggle } from '../resources/StatusToggle';
import { SortArrows } from '../resources/SortArrows';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { STATUS_CHOICES } from './parts';
import { TrashBulkButton, TrashButton } from '../common/DoneToast';
import { ListEmpty, ListError } from '../common/ListParts';

/** /internet-providers/{id}/categories: one operator's categories; a row opens its bundles. */
export default function CategoryList() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const providerId = useParams().id!;
  const base = `/internet-providers/${providerId}/categories`;
  const route = useRecordRoute<CategoryResponse>(base, 'internet-categories');
  const phone = useIsPhone();
  const { data: provider } = useGetOne<ProviderResponse>('internet-providers', { id: providerId as never });
  const { canAccess: canCreate } = useCanAccess({ resource: 'internet-categories', action: 'create' });
  const { canAccess: canEdit } = useCanAccess({ resource: 'internet-categories', action: 'edit' });
  const { canAccess: canDelete } = useCanAccess({ resource: 'internet-categories', action: 'delete' });
  const { canAccess: canSeeProviders } = useCanAccess({ resource: 'internet-providers', action: 'list' });
  const { permissions } = usePermissions<string[]>();
  const seesRoutes = !!permissions?.includes('view delivery routes');
  const open = (id: unknown) => `${base}/${id}/bundles`;
  const title = provider ? translate('catalogue.category.title_of', { name: provider.name }) : translate('menu.internet_categories');
  const filters = [
    <SearchInput key="q" source="q" alwaysOn />,
    <SelectInput key="status" source="status" label="catalogue.fields.status" choices={STATUS_CHOICES} />,
  ];
  return (
    <>
      <Breadcrumbs
        items={[
          { label: 'menu.internet_providers', to: canSeeProviders ? '/internet-providers' : undefined },
          { label: provider?.name ?? '…' },
          { label: 'menu.internet_categories' },
        ]}
      />
      <PageTitle
        title={title}
        actions={
          (seesRoutes || canCreate) && (
            <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
              {/* The operator's delivery routes: how its bundles reach the customer. */}
              {seesRoutes && (
                <Button variant="outlined" startIcon={<RouteIcon />} onClick={() => navigate(`/internet-providers/${providerId}/routes`)}>
                  {translate('routing.title')}
                </Button>
              )}
              {canCreate && (
                <Button variant="contained" startIcon={<AddIcon />} onClick={route.openCreate}>
                  {translate('catalogue.category.new_title')}
                </Button>
              )}
            </Stack>
          )
        }
      />
      <List
        resource="internet-categories"
        filter={{ provider_id: providerId }}
        filters={filters}
        sort={{ field: 'sort_order', order: 'ASC' }}
        perPage={25}
        actions={false}
        title={title}
        storeKey={`internet-categories.${providerId}`}
        empty={
          <ListEmpty
            message="empty.category"
            action={
              canCreate && (
                <Button variant="contained" startIcon={<AddIcon />} onClick={route.openCreate}>
                  {translate('catalogue.category.new_title')}
                </Button>
              )
            }
          />
        }
        error={<ListError />}
      >
        {phone ? (
          <SimpleList
            primaryText={(r: CategoryResponse) => r.name}
            secondaryText={(r: CategoryResponse) => translate('catalogue.bundles_count', { smart_count: r.bundles_count })}
            tertiaryText={(r: CategoryResponse) => translate(`users.status.${r.status}`)}
            linkType={false}
            rowClick={(id) => open(id)}
          />
        ) : (
          <Datagrid rowClick={(id) => open(id)} bulkActionButtons={canDelete ? <TrashBulkButton /> : false}>
            <TextField source="name" label="catalogue.fields.name" />
            <TextField source="description" label="catalogue.fields.description" emptyText="—" sortable={false} />
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
                    aria-label={translate('catalogue.edit_named', { name: r.name })}
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
        )}
      </List>
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
    </>
  );
}
