import { useMemo, useState } from 'react';
import { useGetList, useGetOne, useLocation, useNavigate, usePermissions, useRefresh, useTranslate, type Identifier } from 'react-admin';
import { Autocomplete, Card, CardContent, TextField, Typography } from '@mui/material';
import type { WebhookDeliveryResponse } from '@app/contracts';
import { PageTitle } from '../common/PageTitle';
import { useRecordRoute } from '../common/useRecordRoute';
import { useIsDealer } from '../auth/identity';
import { WebhookSettingsCard } from './WebhookSettingsCard';
import { DeliveryDrawer, DELIVERIES, WebhookDeliveryLog } from './WebhookDeliveryLog';

interface DealerOption {
  id: Identifier;
  name: string;
  dealer_code?: string | null;
}

const optionLabel = (d: DealerOption) => `${d.name}${d.dealer_code ? ` (${d.dealer_code})` : ''}`;

/** The delivery log's filter, as react-admin keeps it in the query string (?filter={...}). */
function useListFilter(): [Record<string, unknown>, (patch: Record<string, unknown>) => void] {
  const location = useLocation();
  const navigate = useNavigate();
  const filter = useMemo(() => {
    try {
      const parsed: unknown = JSON.parse(new URLSearchParams(location.search).get('filter') ?? '{}');
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }, [location.search]);
  const change = (patch: Record<string, unknown>) => {
    const params = new URLSearchParams(location.search);
    const next: Record<string, unknown> = { ...filter, ...patch };
    for (const k of Object.keys(next)) if (next[k] === undefined || next[k] === null || next[k] === '') delete next[k];
    params.set('filter', JSON.stringify(next));
    params.set('page', '1');
    navigate({ pathname: location.pathname, search: `?${params.toString()}` });
  };
  return [filter, change];
}

/**
 * An admin's choice of dealer: its webhook shows above and the log below keeps to it. Kept as the
 * log's `dealer_id` filter in the URL, so the page can be shared and reloaded as it is.
 */
function DealerPicker({ dealerId, onChange }: { dealerId: Identifier | null; onChange: (id: Identifier | null) => void }) {
  const translate = useTranslate();
  const [search, setSearch] = useState('');
  const { data: options = [] } = useGetList<DealerOption>('user-options', {
    filter: { user_type: 'dealer', q: search || undefined },
    pagination: { page: 1, perPage: 20 },
    sort: { field: 'name', order: 'ASC' },
  });
  const { data: chosen } = useGetOne<DealerOption>('user-options', { id: dealerId! }, { enabled: dealerId !== null });
  // The URL keeps the id as typed; the option's id is a number.
  const value = dealerId !== null && chosen && String(chosen.id) === String(dealerId) ? chosen : null;
  return (
    <Card sx={{ mb: 2 }}>
      <CardContent>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
          {translate('webhooks.pick_dealer_help')}
        </Typography>
        <Autocomplete
          options={value && !options.some((o) => o.id === value.id) ? [value, ...options] : options}
          value={value}
          getOptionLabel={optionLabel}
          isOptionEqualToValue={(a, b) => a.id === b.id}
          filterOptions={(x) => x}
          onChange={(_e, d) => onChange(d ? d.id : null)}
          onInputChange={(_e, text, reason) => reason === 'input' && setSearch(text)}
          sx={{ maxWidth: 420 }}
          renderInput={(params) => <TextField {...params} label={translate('webhooks.fields.dealer')} size="small" />}
        />
      </CardContent>
    </Card>
  );
}

/**
 * /webhooks: a dealer's webhook (URL, the signing secret's end, rotation, a test event) and the
 * log of what was sent to it, with resend. A dealer sees its own; an admin picks a dealer for the
 * settings and sees every dealer's deliveries (or the chosen one's). A delivery opens over the
 * log at /webhooks/{id}.
 */
export default function WebhookPage() {
  const translate = useTranslate();
  const refresh = useRefresh();
  const dealer = useIsDealer();
  const { permissions } = usePermissions<string[]>();
  const canManage = !!permissions?.includes('manage webhooks');
  const route = useRecordRoute<WebhookDeliveryResponse>('/webhooks', DELIVERIES);
  const [filter, setFilter] = useListFilter();
  const chosen = !dealer && filter.dealer_id !== undefined ? (filter.dealer_id as Identifier) : null;
  return (
    <>
      <PageTitle title={translate('webhooks.title')} />
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2, maxWidth: 900 }}>
        {translate(dealer ? 'webhooks.help_dealer' : 'webhooks.help_admin')}
      </Typography>
      {!dealer && <DealerPicker dealerId={chosen} onChange={(id) => setFilter({ dealer_id: id })} />}
      {(dealer || chosen !== null) && <WebhookSettingsCard dealerId={chosen} canManage={canManage} onSent={refresh} />}
      <WebhookDeliveryLog showDealer={!dealer && chosen === null} path={route.path} />
      <DeliveryDrawer
        d={route.record}
        open={route.open}
        onClose={route.close}
        canManage={canManage}
        onChanged={() => {
          refresh();
        }}
      />
    </>
  );
}
