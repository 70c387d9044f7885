import { useEffect, useState } from 'react';
import { Confirm, useNotify, useTranslate, type Identifier } from 'react-admin';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, AlertTitle, Box, Button, Card, CardContent, CardHeader, Stack, TextField, Typography } from '@mui/material';
import SendIcon from '@mui/icons-material/SendOutlined';
import AutorenewIcon from '@mui/icons-material/Autorenew';
import { webhookEndpointSchema, type WebhookEndpointResponse, type WebhookEndpointWithSecret } from '@app/contracts';
import { LoadError } from '../common/ListParts';
import { Ltr } from '../common/Ltr';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { fieldErrors, serverMessage } from '../providers/errors';
import { SecretDialog } from './SecretDialog';
import { DetailList } from '../common/DetailList';

type Endpoint = WebhookEndpointResponse | (WebhookEndpointWithSecret & { secret?: string });

/**
 * A dealer's webhook endpoint (GET/PUT/DELETE /dealer/webhook): where events go, the end of the
 * signing secret (the whole secret shows once, when made and on each rotation), rotation after a
 * confirmation, a test event and removal. An endpoint whose receiver answered 410 Gone is shown
 * disabled, with when and why; saving its address (the same one: "Enable again") enables it.
 * `dealerId` is null for a dealer (itself) and the admin's chosen dealer otherwise.
 */
