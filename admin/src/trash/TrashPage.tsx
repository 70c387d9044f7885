import { LinkBase as RouterLink, Datagrid, FunctionField, List, SearchInput, SimpleList, TextField, useTranslate } from 'react-admin';
import { Tab, Tabs } from '@mui/material';
import { Navigate } from 'react-router';
import { PageTitle } from '../common/PageTitle';
import { LocaleDateField } from '../common/LocaleDateField';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { useIsPhone } from '../common/useIsPhone';
import { resourceDef, TRASH_TABS } from '../resources/registry';
import { TrashBulkActions, TrashRowActions } from './TrashActions';
import { useUserPermissions } from '../auth/identity';
import { hasAnyPermission } from '../permissions/permissions';

/**
 * /trash and /trash/{resource}: soft-deleted records with restore and force delete, one tab per
 * resource with a trash that the user may read (/trash opens the first of them; the page guard has
 * checked the tab asked for).
 */
export default function TrashPage({ resource: asked }: { resource?: string }) {
  const translate = useTranslate();
  const phone = useIsPhone();
  const fmt = useCompanyFormat();
  const permissions = useUserPermissions();
  const tabs = TRASH_TABS.filter((tab) => hasAnyPermission([...permissions], tab.readWith));
  const resource = asked ?? tabs[0]?.resource;
  const name = resourceDef(resource ?? '')?.recordRepresentation ?? 'name';
  if (!resource) return <Navigate to="/unauthorized" replace />;
  return (
    <>
      <PageTitle title={translate('menu.trash')} />
      <Tabs value={resource} sx={{ mb: 2 }} aria-label={translate('menu.trash')} variant="scrollable">
        {tabs.map((tab) => (
          <Tab key={tab.resource} value={tab.resource} label={translate(tab.label)} component={RouterLink} to={tab.path} />
        ))}
      </Tabs>
      <List
        key={resource}
        resource={resource}
        storeKey={`trash.${resource}`}
        queryOptions={{ meta: { trashed: true } }}
        filters={[<SearchInput key="q" source="q" alwaysOn />]}
        sort={{ field: 'deleted_at', order: 'DESC' }}
        actions={false}
        title={translate('menu.trash')}
        empty={false}
      >
        {phone ? (
          <SimpleList
            primaryText={(r) => String(r[name] ?? '')}
            secondaryText={(r) => (r.email as string) ?? ''}
            tertiaryText={(r) => fmt.dateTime(r.deleted_at)}
            rowClick={false}
          />
        ) : (
          <Datagrid bulkActionButtons={<TrashBulkActions resource={resource} />} rowClick={false}>
            <TextField source={name} label={name === 'title' ? 'banners.fields.title' : 'users.fields.name'} />
            {resource === 'users' && <TextField source="email" label="users.fields.email" />}
            {resource === 'users' && (
              <FunctionField
                label="users.fields.user_type"
                sortable={false}
                render={(r: { user_type?: string }) => (r.user_type ? translate(`users.types.${r.user_type}`) : '—')}
              />
            )}
            <LocaleDateField source="deleted_at" label="trash.deleted_at" showTime />
            <TrashRowActions resource={resource} />
          </Datagrid>
        )}
      </List>
    </>
  );
}
