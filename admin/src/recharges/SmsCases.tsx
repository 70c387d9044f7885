import { useCallback, useEffect, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { Alert, Box, Button, Card, CardContent, Chip, Stack, Typography } from '@mui/material';
import { apiFetch } from '../providers/http';
import { Ltr } from '../common/Ltr';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { SoldItem } from '../common/ContentText';

interface SaleCase {
  id: number;
  recharge: { id: number; h_id: string; reference: string; phone: string; bundle_name: string; provider_name: string; status: string };
  dealer: { id: number; name: string };
  evidence: {
    reply?: { from?: string; text?: string; date?: string | null } | null;
    receipt?: { message?: string; status?: string; provider_status?: string | null; failure_reason?: string | null; sent_at?: string | null } | null;
    operator_reference?: string | null;
  } | null;
  created_at: string;
}

/**
 * The review queue's "not received" cases (GET /sms/cases): a customer replied to the SMS receipt
 * that the bundle did not arrive. Each shows its evidence (the reply, the receipt and its delivery
 * report, the operator's reference) and closes as delivered after all, or refunded (the refund
 * itself is the sale's own Refund, in its drawer).
 */
export function SmsCases({ onOpenSale }: { onOpenSale: (rechargeId: number) => void }) {
  const translate = useTranslate();
  const notify = useNotify();
  const fmt = useCompanyFormat();
  const [cases, setCases] = useState<SaleCase[] | null>(null);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState<number | null>(null);
  const load = useCallback(() => {
    apiFetch<SaleCase[]>('/sms/cases')
      .then((r) => setCases(r.data ?? []))
      .catch((e: Error) => setError(e.message));
  }, []);
  useEffect(load, [load]);
  const close = async (id: number, resolution: 'delivered_confirmed' | 'refunded') => {
    setBusy(id);
    try {
      await apiFetch(`/sms/cases/${id}/close`, { method: 'POST', body: { resolution } });
      notify('sms.case_closed', { type: 'success' });
      load();
    } catch (e) {
      notify((e as Error).message, { type: 'error' });
    } finally {
      setBusy(null);
    }
  };
  if (error)
    return (
      <Alert severity="error" sx={{ mb: 2 }}>
        {error}
      </Alert>
    );
  if (!cases?.length) return null;
  return (
    <Box component="section" aria-labelledby="sms-cases-title" sx={{ mb: 3 }}>
      <Typography id="sms-cases-title" variant="h6" component="h2" sx={{ mb: 1 }}>
        {translate('sms.cases_title', { smart_count: cases.length })}
      </Typography>
      <Stack spacing={1.5}>
        {cases.map((c) => (
          <Card key={c.id} variant="outlined">
            <CardContent>
              <Stack direction="row" sx={{ flexWrap: 'wrap', alignItems: 'center', mb: 1, gap: 1 }}>
                <Button size="small" onClick={() => onOpenSale(c.recharge.id)}>
                  <Ltr>{c.recharge.reference}</Ltr>
                </Button>
                <Typography variant="body2">{c.dealer.name}</Typography>
                <Typography variant="body2">
                  <SoldItem names={[c.recharge.provider_name, c.recharge.bundle_name]} />
                </Typography>
                <Typography variant="body2">
                  <Ltr>{c.recharge.phone}</Ltr>
                </Typography>
                <Typography variant="body2" color="text.secondary">
                  {fmt.dateTime(c.created_at)}
                </Typography>
              </Stack>
              <Typography variant="body2">
                <strong>{translate('sms.evidence.reply')}:</strong> <span dir="auto">{c.evidence?.reply?.text || '—'}</span> (
                <Ltr>{c.evidence?.reply?.from ?? ''}</Ltr>)
              </Typography>
              <Typography variant="body2">
                <strong>{translate('sms.evidence.receipt')}:</strong>{' '}
                {c.evidence?.receipt ? (
                  <>
                    <Chip size="small" label={translate(`sms.status.${c.evidence.receipt.status ?? 'unknown'}`, { _: c.evidence.receipt.status ?? '' })} />{' '}
                    {c.evidence.receipt.failure_reason ?? ''}
                  </>
                ) : (
                  translate('sms.evidence.no_receipt')
                )}
              </Typography>
              <Typography variant="body2">
                <strong>{translate('sms.evidence.operator_reference')}:</strong> <Ltr>{c.evidence?.operator_reference ?? '—'}</Ltr>
              </Typography>
              <Stack direction="row" sx={{ mt: 1.5, flexWrap: 'wrap', gap: 1 }}>
                <Button variant="outlined" size="small" disabled={busy === c.id} onClick={() => void close(c.id, 'delivered_confirmed')}>
                  {translate('sms.close_delivered')}
                </Button>
                <Button variant="outlined" size="small" disabled={busy === c.id} onClick={() => void close(c.id, 'refunded')}>
                  {translate('sms.close_refunded')}
                </Button>
              </Stack>
              <Typography variant="caption" color="text.secondary">
                {translate('sms.refund_hint')}
              </Typography>
            </CardContent>
          </Card>
        ))}
      </Stack>
    </Box>
  );
}
