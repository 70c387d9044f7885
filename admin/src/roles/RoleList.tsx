import { Datagrid, FunctionField, NumberField, SearchInput, SimpleList, TextField, useCanAccess, useTranslate } from 'react-admin';
import { Chip } from '@mui/material';
import LockIcon from '@mui/icons-material/LockOutlined';
import { LocaleDateField } from '../common/LocaleDateField';
import { RoleFormDialog } from './RoleFormDialog';
import { TwoFactorRoleSwitch } from './TwoFactorRoleSwitch';
import { useRecordRoute } from '../common/useRecordRoute';
import type { RoleRecord } from './types';
import { TrashBulkButton, TrashButton } from '../common/DoneToast';
import { ListEmpty } from '../common/ListParts';
import { ResourceListPage } from '../common/ResourceListPage';

/** /settings/roles: the role list; create, edit and permission assignment in the modal. */
export default function RoleList() {
  const translate = useTranslate();
  // /settings/roles/create and /settings/roles/{id} open the modal; a reload keeps it open.
  const dialog = useRecordRoute<RoleRecord>('/settings/roles', 'roles');
  const { canAccess: canCreate } = useCanAccess({ resource: 'roles', action: 'create' });
  const { canAccess: canDelete } = useCanAccess({ resource: 'roles', action: 'delete' });
  return (
    <ResourceListPage
      resource="roles"
      title={translate('menu.roles')}
      create={canCreate && { label: 'roles.new_title', onClick: dialog.openCreate }}
      // The empty roles list says what will appear, without a second create button.
      empty={<ListEmpty message="empty.roles" />}
      filters={[<SearchInput key="q" source="q" alwaysOn />]}
      sort={{ field: 'name', order: 'ASC' }}
      phone={
        <SimpleList
          primaryText={(r: RoleRecord) => r.name}
          secondaryText={(r: RoleRecord) => [r.requires_two_factor ? translate('roles.two_factor_short') : '', r.description ?? ''].filter(Boolean).join(' · ')}
          tertiaryText={(r: RoleRecord) => String(r.users_count ?? 0)}
          rowClick={(id) => dialog.path(id)}
        />
      }
      desktop={
        <Datagrid bulkActionButtons={canDelete ? <TrashBulkButton /> : false} isRowSelectable={(r) => !r.protected} rowClick={(id) => dialog.path(id)}>
          <FunctionField
            source="name"
            label="roles.fields.name"
            render={(r: RoleRecord) => (
              <>
                {r.name} {r.protected && <Chip size="small" icon={<LockIcon />} label={translate('roles.protected')} sx={{ ml: 1 }} />}
              </>
            )}
          />
          <TextField source="description" label="roles.fields.description" emptyText="—" sortable={false} />
          <FunctionField label="roles.fields.permissions" sortable={false} render={(r: RoleRecord) => r.permissions?.length ?? 0} />
          <NumberField source="users_count" label="roles.fields.users_count" sortable={false} />
          <FunctionField
            label="roles.fields.requires_two_factor"
            sortable={false}
            render={(r: RoleRecord) => <TwoFactorRoleSwitch key={`${r.id}-${r.requires_two_factor}`} role={r} />}
          />
          <LocaleDateField source="created_at" label="roles.fields.created_at" />
          {canDelete && <FunctionField render={(r: RoleRecord) => (r.protected ? null : <TrashButton />)} />}
        </Datagrid>
      }
      after={<RoleFormDialog open={dialog.open} record={dialog.record} onClose={dialog.close} />}
    />
  );
}
