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
  usePermissions,
  useTranslate,
} from 'react-admin';
import { ImageUploadInput } from '../common/ImageUploadInput';
import { Button, Chip, IconButton, Stack, Tooltip } from '@mui/material';
import EditIcon from '@mui/icons-material/EditOutlined';
import RouteIcon from '@mui/icons-material/AltRouteOutlined';
import { useNavigate } from 'react-router';
import { PROVIDER_ADAPTERS, providerSchema, updateProviderSchema, type ProviderResponse } from '@app/contracts';
import { useRecordRoute } from '../common/useRecordRoute';
import { RecordFormDrawer } from '../resources/RecordFormDrawer';
import { TranslationFields } from '../common/TranslationFields';
import { StatusToggle } from '../resources/StatusToggle';
import { SortArrows } from '../resources/SortArrows';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { STATUS_CHOICES, Logo, keepNewFileOnly } from './parts';
import { TrashBulkButton, TrashButton } from '../common/DoneToast';
import { ResourceListPage } from '../common/ResourceListPage';
import { ContentTextField, useContentText } from '../common/ContentText';

const BASE = '/internet-providers';
const ADAPTER_CHOICES = PROVIDER_ADAPTERS.map((a) => ({ id: a, name: `catalogue.adapters.${a}` }));

/** /internet-providers: operators with their logos and number prefixes; a row opens its categories. */
export default function ProviderList() {
  const translate = useTranslate();
  const text = useContentText();
  const navigate = useNavigate();
  const route = useRecordRoute<ProviderResponse>(BASE, 'internet-providers');
  const { canAccess: canCreate } = useCanAccess({ resource: 'internet-providers', action: 'create' });
  const { canAccess: canEdit } = useCanAccess({ resource: 'internet-providers', action: 'edit' });
  const { canAccess: canDelete } = useCanAccess({ resource: 'internet-providers', action: 'delete' });
  const { permissions } = usePermissions<string[]>();
  const seesRoutes = !!permissions?.includes('view delivery routes');
  const open = (id: unknown) => `${BASE}/${id}/categories`;
  const filters = [
    <SearchInput key="q" source="q" alwaysOn />,
    <SelectInput key="status" source="status" label="catalogue.fields.status" choices={STATUS_CHOICES} />,
  ];
  return (
    <>
      <Breadcrumbs items={[{ label: 'menu.internet_providers' }]} />
      <ResourceListPage
        resource="internet-providers"
        title={translate('menu.internet_providers')}
        create={canCreate && { label: 'catalogue.provider.new_title', onClick: route.openCreate }}
        empty="empty.provider"
        filters={filters}
        sort={{ field: 'sort_order', order: 'ASC' }}
        phone={
          <SimpleList
            primaryText={(r: ProviderResponse) => <bdi>{text(r, 'name', r.name)}</bdi>}
            secondaryText={(r: ProviderResponse) => r.phone_prefixes.join(', ')}
            tertiaryText={(r: ProviderResponse) => translate(`users.status.${r.status}`)}
            leftAvatar={(r: ProviderResponse) => <Logo src={r.logo} />}
            linkType={false}
            rowClick={(id) => open(id)}
          />
        }
        desktop={
          <Datagrid rowClick={(id) => open(id)} bulkActionButtons={canDelete ? <TrashBulkButton /> : false}>
            <FunctionField label="catalogue.fields.logo" render={(r: ProviderResponse) => <Logo src={r.logo} />} />
            <ContentTextField source="name" label="catalogue.fields.name" />
            <TextField source="code" label="catalogue.fields.code" />
            <FunctionField
              label="catalogue.fields.phone_prefixes"
              render={(r: ProviderResponse) => (
                <Stack direction="row" sx={{ gap: 0.5, flexWrap: 'wrap' }}>
                  {r.phone_prefixes.map((p) => (
                    <Chip key={p} size="small" label={p} />
                  ))}
                </Stack>
              )}
            />
            <FunctionField
              label="catalogue.fields.categories"
              render={(r: ProviderResponse) => (
                <Button
                  size="small"
                  onClick={(e) => {
                    e.stopPropagation();
                    navigate(open(r.id));
                  }}
                >
                  {translate('catalogue.categories_count', { smart_count: r.categories_count })}
                </Button>
              )}
            />
            <FunctionField
              label="catalogue.fields.adapter_key"
              render={(r: ProviderResponse) => (
                <Stack direction="row" sx={{ alignItems: 'center', gap: 0.5 }}>
                  <Chip
                    size="small"
                    variant="outlined"
                    color={r.adapter_key === 'reloadly' ? 'primary' : 'default'}
                    label={translate(`catalogue.adapters.${r.adapter_key}`, { _: r.adapter_key })}
                  />
                  {/* The operator's delivery routes (their own page, as its categories are): beside how it delivers, the table is wide. */}
                  {seesRoutes && (
                    <Tooltip title={translate('routing.title')}>
                      <IconButton
                        size="small"
                        aria-label={translate('routing.title_of', { name: text(r, 'name', r.name) })}
                        onClick={(e) => {
                          e.stopPropagation();
                          navigate(`${BASE}/${r.id}/routes`);
                        }}
                      >
                        <RouteIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                  )}
                </Stack>
              )}
            />
            <FunctionField
              source="sort_order"
              label="catalogue.fields.sort_order"
              render={() => <SortArrows resource="internet-providers" disabled={!canEdit} />}
            />
            <FunctionField source="status" label="catalogue.fields.status" render={() => <StatusToggle />} />
            {canEdit && (
              <FunctionField
                label=""
                render={(r: ProviderResponse) => (
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
            resource="internet-providers"
            route={route}
            schemas={{ create: providerSchema, update: updateProviderSchema }}
            titles={{ create: 'catalogue.provider.new_title', edit: 'catalogue.provider.edit_title' }}
            transform={keepNewFileOnly('logo')}
          >
            <TextInput source="name" label="catalogue.fields.name" fullWidth />
            <TranslationFields source="name" label="catalogue.fields.name" />
            <TextInput source="code" label="catalogue.fields.code" helperText="catalogue.provider.code_help" />
            <TextInput
              source="phone_prefixes"
              label="catalogue.fields.phone_prefixes"
              helperText="catalogue.provider.prefixes_help"
              format={(v) => (Array.isArray(v) ? v.join(', ') : (v ?? ''))}
              fullWidth
            />
            <ImageUploadInput source="logo" label="catalogue.fields.logo" />
            <SelectInput
              source="adapter_key"
              label="catalogue.fields.adapter_key"
              choices={ADAPTER_CHOICES}
              defaultValue="sandbox"
              helperText="catalogue.provider.adapter_help"
            />
            <TextInput
              source="external_operator_id"
              label="catalogue.fields.external_operator_id"
              helperText="catalogue.provider.operator_id_help"
              format={(v) => v ?? ''}
              slotProps={{ htmlInput: { inputMode: 'numeric' } }}
            />
            <NumberInput source="sort_order" label="catalogue.fields.sort_order" min={0} />
            <SelectInput source="status" label="catalogue.fields.status" choices={STATUS_CHOICES} defaultValue="active" />
          </RecordFormDrawer>
        }
      />
    </>
  );
}
