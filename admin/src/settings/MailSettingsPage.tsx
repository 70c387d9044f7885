import { useState } from 'react';
import { Form, NumberInput, PasswordInput, SaveButton, SelectInput, TextInput, useCanAccess, useNotify, useTranslate } from 'react-admin';
import { Alert, Button, Card, CardContent, CardHeader, Stack, TextField } from '@mui/material';
import SendIcon from '@mui/icons-material/SendOutlined';
import { mailSettingsSchema, MAIL_SECURITY, type MailSettingsResponse } from '@app/contracts';
import { PageTitle } from '../common/PageTitle';
import { FullPageLoader } from '../common/FullPageLoader';
import { LoadError } from '../common/ListParts';
import { sharedResolver } from '../common/zodForm';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { fieldErrors, serverMessage } from '../providers/errors';
import { useSignedInUser } from '../auth/identity';
import { useSettingsGroup } from './useSettingsForm';

/** /settings/mail: the SMTP server (the password is write-only) and a "Send test mail" action. */
export default function MailSettingsPage() {
  const translate = useTranslate();
  const { data, isPending, error, refetch, save } = useSettingsGroup<MailSettingsResponse>('mail');
  const { canAccess: canUpdate } = useCanAccess({ resource: 'settings', action: 'update mail settings' });
  // A failed load says why (the server's message) instead of spinning.
  if (error && !data) {
    return (
      <>
        <PageTitle title={translate('menu.settings_mail')} />
        <LoadError error={error} onRetry={() => refetch()} />
      </>
    );
  }
  if (isPending || !data) return <FullPageLoader />;
  const record = { ...data, host: data.host ?? '', port: data.port ?? 587, password: '' };
  return (
    <>
      <Breadcrumbs items={[{ label: 'menu.settings', to: '/settings' }, { label: 'menu.settings_mail' }]} />
      <PageTitle title={translate('menu.settings_mail')} />
      <Stack spacing={3}>
        <Card>
          <CardContent>
            <Form
              record={record}
              resolver={sharedResolver(mailSettingsSchema)}
              onSubmit={(v: Record<string, unknown>) => save({ ...v, password: v.password || undefined })}
              disabled={!canUpdate}
            >
              <Stack sx={{ maxWidth: 640 }}>
                <TextInput source="host" label="settings.mail.host" fullWidth />
                <NumberInput source="port" label="settings.mail.port" min={1} max={65535} />
                <SelectInput
                  source="security"
                  label="settings.mail.security"
                  choices={MAIL_SECURITY.map((s) => ({ id: s, name: `settings.mail.security_${s}` }))}
                />
                <TextInput source="username" label="settings.mail.username" fullWidth autoComplete="off" />
                <PasswordInput
                  source="password"
                  label="settings.mail.password"
                  helperText={data.password_set ? 'settings.mail.password_kept' : 'settings.mail.password_none'}
                  fullWidth
                  autoComplete="new-password"
                />
                <TextInput source="from_address" label="settings.mail.from_address" type="email" fullWidth />
                <TextInput source="from_name" label="settings.mail.from_name" fullWidth />
                {canUpdate && <SaveButton label="common.save" sx={{ alignSelf: 'flex-start' }} />}
              </Stack>
            </Form>
          </CardContent>
        </Card>
        {canUpdate && <TestMailCard configured={data.configured} />}
      </Stack>
    </>
  );
}

function TestMailCard({ configured }: { configured: boolean }) {
  const translate = useTranslate();
  const notify = useNotify();
  const [to, setTo] = useState(useSignedInUser()?.email ?? '');
  const dataProvider = useConsoleDataProvider();
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const send = async () => {
    setBusy(true);
    setResult(null);
    try {
      const res = await dataProvider.testMail({ to });
      setResult({ ok: true, text: res.message ?? '' });
      notify(res.message ?? '', { type: 'success' });
    } catch (e) {
      setResult({ ok: false, text: fieldErrors(e).to ?? serverMessage(e) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card>
      <CardHeader
        title={translate('settings.mail.test_title')}
        subheader={translate(configured ? 'settings.mail.test_help' : 'settings.mail.test_needs_settings')}
      />
      <CardContent>
        <Stack direction={{ xs: 'column', sm: 'row' }} sx={{ gap: 2, alignItems: { sm: 'center' }, maxWidth: 640 }}>
          <TextField label={translate('settings.mail.test_to')} type="email" value={to} onChange={(e) => setTo(e.target.value)} size="small" fullWidth />
          <Button variant="contained" startIcon={<SendIcon />} disabled={busy || !configured || !to.trim()} onClick={send} sx={{ flexShrink: 0 }}>
            {translate(busy ? 'settings.mail.sending' : 'settings.mail.send_test')}
          </Button>
        </Stack>
        {result && (
          <Alert severity={result.ok ? 'success' : 'error'} sx={{ mt: 2 }} role="status">
            {result.text}
          </Alert>
        )}
      </CardContent>
    </Card>
  );
}
