import { useRef, useState, type ReactNode } from 'react';
import { Form, useNotify, useTranslate } from 'react-admin';
import { useFormState, type FieldValues } from 'react-hook-form';
import { Alert, Dialog, DialogActions, DialogContent, DialogTitle, Stack } from '@mui/material';
import type { z } from 'zod';
import { fieldErrors, serverMessage } from '../providers/errors';
import { schemaResolver, typedText } from '../common/schemaResolver';
import type { Said } from '../providers/dataProvider';
import { CancelSubmitButtons } from '../common/FormParts';

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

const NO_MESSAGES: Record<string, string> = {};

/**
 * A dialog that sends one money action (top-up, adjustment, top-up request, payout request,
 * rejection, alert threshold, a payment paid back by hand, a daily-close difference): a react-admin
 * form checked by the API's own zod schema before anything is sent, whose inputs (react-admin's,
 * as children) show the schema's and the API's field errors, whole. An error for a field the dialog
 * does not have (or an error with no field) shows above them.
 */
export function MoneyDialog<T extends FieldValues>({
  open,
  title,
  schema,
  toInput = (v) => v,
  messages = NO_MESSAGES,
  send,
  initial,
  submitLabel,
  onClose,
  onDone,
  warning,
  children,
}: {
  open: boolean;
  title: string;
  /** The API's schema for this action (contracts). */
  schema: z.ZodType;
  /** What the schema is asked about (default: the values as typed). */
  toInput?: (values: T) => unknown;
  /** This dialog's own words (translation keys) for a field the schema refuses, where the schema's are too general. */
  messages?: Record<string, string>;
  /**
   * The dataProvider call that sends it; `idempotencyKey` is made once per opening (the top-up and
   * the adjustment send it as their Idempotency-Key).
   */
  send: (values: T, idempotencyKey: string) => Promise<Said>;
  initial: T;
  submitLabel: string;
  onClose: () => void;
  onDone: (data: unknown) => void;
  /**
   * A 200 that did not do what was asked (a re-ask whose vendor still differs): the text to warn
   * with instead of a success (the server's message first); undefined: a success.
   */
  warning?: (data: unknown, message: string | undefined) => string | undefined;
  /** The dialog's inputs (react-admin inputs whose `source` is a key of `initial`) and its words. */
  children: ReactNode;
}) {
  const translate = useTranslate();
  const notify = useNotify();
  const [general, setGeneral] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const sending = useRef(false);
  // One key per opening: a new one each time the dialog opens, the same for every try within it;
  // the form starts again from `initial` too.
  const [key, setKey] = useState(newIdempotencyKey);
  const [opening, setOpening] = useState(0);
  const [wasOpen, setWasOpen] = useState(open);
  if (open !== wasOpen) {
    setWasOpen(open);
    if (open) {
      setKey(newIdempotencyKey());
      setOpening((n) => n + 1);
      setGeneral(null);
    }
  }

  const known = Object.keys(initial);
  const submit = async (values: FieldValues): Promise<Record<string, string> | undefined> => {
    // A second click while the first is on its way sends nothing (and would carry the same key).
    if (sending.current) return undefined;
    sending.current = true;
    setBusy(true);
    setGeneral(null);
    try {
      // react-admin's inputs turn an emptied field into null: the action gets the text typed ('').
      const res = await send(typedText(values, initial) as T, key);
      // A replay (the same key again: a double click, a retry after a lost answer) answers the first
      // result: a success, said to be one.
      const replayed = !!(res.data as { replayed?: boolean } | undefined)?.replayed;
      const warned = warning?.(res.data, res.message);
      if (warned) notify(warned, { type: 'warning' });
      else notify(replayed ? `${res.message ?? ''} ${translate('wallets.replayed')}`.trim() : (res.message ?? 'ra.notification.updated'), { type: 'success' });
      onDone(res.data);
      return undefined;
    } catch (e) {
      const fields = fieldErrors(e);
      const others = Object.entries(fields)
        .filter(([k]) => !known.includes(k))
        .map(([, m]) => m);
      setGeneral(others.length ? others.join(' ') : Object.keys(fields).length ? null : serverMessage(e));
      // react-admin's Form puts these on their inputs (server-side validation).
      return Object.fromEntries(Object.entries(fields).filter(([k]) => known.includes(k)));
    } finally {
      sending.current = false;
      setBusy(false);
    }
  };
  return (
    <Dialog open={open} onClose={() => !busy && onClose()} fullWidth maxWidth="xs" aria-labelledby="money-dialog-title">
      <DialogTitle id="money-dialog-title">{title}</DialogTitle>
      {/* The refusals show on their fields: no "the form is not valid" toast on top (it would hold back the success's). */}
      <Form
        key={opening}
        defaultValues={initial}
        resolver={schemaResolver<T>(schema, toInput, messages) as never}
        onSubmit={submit}
        noValidate
        disableInvalidFormNotification
      >
        <DialogContent sx={{ pt: 0 }}>
          <Stack spacing={1} sx={{ pt: 1 }}>
            {general && (
              <Alert severity="error" role="alert">
                {general}
              </Alert>
            )}
            <UnplacedErrors known={known} />
            {children}
          </Stack>
        </DialogContent>
        <DialogActions>
          <CancelSubmitButtons label={submitLabel} busy={busy} onCancel={onClose} />
        </DialogActions>
      </Form>
    </Dialog>
  );
}

/** The schema's findings about no input of the dialog (a rule over the whole form), in the reader's words. */
function UnplacedErrors({ known }: { known: string[] }) {
  const translate = useTranslate();
  const { errors } = useFormState();
  const messages = Object.entries(errors)
    .filter(([name]) => !known.includes(name))
    .map(([, e]) => (typeof e?.message === 'string' ? translate(e.message, { _: e.message }) : null))
    .filter(Boolean);
  if (!messages.length) return null;
  return (
    <Alert severity="error" role="alert">
      {messages.join(' ')}
    </Alert>
  );
}
