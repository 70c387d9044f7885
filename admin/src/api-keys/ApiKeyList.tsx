import { useMemo, useState } from 'react';
import { useLocation } from 'react-router';
import {
  Confirm,
  Datagrid,
  FunctionField,
  List,
  SelectInput,
  SimpleList,
  useListContext,
  useNotify,
  usePermissions,
  useRefresh,
  useTranslate,
} from 'react-admin';
import { Box, Button, Chip, Link as MuiLink, Stack, Typography } from '@mui/material';
import type { ApiKeyResponse, ApiKeyUseResponse } from '@app/contracts';
import { ListError } from '../common/ListParts';
import { ResourceListPage } from '../common/ResourceListPage';
import { useIsPhone } from '../common/useIsPhone';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { useRecordRoute } from '../common/useRecordRoute';
import { useIsDealer } from '../auth/identity';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { serverMessage } from '../providers/errors';
import { CreateApiKeyDialog, scopeLabel } from './CreateApiKeyDialog';
import { DetailList } from '../common/DetailList';
import { DetailDrawer } from '../common/DetailDrawer';
import { DealerFilterInput } from '../common/userOptions';
import { MODE_CHOICES, ModeChip } from './ModeChip';
import { TestWalletCard } from './TestWalletCard';

const RESOURCE = 'dealer/api-keys';

/** A key's state in one chip: active, or revoked (with when). */
function KeyStatus({ k }: { k: ApiKeyResponse }) {
  const translate = useTranslate();
  const fmt = useCompanyFormat();
  return k.revoked_at ? (
    <Chip size="small" label={translate('api_keys.revoked_on', { date: fmt.dateTime(k.revoked_at) })} />
  ) : (
    <Chip size="small" color="success" variant="outlined" label={translate('api_keys.active')} />
  );
}

const Mono = ({ children, nowrap = false }: { children: string; nowrap?: boolean }) => (
  <Box component="code" dir="ltr" sx={{ fontFamily: 'monospace', fontSize: '0.85em', ...(nowrap ? { whiteSpace: 'nowrap' } : { wordBreak: 'break-all' }) }}>
    {children}
  </Box>
);

/** Revoke with a confirmation saying what happens to the systems using the key. */
function RevokeButton({ k, onDone, variant = 'text' }: { k: ApiKeyResponse; onDone: () => void; variant?: 'text' | 'outlined' }) {
  const translate = useTranslate();
  const notify = useNotify();
  const dataProvider = useConsoleDataProvider();
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const revoke = async () => {
    setBusy(true);
    try {
      await dataProvider.delete(RESOURCE, { id: k.id, previousData: k });
      notify(translate('api_keys.revoked_toast', { name: k.name }), { type: 'success' });
      onDone();
    } catch (e) {
      notify(serverMessage(e), { type: 'error' });
    } finally {
      setBusy(false);
      setAsking(false);
    }
  };
  return (
    <>
      <Button
        color="error"
        size="small"
        variant={variant}
        onClick={(e) => {
          e.stopPropagation();
          setAsking(true);
        }}
        aria-label={`${translate('api_keys.revoke')} ${k.name}`}
      >
        {translate('api_keys.revoke')}
      </Button>
      <Confirm
        isOpen={asking}
        loading={busy}
        title={translate('api_keys.revoke_title', { name: k.name })}
        content={translate('api_keys.revoke_body')}
        confirm="api_keys.revoke"
        confirmColor="warning"
        onConfirm={revoke}
        onClose={() => setAsking(false)}
      />
    </>
  );
}

/** Every call made with one key, newest first (GET /dealer/api-keys/{id}/uses), a page at a time. */
function KeyUses({ k }: { k: ApiKeyResponse }) {
  const translate = useTranslate();
  const fmt = useCompanyFormat();
  return (
    <List
      resource={`${RESOURCE}/${k.h_id}/uses`}
      // The page's guard has checked 'view api keys' (api-keys/index.ts); the registry's canAccess knows no such endpoint.
      disableAuthentication
      disableSyncWithLocation
      sort={{ field: 'id', order: 'DESC' }}
      perPage={10}
      actions={false}
      title=" "
      empty={<Typography color="text.secondary">{translate('api_keys.uses_empty')}</Typography>}
      error={<ListError />}
      sx={{ '& .RaList-main': { boxShadow: 'none' } }}
    >
      <SimpleList
        primaryText={(u: ApiKeyUseResponse) => (
          <span dir="ltr">
            {u.method} {u.path}
          </span>
        )}
        secondaryText={(u: ApiKeyUseResponse) => `${fmt.dateTime(u.created_at)} · ${u.ip ?? '—'} · ${u.duration_ms} ms`}
        tertiaryText={(u: ApiKeyUseResponse) => (
          <Chip size="small" color={u.status < 300 ? 'success' : u.status < 500 ? 'warning' : 'error'} label={u.status} />
        )}
        rowClick={false}
      />
    </List>
  );
}

