import {
  AutocompleteInput,
  Datagrid,
  FunctionField,
  ReferenceInput,
  SearchInput,
  SelectInput,
  SimpleList,
  TextField,
  TextInput,
  useCanAccess,
  useTranslate,
} from 'react-admin';
import { areaSchema, updateAreaSchema, AREA_TYPES, type AreaResponse } from '@app/contracts';
import { useRecordRoute } from '../common/useRecordRoute';
import { RecordFormDrawer } from '../resources/RecordFormDrawer';
import { StatusToggle } from '../resources/StatusToggle';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { STATUS_CHOICES } from '../catalogue/parts';
import { TrashBulkButton, TrashButton } from '../common/DoneToast';
import { ResourceListPage } from '../common/ResourceListPage';

const BASE = '/settings/areas';
const TYPE_CHOICES = AREA_TYPES.map((t) => ({ id: t, name: `settings.area_types.${t}` }));

/** /settings/areas: regions, cities and districts as a tree (each names its parent). */
export default function AreaList() {
  const translate = useTranslate();
  const route = useRecordRoute<AreaResponse>(BASE, 'areas');
  const { canAccess: canCreate } = useCanAccess({ resource: 'areas', action: 'create' });
  const { canAccess: canEdit } = useCanAccess({ resource: 'areas', action: 'edit' });
  const { canAccess: canDelete } = useCanAccess({ resource: 'areas', action: 'delete' });
  const filters = [
    <SearchInput key="q" source="q" alwaysOn />,
    <SelectInput key="type" source="type" label="settings.fields.type" choices={TYPE_CHOICES} />,
    <SelectInput key="status" source="status" label="catalogue.fields.status" choices={STATUS_CHOICES} />,
  ];
  return (
    <>
      <Breadcrumbs items={[{ label: 'menu.settings', to: '/settings' }, { label: 'menu.settings_areas' }]} />
      <ResourceListPage
        resource="areas"
        title={translate('menu.settings_areas')}
        create={canCreate && { label: 'settings.area.new_title', onClick: route.openCreate }}
        empty="empty.area"
        filters={filters}
        sort={{ field: 'name', order: 'ASC' }}
        phone={
          <SimpleList
            primaryText={(r: AreaResponse) => r.name}
            secondaryText={(r: AreaResponse) => [translate(`settings.area_types.${r.type}`), r.parent?.name].filter(Boolean).join(' · ')}
            tertiaryText={(r: AreaResponse) => r.code ?? ''}
            rowClick={(id) => route.path(id)}
          />
        }
        desktop={
          <Datagrid rowClick={(id) => (canEdit ? route.path(id) : false)} bulkActionButtons={canDelete ? <TrashBulkButton /> : false}>
            <TextField source="name" label="catalogue.fields.name" />
            <TextField source="code" label="catalogue.fields.code" emptyText="—" />
            <FunctionField source="type" label="settings.fields.type" render={(r: AreaResponse) => translate(`settings.area_types.${r.type}`)} />
            <FunctionField label="settings.fields.parent" render={(r: AreaResponse) => r.parent?.name ?? '—'} />
            <FunctionField label="settings.fields.children" render={(r: AreaResponse) => r.children_count} />
            <FunctionField source="status" label="catalogue.fields.status" render={() => <StatusToggle />} />
            {canDelete && <TrashButton />}
          </Datagrid>
        }
        after={
          <RecordFormDrawer
            resource="areas"
            route={route}
            schemas={{ create: areaSchema, update: updateAreaSchema }}
            titles={{ create: 'settings.area.new_title', edit: 'settings.area.edit_title' }}
            defaultValues={{ type: 'city' }}
          >
            <TextInput source="name" label="catalogue.fields.name" fullWidth />
            <TextInput source="code" label="catalogue.fields.code" helperText="settings.area.code_help" />
            <SelectInput source="type" label="settings.fields.type" choices={TYPE_CHOICES} />
            <ReferenceInput source="parent_id" reference="areas">
              <AutocompleteInput label="settings.fields.parent" optionText="name" helperText="settings.area.parent_help" />
            </ReferenceInput>
            <SelectInput source="status" label="catalogue.fields.status" choices={STATUS_CHOICES} defaultValue="active" />
          </RecordFormDrawer>
        }
      />
    </>
  );
}
