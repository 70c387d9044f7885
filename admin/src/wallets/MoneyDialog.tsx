import { useState, type ReactNode } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { Alert, Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack } from '@mui/material';
import { apiFetch } from '../providers/http';

/**
 * A dialog that posts one money action (top-up, adjustment, top-up request, rejection) and shows
 * the API's field errors on its fields. `fields` renders the inputs from the current values.
 */
export function MoneyDialog<T extends Record<string, unknown>>({
  open,
  title,
  path,
  initial,
  submitLabel,
  toBody,
  onClose,
  onDone,
  children,
}: {
  open: boolean;
  title: string;
  path: string;
  initial: T;
  submitLabel: string;
  toBody?: (values: T) => Record<string, unknown> | FormData;
  onClose: () => void;
  onDone: () => void;
  children: (values: T, set: (patch: Partial<T>) => void, errors: Record<string, string>) => ReactNode;
}) {
  const translate = useTranslate();
  const notify = useNotify();
  const [values, setValues] = useState<T>(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    setBusy(true);
    setErrors({});
    setGeneral(null);
    try {
      const res = await apiFetch(path, { method: 'POST', body: toBody ? toBody(values) : values });
      notify(res.message ?? 'ra.notification.updated', { type: 'success' });
      setValues(initial);
      onDone();
    } catch (e) {
      const body = (e as { body?: { message?: string; errors?: Record<string, string[]> } }).body;
      if (body?.errors) setErrors(Object.fromEntries(Object.entries(body.errors).map(([k, v]) => [k, v[0]])));
      else setGeneral(body?.message ?? (e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog open={open} onClose={() => !busy && onClose()} fullWidth maxWidth="xs" aria-labelledby="money-dialog-title">
      <DialogTitle id="money-dialog-title">{title}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          {general && <Alert severity="error">{general}</Alert>}
          {children(values, (patch) => setValues((v) => ({ ...v, ...patch })), errors)}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy}>
          {translate('common.cancel')}
        </Button>
        <Button variant="contained" onClick={submit} disabled={busy}>
          {submitLabel}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
