import { LinkBase as RouterLink, useDataProvider, useTranslate } from 'react-admin';
import { useSearchParams } from '../common/useSearchParams';
import { useQuery } from '@tanstack/react-query';
import { Alert, Card, CardContent, CardHeader, CircularProgress, List, ListItemButton, ListItemText, Stack, Typography } from '@mui/material';
import type { ConsoleDataProvider } from '../providers/dataProvider';
import { PageTitle } from '../common/PageTitle';
import { useSession } from '../providers/useSession';
import { hasAnyPermission, hasPermission } from '../permissions/permissions';

interface Hit {
  id: number;
  name: string;
  email?: string;
  user_type?: string;
}

/** /search?q=: the header search over the areas this user may see (users and roles for now). */
export default function SearchPage() {
  const translate = useTranslate();
  const [params] = useSearchParams();
  const q = (params.get('q') ?? '').trim();
  const { permissions } = useSession();
  const areas = [
    hasAnyPermission(permissions, ['view users', 'view admins', 'view dealers']) && ({ resource: 'users', title: 'menu.users' } as const),
    hasPermission(permissions, 'view roles') && ({ resource: 'roles', title: 'menu.roles' } as const),
  ].filter(Boolean) as { resource: 'users' | 'roles'; title: string }[];

  return (
    <>
      <PageTitle title={q ? translate('search.results_for', { q }) : translate('search.title')} />
      {!q ? (
        <Typography color="text.secondary">{translate('search.hint')}</Typography>
      ) : (
        <Stack spacing={2}>
          {areas.map((a) => (
            <SearchArea key={a.resource} resource={a.resource} title={translate(a.title)} q={q} />
          ))}
        </Stack>
      )}
    </>
  );
}

function SearchArea({ resource, title, q }: { resource: 'users' | 'roles'; title: string; q: string }) {
  const translate = useTranslate();
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const result = useQuery({ queryKey: [resource, 'search', q], queryFn: () => dataProvider.search(resource, { q }).then((r) => r.data as unknown as Hit[]) });
  const link = (h: Hit) => (resource === 'roles' ? '/settings/roles' : h.user_type === 'dealer' ? '/dealers' : '/admin');
  return (
    <Card>
      <CardHeader title={title} slotProps={{ title: { component: 'h2', variant: 'h6' } }} />
      <CardContent>
        {result.isPending && <CircularProgress size={24} />}
        {result.isError && <Alert severity="error">{(result.error as Error).message}</Alert>}
        {result.data && result.data.length === 0 && <Typography color="text.secondary">{translate('search.none')}</Typography>}
        <List dense>
          {result.data?.map((h) => (
            <ListItemButton key={h.id} component={RouterLink} to={link(h)}>
              <ListItemText primary={h.name} secondary={h.email} />
            </ListItemButton>
          ))}
        </List>
      </CardContent>
    </Card>
  );
}