export function WebhookSettingsCard({ dealerId, canManage, onSent }: { dealerId: Identifier | null; canManage: boolean; onSent: () => void }) {
  const translate = useTranslate();
  const notify = useNotify();
  const fmt = useCompanyFormat();
  const dataProvider = useConsoleDataProvider();
  const queryClient = useQueryClient();
  const queryKey = ['dealer/webhook', dealerId ?? 'me'];
  const { data, error, isPending, refetch } = useQuery({
    queryKey,
    queryFn: async () => (await dataProvider.webhook<WebhookEndpointResponse | null>({ dealerId, method: 'GET' })).data ?? null,
    retry: false,
  });
  const [url, setUrl] = useState('');
  const [urlError, setUrlError] = useState<string | null>(null);
  const [busy, setBusy] = useState<null | 'save' | 'enable' | 'rotate' | 'remove' | 'test'>(null);
  const [asking, setAsking] = useState<null | 'rotate' | 'remove'>(null);
  const [secret, setSecret] = useState<{ value: string; rotated: boolean } | null>(null);

  // The field follows the saved URL (another dealer picked, a save, a removal).
  useEffect(() => {
    setUrl(data?.url ?? '');
    setUrlError(null);
  }, [data?.url, dealerId]);

  const remember = (endpoint: Endpoint | null) => queryClient.setQueryData(queryKey, endpoint ? { ...endpoint, secret: undefined } : null);

  const save = async (value = url, action: 'save' | 'enable' = 'save') => {
    const checked = webhookEndpointSchema.safeParse({ url: value });
    if (!checked.success) {
      const message = checked.error.issues[0]?.message ?? 'validation:webhook_url_invalid';
      setUrlError(translate(message, { _: message }));
      return;
    }
    setBusy(action);
    setUrlError(null);
    try {
      const res = await dataProvider.webhook<Endpoint>({ dealerId, method: 'PUT', data: { url: checked.data.url } });
      remember(res.data);
      notify(res.message ?? 'webhooks.saved', { type: 'success' });
      if ('secret' in res.data && res.data.secret) setSecret({ value: res.data.secret, rotated: false });
    } catch (e) {
      const fields = fieldErrors(e);
      setUrlError(fields.url ?? serverMessage(e));
    } finally {
      setBusy(null);
    }
  };

  const rotate = async () => {
    setBusy('rotate');
    try {
      const res = await dataProvider.webhook<WebhookEndpointWithSecret>({ dealerId, method: 'POST', action: 'rotate-secret' });
      remember(res.data);
      setSecret({ value: res.data.secret, rotated: true });
    } catch (e) {
      notify(serverMessage(e), { type: 'error' });
    } finally {
      setBusy(null);
      setAsking(null);
    }
  };

  const remove = async () => {
    setBusy('remove');
    try {
      const res = await dataProvider.webhook({ dealerId, method: 'DELETE' });
      remember(null);
      notify(res.message ?? 'webhooks.removed', { type: 'success' });
      onSent();
    } catch (e) {
      notify(serverMessage(e), { type: 'error' });
    } finally {
      setBusy(null);
      setAsking(null);
    }
  };

  const test = async () => {
    setBusy('test');
    try {
      const res = await dataProvider.webhook({ dealerId, method: 'POST', action: 'test' });
      notify(res.message ?? 'webhooks.test_queued', { type: 'success' });
      onSent();
    } catch (e) {
      notify(serverMessage(e), { type: 'error' });
    } finally {
      setBusy(null);
    }
  };

  const title = translate('webhooks.endpoint_title');
  if (error)
    return (
      <Card component="section" aria-label={title}>
        <CardHeader title={title} />
        <CardContent>
          <LoadError error={error} onRetry={() => refetch()} />
        </CardContent>
      </Card>
    );

  return (
    <Card component="section" aria-label={title}>
      <CardHeader
        title={title}
        subheader={translate(data ? 'webhooks.endpoint_help_set' : 'webhooks.endpoint_help_none')}
        slotProps={{ title: { component: 'h2', variant: 'h6' } }}
      />
      <CardContent sx={{ pt: 0 }}>
        <Stack spacing={2} sx={{ maxWidth: 760 }}>
          <Stack direction={{ xs: 'column', sm: 'row' }} sx={{ gap: 1, alignItems: { sm: 'flex-start' } }}>
            <TextField
              label={translate('webhooks.fields.url')}
              value={url}
              onChange={(e) => setUrl(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter' && canManage) void save();
              }}
              placeholder="https://example.com/webhooks/bundles"
              error={!!urlError}
              helperText={urlError ?? translate('webhooks.url_help')}
              disabled={!canManage || isPending}
              fullWidth
              size="small"
              slotProps={{ htmlInput: { dir: 'ltr', spellCheck: false, maxLength: 500, inputMode: 'url' } }}
            />
            {canManage && (
              <Button
                variant="contained"
                onClick={() => save()}
                disabled={busy !== null || isPending || url.trim() === (data?.url ?? '')}
                sx={{ flexShrink: 0 }}
              >
                {translate(busy === 'save' ? 'webhooks.saving' : data ? 'webhooks.save' : 'webhooks.set')}
              </Button>
            )}
          </Stack>
          {data?.disabled_at && (
            <Alert
              severity="error"
              action={
                canManage ? (
                  <Button color="inherit" size="small" onClick={() => save(data.url, 'enable')} disabled={busy !== null}>
                    {translate(busy === 'enable' ? 'webhooks.saving' : 'webhooks.enable')}
                  </Button>
                ) : undefined
              }
            >
              <AlertTitle>{translate('webhooks.disabled_title', { date: fmt.dateTime(data.disabled_at) })}</AlertTitle>
              {translate('webhooks.disabled_gone')} {translate('webhooks.disabled_how')}
            </Alert>
          )}
          {data && (
            <>
              <DetailList>
                <dt>{translate('webhooks.fields.secret')}</dt>
                <dd>
                  <Box component="code" sx={{ fontFamily: 'monospace' }}>
                    <Ltr>{`whsec_${data.secret_hint}`}</Ltr>
                  </Box>
                </dd>
                {data.updated_at && (
                  <>
                    <dt>{translate('webhooks.fields.updated_at')}</dt>
                    <dd>{fmt.dateTime(data.updated_at)}</dd>
                  </>
                )}
              </DetailList>
              {data.previous_secret_expires_at && (
                <Alert severity="info">{translate('webhooks.previous_secret_until', { date: fmt.dateTime(data.previous_secret_expires_at) })}</Alert>
              )}
              {canManage && (
                <Stack direction={{ xs: 'column', sm: 'row' }} sx={{ gap: 1, flexWrap: 'wrap' }}>
                  <Button variant="outlined" startIcon={<SendIcon />} onClick={test} disabled={busy !== null || !!data.disabled_at}>
                    {translate(busy === 'test' ? 'webhooks.sending' : 'webhooks.send_test')}
                  </Button>
                  <Button variant="outlined" startIcon={<AutorenewIcon />} onClick={() => setAsking('rotate')} disabled={busy !== null}>
                    {translate('webhooks.rotate')}
                  </Button>
                  <Button color="error" onClick={() => setAsking('remove')} disabled={busy !== null}>
                    {translate('webhooks.remove')}
                  </Button>
                </Stack>
              )}
              <VerifyHelp />
            </>
          )}
        </Stack>
      </CardContent>
      <Confirm
        isOpen={asking === 'rotate'}
        loading={busy === 'rotate'}
        title={translate('webhooks.rotate_title')}
        content={translate('webhooks.rotate_body')}
        confirm="webhooks.rotate"
        confirmColor="warning"
        onConfirm={rotate}
        onClose={() => setAsking(null)}
      />
      <Confirm
        isOpen={asking === 'remove'}
        loading={busy === 'remove'}
        title={translate('webhooks.remove_title')}
        content={translate('webhooks.remove_body')}
        confirm="webhooks.remove"
        confirmColor="warning"
        onConfirm={remove}
        onClose={() => setAsking(null)}
      />
      <SecretDialog secret={secret?.value ?? null} rotated={!!secret?.rotated} onClose={() => setSecret(null)} />
    </Card>
  );
}

/** How a receiver checks an event: the three Standard Webhooks headers, their names kept left-to-right in Arabic. */
function VerifyHelp() {
  const translate = useTranslate();
  const rows: [string, string][] = [
    ['webhook-id', 'webhooks.verify_id'],
    ['webhook-timestamp', 'webhooks.verify_timestamp'],
    ['webhook-signature', 'webhooks.verify_signature'],
  ];
  return (
    <Box component="section" aria-label={translate('webhooks.verify_title')} sx={{ color: 'text.secondary' }}>
      <Typography variant="body2" sx={{ fontWeight: 600 }}>
        {translate('webhooks.verify_title')}
      </Typography>
      <Box component="ul" sx={{ m: 0, mt: 0.5, ps: 2.5, typography: 'body2', '& li': { mb: 0.5 } }}>
        {rows.map(([header, text]) => (
          <li key={header}>
            <Box component="code" dir="ltr" sx={{ fontFamily: 'monospace', color: 'text.primary' }}>
              {header}
            </Box>
            : {translate(text)}
          </li>
        ))}
      </Box>
    </Box>
  );
}
