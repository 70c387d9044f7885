import {
  AutocompleteInput,
  Datagrid,
  FunctionField,
  NumberInput,
  ReferenceInput,
  SearchInput,
  SelectInput,
  SimpleList,
  TextField,
  TextInput,
  useCanAccess,
  useTranslate,
} from 'react-admin';
import { contactSchema, updateContactSchema, CONTACT_TYPES, type ContactResponse } from '@app/contracts';
import { useRecordRoute } from '../common/useRecordRoute';
import { useIsDealer } from '../auth/identity';
import { RecordFormDrawer } from '../resources/RecordFormDrawer';
import { TranslationFields } from '../common/TranslationFields';
import { StatusToggle } from '../resources/StatusToggle';
import { SortArrows } from '../resources/SortArrows';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { STATUS_CHOICES } from '../catalogue/parts';
import { TrashBulkButton, TrashButton } from '../common/DoneToast';
import { ResourceListPage } from '../common/ResourceListPage';
import { USER_OPTIONS_SORT } from '../common/userOptions';

const BASE = '/settings/contacts';
const TYPE_CHOICES = CONTACT_TYPES.map((t) => ({ id: t, name: `settings.contact_types.${t}` }));

/** /settings/contacts: the phone, WhatsApp, email and address entries storefronts show. */
export default function ContactList() {
  const translate = useTranslate();
  const route = useRecordRoute<ContactResponse>(BASE, 'contacts');
  const dealer = useIsDealer();
  const { canAccess: canCreate } = useCanAccess({ resource: 'contacts', action: 'create' });
  const { canAccess: canEdit } = useCanAccess({ resource: 'contacts', action: 'edit' });
  const { canAccess: canDelete } = useCanAccess({ resource: 'contacts', action: 'delete' });
  const owner = (r: ContactResponse) => r.dealer?.name ?? translate('settings.company_wide');
  const filters = [<SearchInput key="q" source="q" alwaysOn />, <SelectInput key="type" source="type" label="settings.fields.type" choices={TYPE_CHOICES} />];
  return (
    <>
      <Breadcrumbs items={[{ label: 'menu.settings', to: '/settings' }, { label: 'menu.settings_contacts' }]} />
      <ResourceListPage
        resource="contacts"
        title={translate('menu.settings_contacts')}
        create={canCreate && { label: 'settings.contact.new_title', onClick: route.openCreate }}
        empty="empty.contact"
        filters={filters}
        sort={{ field: 'sort_order', order: 'ASC' }}
        phone={
          <SimpleList
            primaryText={(r: ContactResponse) => r.value}
            secondaryText={(r: ContactResponse) => `${translate(`settings.contact_types.${r.type}`)}${r.label ? ` · ${r.label}` : ''}`}
            tertiaryText={(r: ContactResponse) => translate(`users.status.${r.status}`)}
            rowClick={(id) => route.path(id)}
          />
        }
        desktop={
          <Datagrid rowClick={(id) => (canEdit ? route.path(id) : false)} bulkActionButtons={canDelete ? <TrashBulkButton /> : false}>
            <FunctionField source="type" label="settings.fields.type" render={(r: ContactResponse) => translate(`settings.contact_types.${r.type}`)} />
            <TextField source="label" label="settings.fields.label" emptyText="—" />
            <TextField source="value" label="settings.fields.value" />
            {!dealer && <FunctionField label="settings.fields.owner" render={owner} />}
            <FunctionField source="sort_order" label="catalogue.fields.sort_order" render={() => <SortArrows resource="contacts" disabled={!canEdit} />} />
            <FunctionField source="status" label="catalogue.fields.status" render={() => <StatusToggle />} />
            {canDelete && <TrashButton />}
          </Datagrid>
        }
        after={
          <RecordFormDrawer
            resource="contacts"
            route={route}
            schemas={{ create: contactSchema, update: updateContactSchema }}
            titles={{ create: 'settings.contact.new_title', edit: 'settings.contact.edit_title' }}
            defaultValues={{ type: 'phone' }}
          >
            <SelectInput source="type" label="settings.fields.type" choices={TYPE_CHOICES} />
            <TextInput source="label" label="settings.fields.label" helperText="settings.contact.label_help" fullWidth />
            <TranslationFields source="label" label="settings.fields.label" />
            <TextInput source="value" label="settings.fields.value" helperText="settings.contact.value_help" fullWidth />
            <NumberInput source="sort_order" label="catalogue.fields.sort_order" min={0} />
            <SelectInput source="status" label="catalogue.fields.status" choices={STATUS_CHOICES} defaultValue="active" />
            {!dealer && (
              <ReferenceInput source="dealer_id" reference="user-options" sort={USER_OPTIONS_SORT} filter={{ user_type: 'dealer' }}>
                <AutocompleteInput label="settings.fields.dealer" optionText="name" helperText="settings.contact.dealer_help" />
              </ReferenceInput>
            )}
          </RecordFormDrawer>
        }
      />
    </>
  );
}