/** A key's page over the list (/api-keys/{id}): what it may do, from where, when it was used, its calls, and revoke. */
function KeyDrawer({
  k,
  open,
  onClose,
  canManage,
  onChanged,
}: {
  k: ApiKeyResponse | null;
  open: boolean;
  onClose: () => void;
  canManage: boolean;
  onChanged: () => void;
}) {
  const translate = useTranslate();
  const fmt = useCompanyFormat();
  return (
    <DetailDrawer open={open} onClose={onClose} title={k?.name ?? ''} closeLabel={translate('api_keys.close')} width={560}>
      {k && (
        <>
          <DetailList>
            <dt>{translate('api_keys.fields.prefix')}</dt>
            <dd>
              <Mono>{`${k.prefix}_…`}</Mono>
            </dd>
            <dt>{translate('api_keys.fields.dealer')}</dt>
            <dd>{k.dealer.name}</dd>
            <dt>{translate('test_mode.mode')}</dt>
            <dd>
              <ModeChip mode={k.mode} showLive />
            </dd>
            <dt>{translate('api_keys.fields.status')}</dt>
            <dd>
              <KeyStatus k={k} />
            </dd>
            <dt>{translate('api_keys.fields.scopes')}</dt>
            <dd>{k.scopes.map((s) => translate(scopeLabel(s))).join(', ')}</dd>
            <dt>{translate('api_keys.fields.ip_allowlist')}</dt>
            <dd>{k.ip_allowlist.length ? <Mono>{k.ip_allowlist.join(', ')}</Mono> : translate('api_keys.any_address')}</dd>
            <dt>{translate('api_keys.fields.last_used')}</dt>
            <dd>{k.last_used_at ? `${fmt.dateTime(k.last_used_at)}${k.last_used_ip ? ` (${k.last_used_ip})` : ''}` : translate('api_keys.never_used')}</dd>
            <dt>{translate('api_keys.fields.created_at')}</dt>
            <dd>
              {fmt.dateTime(k.created_at)}
              {k.created_by ? ` · ${k.created_by.name}` : ''}
            </dd>
          </DetailList>
          {canManage && !k.revoked_at && (
            <Box>
              <RevokeButton k={k} onDone={onChanged} variant="outlined" />
            </Box>
          )}
          <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
            {translate('api_keys.uses_title', { name: k.name })}
          </Typography>
          <KeyUses k={k} />
        </>
      )}
    </DetailDrawer>
  );
}

function KeyRows({ dealer, canManage, path }: { dealer: boolean; canManage: boolean; path: (id: string | number) => string }) {
  const translate = useTranslate();
  const fmt = useCompanyFormat();
  const phone = useIsPhone();
  const { refetch } = useListContext();
  if (phone)
    return (
      <SimpleList
        primaryText={(k: ApiKeyResponse) => (
          <Stack component="span" direction="row" sx={{ gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
            <span>{k.name}</span>
            <ModeChip mode={k.mode} />
          </Stack>
        )}
        secondaryText={(k: ApiKeyResponse) => (
          <span>
            <Mono>{k.prefix}</Mono>
            {dealer ? '' : ` · ${k.dealer.name}`}
          </span>
        )}
        tertiaryText={(k: ApiKeyResponse) => (k.revoked_at ? translate('api_keys.status_revoked') : translate('api_keys.status_active'))}
        rowClick={(id) => path(id)}
      />
    );
  return (
    <Datagrid bulkActionButtons={false} rowClick={(id) => path(id)}>
      <FunctionField label="api_keys.fields.name" render={(k: ApiKeyResponse) => k.name} />
      <FunctionField label="api_keys.fields.prefix" render={(k: ApiKeyResponse) => <Mono nowrap>{k.prefix}</Mono>} />
      <FunctionField label="test_mode.mode" render={(k: ApiKeyResponse) => <ModeChip mode={k.mode} showLive />} />
      {!dealer && <FunctionField label="api_keys.fields.dealer" render={(k: ApiKeyResponse) => k.dealer.name} />}
      <FunctionField
        label="api_keys.fields.scopes"
        render={(k: ApiKeyResponse) => (
          <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 0.5 }}>
            {k.scopes.map((s) => (
              <Chip key={s} size="small" variant="outlined" label={<span dir="ltr">{s}</span>} title={translate(scopeLabel(s))} />
            ))}
          </Stack>
        )}
      />
      <FunctionField
        label="api_keys.fields.ip_allowlist"
        render={(k: ApiKeyResponse) => (k.ip_allowlist.length ? <Mono>{k.ip_allowlist.join(', ')}</Mono> : translate('api_keys.any_address'))}
      />
      <FunctionField
        label="api_keys.fields.last_used"
        render={(k: ApiKeyResponse) => (k.last_used_at ? fmt.dateTime(k.last_used_at) : translate('api_keys.never_used'))}
      />
      <FunctionField label="api_keys.fields.created_at" render={(k: ApiKeyResponse) => fmt.dateTime(k.created_at)} />
      <FunctionField label="api_keys.fields.status" render={(k: ApiKeyResponse) => <KeyStatus k={k} />} />
      {canManage && <FunctionField label="" render={(k: ApiKeyResponse) => (k.revoked_at ? null : <RevokeButton k={k} onDone={() => void refetch()} />)} />}
    </Datagrid>
  );
}

