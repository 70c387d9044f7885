import { LinkBase as RouterLink, Datagrid, FunctionField, List, SearchInput, TextField, useTranslate } from 'react-admin';
import { Tab, Tabs } from '@mui/material';
import { PageTitle } from '../common/PageTitle';
import { LocaleDateField } from '../common/LocaleDateField';
import { TrashBulkActions, TrashRowActions } from './TrashActions';

/** /trash, /trash/users and /trash/roles: soft-deleted records with restore and force delete. */
export default function TrashPage({ resource }: { resource: 'users' | 'roles' }) {
  const translate = useTranslate();
  return (
    <>
      <PageTitle title={translate('menu.trash')} />
      <Tabs value={resource} sx={{ mb: 2 }} aria-label={translate('menu.trash')}>
        <Tab value="users" label={translate('menu.trash_users')} component={RouterLink} to="/trash/users" />
        <Tab value="roles" label={translate('menu.trash_roles')} component={RouterLink} to="/trash/roles" />
      </Tabs>
      <List
        key={resource}
        resource={resource}
        storeKey={`trash.${resource}`}
        queryOptions={{ meta: { trashed: true } }}
        filters={[<SearchInput key="q" source="q" alwaysOn />]}
        sort={{ field: 'deleted_at', order: 'DESC' }}
        disableSyncWithLocation
        actions={false}
        title={translate('menu.trash')}
        empty={false}
      >
        <Datagrid bulkActionButtons={<TrashBulkActions resource={resource} />} rowClick={false}>
          <TextField source="name" label="users.fields.name" />
          {resource === 'users' && <TextField source="email" label="users.fields.email" />}
          {resource === 'users' && (
            <FunctionField label="users.fields.user_type" sortable={false} render={(r: { user_type?: string }) => (r.user_type ? translate(`users.types.${r.user_type}`) : '—')} />
          )}
          <LocaleDateField source="deleted_at" label="trash.deleted_at" showTime />
          <TrashRowActions resource={resource} />
        </Datagrid>
      </List>
    </>
  );
}
