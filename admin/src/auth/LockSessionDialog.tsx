import { useForm } from 'react-hook-form';
import { useNavigate, useNotify, useTranslate } from 'react-admin';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Dialog, DialogActions, DialogContent, DialogTitle, Typography } from '@mui/material';
import { useState } from 'react';
import { lockSchema } from '@app/contracts';
import { authProvider, LOCK_PATH } from '../providers/authProvider';
import { authErrorText, serverFieldError } from '../providers/errors';
import { muiRegister, sharedResolver } from '../common/zodForm';
import { PasswordField } from '../common/PasswordField';

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
  const {
    register,
    handleSubmit,
    formState,
    setError: setFieldError,
    reset,
  } = useForm<{ password: string }>({
    resolver: sharedResolver(lockSchema),
    mode: 'onChange',
    defaultValues: { password: '' },
  });
  const pending = formState.isSubmitting;
  const close = () => {
    if (pending) return;
    reset();
    setError(null);
    onClose();
  };

  const onSubmit = handleSubmit(async ({ password }) => {
    setError(null);
    try {
      await authProvider.lock(password);
      queryClient.setQueryData(['auth', 'check-lock'], true);
      notify('lock.locked_toast', { type: 'success', messageArgs: { _: 'Session locked successfully' } });
      reset();
      onClose();
      navigate(LOCK_PATH);
    } catch (e) {
      console.error('Lock failed', e);
      // A wrong password comes back as a 422 on the password field: show it there.
      const onField = serverFieldError(e, 'password');
      if (onField) setFieldError('password', { type: 'server', message: onField });
      else setError(authErrorText(e));
    }
  });
  const err = formState.errors.password?.message;

  return (
    <Dialog open={open} onClose={close} maxWidth="xs" fullWidth aria-labelledby="lock-session-title">
      <form onSubmit={onSubmit} noValidate>
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
          <PasswordField
            label={translate('auth.password')}
            autoFocus
            autoComplete="current-password"
            {...muiRegister(register, 'password')}
            error={!!err}
            helperText={err ? translate(err, { _: err }) : undefined}
          />
        </DialogContent>
        <DialogActions sx={{ px: 3, pb: 2 }}>
          <Button onClick={close} disabled={pending}>
            {translate('common.cancel')}
          </Button>
          <Button type="submit" variant="contained" disabled={pending}>
            {pending ? translate('lock.locking') : translate('lock.title')}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
