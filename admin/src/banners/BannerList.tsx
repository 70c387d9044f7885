import {
  AutocompleteInput,
  Datagrid,
  FunctionField,
  NumberField,
  NumberInput,
  ReferenceInput,
  SearchInput,
  SelectInput,
  SimpleList,
  TextField,
  TextInput,
  required,
  useCanAccess,
  useTranslate,
} from 'react-admin';
import { ImageUploadInput } from '../common/ImageUploadInput';
import { bannerSchema, updateBannerSchema, type BannerResponse } from '@app/contracts';
import { LocaleDateField } from '../common/LocaleDateField';
import { resolveImage } from '../common/image';
import { useRecordRoute } from '../common/useRecordRoute';
import { useIsDealer } from '../auth/identity';
import { RecordFormDrawer } from '../resources/RecordFormDrawer';
import { TranslationFields } from '../common/TranslationFields';
import { StatusToggle } from '../resources/StatusToggle';
import { TrashBulkButton, TrashButton } from '../common/DoneToast';
import { ResourceListPage } from '../common/ResourceListPage';
import { USER_OPTIONS_SORT } from '../common/userOptions';

const STATUS = [
  { id: 'active', name: 'users.status.active' },
  { id: 'inactive', name: 'users.status.inactive' },
];
const thumb = (r: BannerResponse) => (
  <img src={resolveImage(r.image)} alt="" width={96} height={40} style={{ objectFit: 'cover', borderRadius: 4 }} loading="lazy" />
);
// An unchanged image stays a URL string: only a new file is sent.
const keepNewImageOnly = (d: Record<string, unknown>) => (typeof d.image === 'string' || d.image == null ? { ...d, image: undefined } : d);

/** /banners: storefront banners (a dealer's own, or global for admins), with their form at /banners/create and /banners/{id}. */
export default function BannerList() {
  const translate = useTranslate();
  const route = useRecordRoute<BannerResponse>('/banners', 'banners');
  const dealer = useIsDealer();
  const { canAccess: canCreate } = useCanAccess({ resource: 'banners', action: 'create' });
  const { canAccess: canDelete } = useCanAccess({ resource: 'banners', action: 'delete' });
  const dealerName = (r: BannerResponse) => r.dealer?.name ?? translate('banners.all_storefronts');
  const filters = [<SearchInput key="q" source="q" alwaysOn />, <SelectInput key="status" source="status" label="banners.fields.status" choices={STATUS} />];
  return (
    <ResourceListPage
      resource="banners"
      title={translate('menu.banners')}
      create={canCreate && { label: 'banners.new_title', onClick: route.openCreate }}
      empty="empty.banners"
      filters={filters}
      sort={{ field: 'sort_order', order: 'ASC' }}
      phone={
        <SimpleList
          primaryText={(r: BannerResponse) => r.title}
          secondaryText={dealerName}
          tertiaryText={(r: BannerResponse) => translate(`users.status.${r.status}`)}
          leftAvatar={thumb}
          rowClick={(id) => route.path(id)}
        />
      }
      desktop={
        <Datagrid rowClick={(id) => route.path(id)} bulkActionButtons={canDelete ? <TrashBulkButton /> : false}>
          <FunctionField label="banners.fields.image" render={thumb} />
          <TextField source="title" label="banners.fields.title" />
          <TextField source="link_url" label="banners.fields.link_url" emptyText="—" sortable={false} />
          {!dealer && <FunctionField label="banners.fields.dealer" render={dealerName} />}
          <NumberField source="sort_order" label="banners.fields.sort_order" />
          <FunctionField source="status" label="banners.fields.status" render={() => <StatusToggle />} />
          <LocaleDateField source="updated_at" label="banners.fields.updated_at" />
          {canDelete && <TrashButton />}
        </Datagrid>
      }
      after={
        <RecordFormDrawer
          resource="banners"
          route={route}
          schemas={{ create: bannerSchema, update: updateBannerSchema }}
          titles={{ create: 'banners.new_title', edit: 'banners.edit_title' }}
          transform={keepNewImageOnly}
        >
          <TextInput source="title" label="banners.fields.title" fullWidth />
          <TranslationFields source="title" label="banners.fields.title" />
          <ImageUploadInput source="image" label="banners.fields.image" validate={route.mode === 'create' ? required() : undefined} />
          <TextInput source="link_url" label="banners.fields.link_url" fullWidth type="url" />
          <NumberInput source="sort_order" label="banners.fields.sort_order" min={0} />
          <SelectInput source="status" label="banners.fields.status" choices={STATUS} defaultValue="active" />
          {!dealer && (
            <ReferenceInput source="dealer_id" reference="user-options" sort={USER_OPTIONS_SORT} filter={{ user_type: 'dealer' }}>
              <AutocompleteInput label="banners.fields.dealer" optionText="name" helperText="banners.dealer_help" />
            </ReferenceInput>
          )}
        </RecordFormDrawer>
      }
    />
  );
}
