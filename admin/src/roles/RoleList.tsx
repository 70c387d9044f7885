import { Datagrid, FunctionField, List, NumberField, SearchInput, SimpleList, TextField, useCanAccess, useTranslate } from 'react-admin';
import { Button, Chip } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import LockIcon from '@mui/icons-material/LockOutlined';
import { PageTitle } from '../common/PageTitle';
import { LocaleDateField } from '../common/LocaleDateField';
import { RoleFormDialog } from './RoleFormDialog';
import { TwoFactorRoleSwitch } from './TwoFactorRoleSwitch';
import { useRecordRoute } from '../common/useRecordRoute';
import { useIsPhone } from '../common/useIsPhone';
import type { RoleRecord } from './types';
import { TrashBulkButton, TrashButton } from '../common/DoneToast';
import { ListEmpty, ListError } from '../common/ListParts';

/** /settings/roles: the role list; create, edit and permission assignment in the modal. */
export default function RoleList() {
  const translate = useTranslate();
  // /settings/roles/create and /settings/roles/{id} open the modal; a reload keeps it open.
  const dialog = useRecordRoute<RoleRecord>('/settings/roles', 'roles');
  const phone = useIsPhone();
  const { canAccess: canCreate } = useCanAccess({ resource: 'roles', action: 'create' });
  const { canAccess: canDelete } = useCanAccess({ resource: 'roles', action: 'delete' });
  const title = translate('menu.roles');
  return (
    <>
      <PageTitle
        title={title}
        actions={
          canCreate && (
            <Button variant="contained" startIcon={<AddIcon />} onClick={dialog.openCreate}>
              {translate('roles.new_title')}
            </Button>
          )
        }
      />
      <List
        resource="roles"
        title={title}
        filters={[<SearchInput key="q" source="q" alwaysOn />]}
        sort={{ field: 'name', order: 'ASC' }}
        perPage={25}
        actions={false}
        empty={<ListEmpty message="empty.roles" />}
        error={<ListError />}
      >
        {phone ? (
          <SimpleList
            primaryText={(r: RoleRecord) => r.name}
            secondaryText={(r: RoleRecord) =>
              [r.requires_two_factor ? translate('roles.two_factor_short') : '', r.description ?? ''].filter(Boolean).join(' · ')
            }
            tertiaryText={(r: RoleRecord) => String(r.users_count ?? 0)}
            rowClick={(id) => dialog.path(id)}
          />
        ) : (
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
        )}
      </List>
      <RoleFormDialog open={dialog.open} record={dialog.record} onClose={dialog.close} />
    </>
  );
}
