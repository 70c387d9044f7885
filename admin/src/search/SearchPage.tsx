import { LinkBase as RouterLink, useTranslate } from 'react-admin';
import { useSearchParams } from '../common/useSearchParams';
import { useQuery } from '@tanstack/react-query';
import { Alert, Card, CardContent, CardHeader, CircularProgress, List, ListItem, ListItemButton, ListItemText, Stack, Typography } from '@mui/material';
import { RECHARGE_STATUSES } from '@app/contracts';
import { PageTitle } from '../common/PageTitle';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { useConsoleDataProvider } from '../providers/dataProvider';

interface Hit {
  id: number;
  title: string;
  subtitle: string | null;
  provider_id?: number;
  category_id?: number;
}
type Results = Record<'users' | 'dealers' | 'providers' | 'bundles' | 'recharges', Hit[]>;

type Translate = (key: string, options?: Record<string, unknown>) => string;

/**
 * A result's second line in the user's words. The API writes a sale's as "bundle · 0.50 · refunded"
 * and a bundle's as "operator · category · 0.50" (api/src/search/search.service.ts): the status word
 * is the API's code, and the amount has no currency. Other lines (emails, codes) are shown as they are.
 */
export function subtitleText(group: keyof Results, subtitle: string | null, translate: Translate, currency: string): string | undefined {
  if (!subtitle) return undefined;
  if (group !== 'recharges' && group !== 'bundles') return subtitle;
  const parts = subtitle.split(' · ');
  return parts
    .map((part, i) => {
      if (group === 'recharges' && i === parts.length - 1 && (RECHARGE_STATUSES as readonly string[]).includes(part))
        return translate(`recharges.status.${part}`, { _: part });
      // The amount (the sale's second part, the bundle's last): in major units already, with the company's currency.
      const isAmount = group === 'recharges' ? i === 1 : i === parts.length - 1;
      if (isAmount && /^-?\d+\.\d{2}$/.test(part)) return `\u2066${part} ${currency}\u2069`;
      // Each name in its own direction (an English bundle name in Arabic: "1 GB Daily", not "GB Daily 1").
      return `\u2068${part}\u2069`;
    })
    .join(' · ');
}

/** Each group of GET /search: its heading and where a result opens. */
const GROUPS: { key: keyof Results; title: string; path: (h: Hit) => string }[] = [
  { key: 'recharges', title: 'menu.recharges', path: (h) => `/recharges/${h.id}` },
  { key: 'dealers', title: 'menu.dealers', path: (h) => `/dealers/${h.id}` },
  { key: 'users', title: 'menu.admins', path: (h) => `/admin/${h.id}` },
  { key: 'providers', title: 'menu.internet_providers', path: (h) => `/internet-providers/${h.id}` },
  { key: 'bundles', title: 'menu.bundles', path: (h) => `/internet-providers/${h.provider_id}/categories/${h.category_id}/bundles/${h.id}` },
];

/**
 * /search?q=: the header search, one call to GET /search, which answers only the groups this
 * user may see (recharges by phone or reference); each result opens its record.
 */
export default function SearchPage() {
  const translate = useTranslate();
  const { currency } = useCompanyFormat();
  const [params] = useSearchParams();
  const q = (params.get('q') ?? '').trim();
  const dataProvider = useConsoleDataProvider();
  const result = useQuery({ queryKey: ['search', q], enabled: q.length >= 2, queryFn: async () => (await dataProvider.globalSearch<Results>({ q })).data });
  const groups = GROUPS.filter((g) => (result.data?.[g.key]?.length ?? 0) > 0);
  return (
    <>
      <PageTitle title={q ? translate('search.results_for', { q }) : translate('search.title')} />
      {q.length < 2 ? (
        <Typography color="text.secondary">{translate('search.hint')}</Typography>
      ) : (
        <Stack spacing={2}>
          {result.isPending && <CircularProgress size={24} />}
          {result.isError && <Alert severity="error">{(result.error as Error).message}</Alert>}
          {result.data && groups.length === 0 && <Typography color="text.secondary">{translate('search.none')}</Typography>}
          {groups.map((g) => (
            <Card key={g.key}>
              <CardHeader title={translate(g.title)} slotProps={{ title: { component: 'h2', variant: 'h6' } }} />
              <CardContent>
                <List dense>
                  {/* Each link in its own list item: a list holds only <li>s. */}
                  {result.data![g.key].map((h) => (
                    <ListItem key={h.id} disablePadding>
                      <ListItemButton component={RouterLink} to={g.path(h)}>
                        <ListItemText primary={h.title} secondary={subtitleText(g.key, h.subtitle, translate, currency)} />
                      </ListItemButton>
                    </ListItem>
                  ))}
                </List>
              </CardContent>
            </Card>
          ))}
        </Stack>
      )}
    </>
  );
}
