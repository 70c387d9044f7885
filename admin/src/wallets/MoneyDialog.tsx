import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { Alert, Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack } from '@mui/material';
import { fieldErrors, serverMessage } from '../providers/errors';
import type { Said } from '../providers/dataProvider';

/**
 * A key for one money action: made once per dialog opening and sent with every try of it, so a
 * double click or a retry after a network error is credited once (the API answers the first
 * result again). crypto.randomUUID needs a secure context; getRandomValues does not.
 */
export function newIdempotencyKey(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return `console-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * A dialog that sends one money action (top-up, adjustment, top-up request, rejection, alert
 * threshold, a payment paid back by hand) and shows the API's field errors, whole, on its fields. `children` renders the
 * inputs from the current values; a field error for a field the dialog does not have (or an
 * error with no field) shows above them.
 */
export function MoneyDialog<T extends Record<string, unknown>>({
  open,
  title,
  send,
  initial,
  submitLabel,
  onClose,
  onDone,
  validate,
  warning,
  children,
}: {
  open: boolean;
  title: string;
  /**
   * The dataProvider call that sends it; `idempotencyKey` is made once per opening (the top-up and
   * the adjustment send it as their Idempotency-Key).
   */
  send: (values: T, idempotencyKey: string) => Promise<Said>;
  initial: T;
  submitLabel: string;
  onClose: () => void;
  onDone: (data: unknown) => void;
  /** Messages per field found before anything is sent (a required note left empty); none: it is sent. */
  validate?: (values: T) => Record<string, string>;
  /**
   * A 200 that did not do what was asked (a re-ask whose vendor still differs): the text to warn
   * with instead of a success (the server's message first); undefined: a success.
   */
  warning?: (data: unknown, message: string | undefined) => string | undefined;
  children: (values: T, set: (patch: Partial<T>) => void, errors: Record<string, string>) => ReactNode;
}) {
  const translate = useTranslate();
  const notify = useNotify();
  const [values, setValues] = useState<T>(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const sending = useRef(false);
  // One key per opening: a new one each time the dialog opens, the same for every try within it.
  const key = useRef<string>(newIdempotencyKey());
  const wasOpen = useRef(open);
  useEffect(() => {
    if (open && !wasOpen.current) {
      key.current = newIdempotencyKey();
      setValues(initial);
      setErrors({});
      setGeneral(null);
    }
    wasOpen.current = open;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  const submit = async () => {
    // A second click while the first is on its way sends nothing (and would carry the same key).
    if (sending.current) return;
    const found = validate?.(values) ?? {};
    if (Object.keys(found).length) {
      setErrors(found);
      setGeneral(null);
      return;
    }
    sending.current = true;
    setBusy(true);
    setErrors({});
    setGeneral(null);
    try {
      const res = await send(values, key.current);
      // A replay (the same key again: a double click, a retry after a lost answer) answers the first
      // result: a success, said to be one.
      const replayed = !!(res.data as { replayed?: boolean } | undefined)?.replayed;
      const warned = warning?.(res.data, res.message);
      if (warned) notify(warned, { type: 'warning' });
      else notify(replayed ? `${res.message ?? ''} ${translate('wallets.replayed')}`.trim() : (res.message ?? 'ra.notification.updated'), { type: 'success' });
      setValues(initial);
      onDone(res.data);
    } catch (e) {
      const fields = fieldErrors(e);
      const known = Object.keys(initial);
      setErrors(Object.fromEntries(Object.entries(fields).filter(([k]) => known.includes(k))));
      const others = Object.entries(fields)
        .filter(([k]) => !known.includes(k))
        .map(([, m]) => m);
      setGeneral(others.length ? others.join(' ') : Object.keys(fields).length ? null : serverMessage(e));
    } finally {
      sending.current = false;
      setBusy(false);
    }
  };
  return (
    <Dialog open={open} onClose={() => !busy && onClose()} fullWidth maxWidth="xs" aria-labelledby="money-dialog-title">
      <DialogTitle id="money-dialog-title">{title}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          {general && (
            <Alert severity="error" role="alert">
              {general}
            </Alert>
          )}
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
