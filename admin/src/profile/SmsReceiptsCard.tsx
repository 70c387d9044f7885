import { useEffect, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { Alert, Card, CardContent, CardHeader, FormControlLabel, Switch, Typography } from '@mui/material';
import { apiFetch } from '../providers/http';

interface SmsSettings {
  sms_receipts: boolean;
  available: boolean;
}

/**
 * A dealer's SMS receipts (GET/PUT /sms/settings): on by default, each customer gets an SMS after a
 * delivery or a failure. The dealer's own (no dealerId), or staff's for a dealer (dealerId).
 */
export function SmsReceiptsCard({ dealerId }: { dealerId?: number | string }) {
  const translate = useTranslate();
  const notify = useNotify();
  const [settings, setSettings] = useState<SmsSettings | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const query = dealerId === undefined ? undefined : { dealer_id: String(dealerId) };
  useEffect(() => {
    let live = true;
    apiFetch<SmsSettings>('/sms/settings', { query })
      .then((r) => live && setSettings(r.data ?? null))
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [dealerId]);
  const change = async (on: boolean) => {
    setBusy(true);
    setError(undefined);
    try {
      const r = await apiFetch<SmsSettings>('/sms/settings', { method: 'PUT', query, body: { sms_receipts: on } });
      setSettings(r.data ?? null);
      notify(on ? 'sms.receipts_on' : 'sms.receipts_off', { type: 'success' });
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card>
      <CardHeader title={translate('sms.receipts_title')} slotProps={{ title: { component: 'h2', variant: 'h6' } }} />
      <CardContent>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
          {translate('sms.receipts_help')}
        </Typography>
        {error && (
          <Alert severity="error" sx={{ mb: 1 }}>
            {error}
          </Alert>
        )}
        <FormControlLabel
          control={<Switch checked={settings?.sms_receipts ?? false} disabled={!settings || busy} onChange={(e) => void change(e.target.checked)} />}
          label={translate('sms.receipts_switch')}
        />
        {settings && !settings.available && (
          <Alert severity="info" sx={{ mt: 1 }}>
            {translate('sms.not_configured')}
          </Alert>
        )}
      </CardContent>
    </Card>
  );
}
