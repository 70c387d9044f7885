import {
  BulkUpdateButton,
  Datagrid,
  Empty,
  FunctionField,
  SearchInput,
  SelectInput,
  TextField,
  FilterButton,
  SimpleList,
  ReferenceInput,
  useTranslate,
  useCanAccess,
} from 'react-admin';
import { Avatar, Chip, Stack, Typography, useMediaQuery, type Theme } from '@mui/material';
import CheckCircleIcon from '@mui/icons-material/CheckCircleOutlined';
import BlockIcon from '@mui/icons-material/Block';
import { Ltr } from '../common/Ltr';
import { LocaleDateField } from '../common/LocaleDateField';
import { resolveImage } from '../common/image';
import { UserFormDrawer } from './UserFormDrawer';
import { useRecordRoute } from '../common/useRecordRoute';
import { useIsPhone } from '../common/useIsPhone';
import type { UserRecord, UserType } from './types';
import { TrashBulkButton } from '../common/DoneToast';
import { UserTrashButton } from './UserTrashButton';
import { TwoFactorChip, TwoFactorResetButton } from './TwoFactorReset';
import { ResourceListPage } from '../common/ResourceListPage';

const statusChoices = [
  { id: 'active', name: 'users.status.active' },
  { id: 'inactive', name: 'users.status.inactive' },
];

function BulkActions() {
  const { canAccess: canStatus } = useCanAccess({ resource: 'users', action: 'change user status' });
  const { canAccess: canDelete } = useCanAccess({ resource: 'users', action: 'delete' });
  return (
    <>
      {canStatus && <BulkUpdateButton data={{ status: 'active' }} label="users.bulk_activate" icon={<CheckCircleIcon />} mutationMode="pessimistic" />}
      {canStatus && <BulkUpdateButton data={{ status: 'inactive' }} label="users.bulk_deactivate" icon={<BlockIcon />} mutationMode="pessimistic" />}
      {canDelete && <TrashBulkButton />}
    </>
  );
}

/**
 * /admin and /dealers: one screen filtered by user type (docs/product.md section 2), with search,
 * filters, sort, pagination, bulk status and bulk delete; create and edit in the slide-over.
 */
export default function UserList({ userType }: { userType: Exclude<UserType, 'user'> }) {
  const translate = useTranslate();
  const base = userType === 'dealer' ? '/dealers' : '/admin';
  // /dealers/create and /dealers/{id} open the slide-over; a reload keeps it open.
  const drawer = useRecordRoute<UserRecord>(base, 'users');
  const phone = useIsPhone();
  // Dealers have the most columns: the date joins them on wide screens only (1366 px fits the rest;
  // a table still wider scrolls inside its card).
  const wide = useMediaQuery((theme: Theme) => theme.breakpoints.up('xl'));
  const { canAccess: canCreate } = useCanAccess({ resource: 'users', action: 'create' });
  const { canAccess: canEdit } = useCanAccess({ resource: 'users', action: 'edit' });
  const { canAccess: canDelete } = useCanAccess({ resource: 'users', action: 'delete' });
  const dealer = userType === 'dealer';
  const title = translate(dealer ? 'menu.dealers' : 'menu.admins');

  const filters = [
    <SearchInput key="q" source="q" alwaysOn placeholder={translate('users.search_placeholder')} />,
    <SelectInput key="status" source="status" label="users.fields.status" choices={statusChoices} />,
    ...(dealer
      ? []
      : [
          <ReferenceInput key="role_id" source="role_id" reference="roles" label="users.fields.role">
            <SelectInput label="users.fields.role" optionText="name" />
          </ReferenceInput>,
        ]),
  ];

  return (
    <ResourceListPage
      resource="users"
      storeKey={`users.${userType}`}
      filter={{ user_type: userType }}
      title={title}
      create={canCreate && { label: `users.new_title.${userType}`, onClick: drawer.openCreate }}
      // react-admin's own empty page: this list has never had a sentence of its own.
      empty={<Empty />}
      filters={filters}
      // The status and role filters are picked from the Filter button on a desktop too (phones get theirs from the page).
      actions={!phone && <FilterButton />}
      sort={{ field: 'created_at', order: 'DESC' }}
      perPage={10}
      phone={
        <SimpleList
          primaryText={(r: UserRecord) => r.name}
          secondaryText={(r: UserRecord) => r.email}
          tertiaryText={(r: UserRecord) => translate(`users.status.${r.status}`)}
          leftAvatar={(r: UserRecord) => <Avatar src={resolveImage(dealer ? (r.dealer_details?.logo_path ?? r.profile_image) : r.profile_image)} alt="" />}
          rowClick={(id) => (canEdit ? drawer.path(id) : false)}
        />
      }
      desktop={
        <Datagrid bulkActionButtons={<BulkActions />} rowClick={(id) => (canEdit ? drawer.path(id) : false)}>
          <FunctionField
            source="name"
            label="users.fields.name"
            render={(r: UserRecord) => (
              <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center' }}>
                <Avatar src={resolveImage(dealer ? (r.dealer_details?.logo_path ?? r.profile_image) : r.profile_image)} alt="" sx={{ width: 32, height: 32 }} />
                <Typography variant="body2" sx={{ fontWeight: 600 }}>
                  {r.name}
                </Typography>
              </Stack>
            )}
          />
          <TextField source="email" label="users.fields.email" />
          {/* Phone numbers read left to right in Arabic too ("+252..." not "252...+"). */}
          <FunctionField
            source="phone"
            label="users.fields.phone"
            render={(record: { phone?: string | null }) => (record.phone ? <Ltr>{record.phone}</Ltr> : '—')}
          />
          {dealer && (
            <FunctionField
              source="dealer_code"
              label="users.fields.dealer_code"
              render={(r: { dealer_code?: string | null }) => (r.dealer_code ? <Ltr>{r.dealer_code}</Ltr> : '—')}
            />
          )}
          {dealer && <TextField source="dealer_details.company_name" label="users.fields.company_name" sortable={false} emptyText="—" />}
          {dealer && (
            <FunctionField
              label="users.fields.pricing_model"
              sortable={false}
              render={(r: UserRecord) => (r.dealer_details?.pricing_model ? translate(`users.pricing.${r.dealer_details.pricing_model}`) : '—')}
            />
          )}
          {!dealer && <FunctionField label="users.fields.role" sortable={false} render={(r: UserRecord) => r.roles?.map((x) => x.name).join(', ') || '—'} />}
          <FunctionField
            source="status"
            label="users.fields.status"
            render={(r: UserRecord) => (
              <Chip size="small" color={r.status === 'active' ? 'success' : 'default'} label={translate(`users.status.${r.status}`)} />
            )}
          />
          <FunctionField
            label="two_factor.column"
            sortable={false}
            render={(r: UserRecord) => (
              <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                <TwoFactorChip user={r} />
                <TwoFactorResetButton user={r} />
              </Stack>
            )}
          />
          {(wide || !dealer) && <LocaleDateField source="created_at" label="users.fields.created_at" />}
          {canDelete && <UserTrashButton />}
        </Datagrid>
      }
      after={<UserFormDrawer open={drawer.open} userType={userType} record={drawer.record} onClose={drawer.close} />}
    />
  );
}
