import { LinkBase as RouterLink, useDataProvider, useTranslate } from 'react-admin';
import { useSearchParams } from '../common/useSearchParams';
import { useQuery } from '@tanstack/react-query';
import { Alert, Card, CardContent, CardHeader, CircularProgress, List, ListItemButton, ListItemText, Stack, Typography } from '@mui/material';
import type { ConsoleDataProvider } from '../providers/dataProvider';
import { PageTitle } from '../common/PageTitle';
import { useSession } from '../providers/useSession';
import { hasAnyPermission } from '../permissions/permissions';
import { RESOURCE_LIST } from '@app/contracts/resources';
import { recordPath } from '../resources/registry';

interface Hit {
  id: number;
  [field: string]: unknown;
}

/** The global-search groups: registry resources marked globalSearch, each shown to those who may read it. */
const GROUPS = RESOURCE_LIST.filter((r) => r.globalSearch);

/** /search?q=: the header search over the areas this user may see; each result opens its record. */
export default function SearchPage() {
  const translate = useTranslate();
  const [params] = useSearchParams();
  const q = (params.get('q') ?? '').trim();
  const { permissions } = useSession();
  const areas = GROUPS.filter((def) => hasAnyPermission(permissions, def.permissions.view)).map((def) => ({ resource: def.name, title: def.labelKey, field: def.recordRepresentation }));

  return (
    <>
      <PageTitle title={q ? translate('search.results_for', { q }) : translate('search.title')} />
      {!q ? (
        <Typography color="text.secondary">{translate('search.hint')}</Typography>
      ) : (
        <Stack spacing={2}>
          {areas.map((a) => (
            <SearchArea key={a.resource} resource={a.resource} field={a.field} title={translate(a.title)} q={q} />
          ))}
        </Stack>
      )}
    </>
  );
}

function SearchArea({ resource, field, title, q }: { resource: string; field: string; title: string; q: string }) {
  const translate = useTranslate();
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const result = useQuery({ queryKey: [resource, 'search', q], queryFn: () => dataProvider.search(resource, { q }).then((r) => r.data as unknown as Hit[]) });
  return (
    <Card>
      <CardHeader title={title} slotProps={{ title: { component: 'h2', variant: 'h6' } }} />
      <CardContent>
        {result.isPending && <CircularProgress size={24} />}
        {result.isError && <Alert severity="error">{(result.error as Error).message}</Alert>}
        {result.data && result.data.length === 0 && <Typography color="text.secondary">{translate('search.none')}</Typography>}
        <List dense>
          {result.data?.map((h) => (
            <ListItemButton key={h.id} component={RouterLink} to={recordPath(resource, h as Parameters<typeof recordPath>[1])}>
              <ListItemText primary={String(h[field] ?? '')} secondary={typeof h.email === 'string' ? h.email : undefined} />
            </ListItemButton>
          ))}
        </List>
      </CardContent>
    </Card>
  );
}