/** The list's dealer filter as react-admin keeps it in the URL (?filter={"dealer_id":…}): an admin's chosen dealer. */
function useDealerFilter(): string | null {
  const { search } = useLocation();
  return useMemo(() => {
    try {
      const filter: unknown = JSON.parse(new URLSearchParams(search).get('filter') ?? '{}');
      const id = filter && typeof filter === 'object' ? (filter as { dealer_id?: unknown }).dealer_id : undefined;
      return id === undefined || id === null || id === '' ? null : String(id);
    } catch {
      return null;
    }
  }, [search]);
}

/**
 * /api-keys: the reseller API's keys. A dealer sees and makes its own; an admin sees every
 * dealer's (filter by dealer) and picks the dealer of a new key. A row opens the key's page
 * (/api-keys/{id}) with its calls; revoking asks first. Each key is live or test (the sandbox); the
 * test wallet's card above the list shows what test keys' sales are paid from (an admin's: the
 * dealer filtered on).
 */
export default function ApiKeyList() {
  const translate = useTranslate();
  const refresh = useRefresh();
  const dealer = useIsDealer();
  const { permissions } = usePermissions<string[]>();
  const canManage = !!permissions?.includes('manage api keys');
  const route = useRecordRoute<ApiKeyResponse>('/api-keys', RESOURCE);
  const chosenDealer = useDealerFilter();
  const [creating, setCreating] = useState(false);
  const filters = [
    ...(dealer ? [] : [<DealerFilterInput key="dealer_id" source="dealer_id" label="api_keys.fields.dealer" alwaysOn />]),
    <SelectInput
      key="status"
      source="status"
      label="api_keys.fields.status"
      alwaysOn
      choices={[
        { id: 'active', name: 'api_keys.status_active' },
        { id: 'revoked', name: 'api_keys.status_revoked' },
      ]}
    />,
    <SelectInput key="mode" source="mode" label="test_mode.mode" alwaysOn choices={MODE_CHOICES} />,
  ];
  const rows = <KeyRows dealer={dealer} canManage={canManage} path={route.path} />;
  return (
    <ResourceListPage
      resource={RESOURCE}
      // The page's guard has checked 'view api keys' (api-keys/index.ts); the registry's canAccess knows no such endpoint.
      disableAuthentication
      title={translate('api_keys.title')}
      create={canManage && { label: 'api_keys.new', onClick: () => setCreating(true) }}
      intro={
        <>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 2, maxWidth: 900 }}>
            {/* The path is isolated left-to-right, so Arabic text around it does not reorder its slashes. */}
            {translate(dealer ? 'api_keys.help_dealer' : 'api_keys.help_admin', { path: '\u2066/api/reseller/v1\u2069' })}{' '}
            <MuiLink href="/api/v1/docs?urls.primaryName=Reseller%20API" target="_blank" rel="noopener">
              {translate('api_keys.docs')}
            </MuiLink>
          </Typography>
          <TestWalletCard dealerId={dealer ? null : chosenDealer} needsDealer={!dealer} canManage={canManage} />
        </>
      }
      empty="api_keys.empty"
      filters={filters}
      sort={{ field: 'id', order: 'DESC' }}
      // KeyRows picks a phone's simple list or a desktop's table itself.
      phone={rows}
      desktop={rows}
      after={
        <>
          <KeyDrawer
            k={route.record}
            open={route.open}
            onClose={route.close}
            canManage={canManage}
            onChanged={() => {
              refresh();
              route.close();
            }}
          />
          <CreateApiKeyDialog open={creating} pickDealer={!dealer} onClose={() => setCreating(false)} onDone={refresh} />
        </>
      }
    />
  );
}
