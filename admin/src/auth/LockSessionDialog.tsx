import type { FieldValues } from 'react-hook-form';
import { Form, PasswordInput, useNavigate, useNotify, useTranslate } from 'react-admin';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Dialog, DialogActions, DialogContent, DialogTitle, Typography } from '@mui/material';
import { useRef, useState } from 'react';
import { lockSchema } from '@app/contracts';
import { authProvider, LOCK_PATH } from '../providers/authProvider';
import { authErrorText, serverFieldError } from '../providers/errors';
import { schemaResolver, typedText } from '../common/schemaResolver';

const EMPTY = { password: '' };
const resolver = schemaResolver<typeof EMPTY>(lockSchema, (v) => typedText(v, EMPTY));

/**
 * The Lock Session modal of docs/product.md section 2: password validated on every change; it cannot be
 * closed while the lock is pending; a failed lock is logged and the modal stays open.
 */
export default function LockSessionDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const translate = useTranslate();
  const notify = useNotify();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const sending = useRef(false);
  // Closed or done, the form starts again empty.
  const [round, setRound] = useState(0);
  const close = () => {
    if (pending) return;
    setRound((n) => n + 1);
    setError(null);
    onClose();
  };

  const submit = async (values: FieldValues) => {
    if (sending.current) return undefined;
    sending.current = true;
    setPending(true);
    setError(null);
    try {
      await authProvider.lock(typedText(values, EMPTY).password);
      queryClient.setQueryData(['auth', 'check-lock'], true);
      notify('lock.locked_toast', { type: 'success', messageArgs: { _: 'Session locked successfully' } });
      setRound((n) => n + 1);
      onClose();
      navigate(LOCK_PATH);
      return undefined;
    } catch (e) {
      console.error('Lock failed', e);
      // A wrong password comes back as a 422 on the password field: show it there.
      const onField = serverFieldError(e, 'password');
      if (onField) return { password: onField };
      setError(authErrorText(e));
      return undefined;
    } finally {
      sending.current = false;
      setPending(false);
    }
  };

  return (
    <Dialog open={open} onClose={close} maxWidth="xs" fullWidth aria-labelledby="lock-session-title">
      <Form key={round} defaultValues={EMPTY} resolver={resolver as never} mode="onChange" onSubmit={submit} noValidate disableInvalidFormNotification>
        <DialogTitle id="lock-session-title">{translate('lock.title')}</DialogTitle>
        <DialogContent>
          <Typography color="text.secondary" sx={{ mb: 2 }}>
            {translate('lock.subtitle')}
          </Typography>
          {error && (
            <Alert severity="error" sx={{ mb: 2 }}>
              {error}
            </Alert>
          )}
          <PasswordInput source="password" label={translate('auth.password')} autoFocus autoComplete="current-password" helperText={false} margin="none" />
        </DialogContent>
        <DialogActions sx={{ px: 3, pb: 2 }}>
          <Button onClick={close} disabled={pending}>
            {translate('common.cancel')}
          </Button>
          <Button type="submit" variant="contained" disabled={pending}>
            {pending ? translate('lock.locking') : translate('lock.title')}
          </Button>
        </DialogActions>
      </Form>
    </Dialog>
  );
}
