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
import { ImageUploadInput } from '../common/ImageUploadInput';
import PaymentsIcon from '@mui/icons-material/PaymentsOutlined';
import { paymentMethodSchema, updatePaymentMethodSchema, PAYMENT_GATEWAYS, PAYMENT_METHOD_TYPES, type PaymentMethodResponse } from '@app/contracts';
import { useRecordRoute } from '../common/useRecordRoute';
import { useIsDealer } from '../auth/identity';
import { RecordFormDrawer } from '../resources/RecordFormDrawer';
import { TranslationFields } from '../common/TranslationFields';
import { StatusToggle } from '../resources/StatusToggle';
import { SortArrows } from '../resources/SortArrows';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { Logo, STATUS_CHOICES, keepNewFileOnly } from '../catalogue/parts';
import { TrashBulkButton, TrashButton } from '../common/DoneToast';
import { ResourceListPage } from '../common/ResourceListPage';
import { USER_OPTIONS_SORT } from '../common/userOptions';

const BASE = '/settings/payment-methods';
export const PAYMENT_TYPE_CHOICES = PAYMENT_METHOD_TYPES.map((t) => ({ id: t, name: `settings.payment_types.${t}` }));
/** What takes a method's payments (empty on a new method: its type's, cash and bank in person). */
const GATEWAY_CHOICES = PAYMENT_GATEWAYS.map((g) => ({ id: g, name: `settings.payment_gateways.${g}` }));

/** /settings/payment-methods: how customers pay (the company's, or a dealer's own). */
export default function PaymentMethodList() {
  const translate = useTranslate();
  const route = useRecordRoute<PaymentMethodResponse>(BASE, 'payment-methods');
  const dealer = useIsDealer();
  const { canAccess: canCreate } = useCanAccess({ resource: 'payment-methods', action: 'create' });
  const { canAccess: canEdit } = useCanAccess({ resource: 'payment-methods', action: 'edit' });
  const { canAccess: canDelete } = useCanAccess({ resource: 'payment-methods', action: 'delete' });
  const owner = (r: PaymentMethodResponse) => r.dealer?.name ?? translate('settings.company_wide');
  const filters = [
    <SearchInput key="q" source="q" alwaysOn />,
    <SelectInput key="type" source="type" label="settings.fields.type" choices={PAYMENT_TYPE_CHOICES} />,
    <SelectInput key="status" source="status" label="catalogue.fields.status" choices={STATUS_CHOICES} />,
  ];
  return (
    <>
      <Breadcrumbs items={[{ label: 'menu.settings', to: '/settings' }, { label: 'menu.settings_payment_methods' }]} />
      <ResourceListPage
        resource="payment-methods"
        title={translate('menu.settings_payment_methods')}
        create={canCreate && { label: 'settings.payment_method.new_title', onClick: route.openCreate }}
        empty="empty.payment_method"
        filters={filters}
        sort={{ field: 'sort_order', order: 'ASC' }}
        phone={
          <SimpleList
            primaryText={(r: PaymentMethodResponse) => r.name}
            secondaryText={(r: PaymentMethodResponse) =>
              [translate(`settings.payment_types.${r.type}`), translate(`settings.payment_gateways.${r.gateway}`), r.account_number].filter(Boolean).join(' · ')
            }
            tertiaryText={(r: PaymentMethodResponse) => translate(`users.status.${r.status}`)}
            leftAvatar={(r: PaymentMethodResponse) => <Logo src={r.logo} icon={PaymentsIcon} />}
            rowClick={(id) => route.path(id)}
          />
        }
        desktop={
          <Datagrid rowClick={(id) => (canEdit ? route.path(id) : false)} bulkActionButtons={canDelete ? <TrashBulkButton /> : false}>
            <FunctionField label="catalogue.fields.logo" render={(r: PaymentMethodResponse) => <Logo src={r.logo} icon={PaymentsIcon} />} />
            <TextField source="name" label="catalogue.fields.name" />
            <FunctionField source="type" label="settings.fields.type" render={(r: PaymentMethodResponse) => translate(`settings.payment_types.${r.type}`)} />
            <FunctionField
              source="gateway"
              label="settings.fields.gateway"
              render={(r: PaymentMethodResponse) => translate(`settings.payment_gateways.${r.gateway}`)}
            />
            <TextField source="account_number" label="settings.fields.account_number" emptyText="—" sortable={false} />
            {!dealer && <FunctionField label="settings.fields.owner" render={owner} />}
            <FunctionField
              source="sort_order"
              label="catalogue.fields.sort_order"
              render={() => <SortArrows resource="payment-methods" disabled={!canEdit} />}
            />
            <FunctionField source="status" label="catalogue.fields.status" render={() => <StatusToggle />} />
            {canDelete && <TrashButton />}
          </Datagrid>
        }
        after={
          <RecordFormDrawer
            resource="payment-methods"
            route={route}
            schemas={{ create: paymentMethodSchema, update: updatePaymentMethodSchema }}
            titles={{ create: 'settings.payment_method.new_title', edit: 'settings.payment_method.edit_title' }}
            transform={keepNewFileOnly('logo')}
          >
            <TextInput source="name" label="catalogue.fields.name" fullWidth />
            <TranslationFields source="name" label="catalogue.fields.name" />
            <SelectInput source="type" label="settings.fields.type" choices={PAYMENT_TYPE_CHOICES} />
            <SelectInput source="gateway" label="settings.fields.gateway" choices={GATEWAY_CHOICES} helperText="settings.payment_method.gateway_help" />
            <TextInput source="account_number" label="settings.fields.account_number" helperText="settings.payment_method.account_help" />
            <TextInput
              source="instructions"
              label="settings.fields.instructions"
              helperText="settings.payment_method.instructions_help"
              fullWidth
              multiline
              minRows={2}
            />
            <TranslationFields source="instructions" label="settings.fields.instructions" multiline />
            <ImageUploadInput source="logo" label="catalogue.fields.logo" />
            <NumberInput source="sort_order" label="catalogue.fields.sort_order" min={0} />
            <SelectInput source="status" label="catalogue.fields.status" choices={STATUS_CHOICES} defaultValue="active" />
            {!dealer && (
              <ReferenceInput source="dealer_id" reference="user-options" sort={USER_OPTIONS_SORT} filter={{ user_type: 'dealer' }}>
                <AutocompleteInput label="settings.fields.dealer" optionText="name" helperText="settings.payment_method.dealer_help" />
              </ReferenceInput>
            )}
          </RecordFormDrawer>
        }
      />
    </>
  );
}
