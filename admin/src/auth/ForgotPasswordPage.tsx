import { useEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import { LinkBase, useTranslate } from 'react-admin';
import { Alert, Button, Link as MuiLink, Stack, TextField } from '@mui/material';
import { apiFetch } from '../providers/http';
import { authErrorText, serverFieldError } from '../providers/errors';
import { muiRegister } from '../common/muiRegister';
import { lazySharedResolver } from '../common/lazyResolver';
import { AuthCard } from './AuthCard';

interface ForgotValues {
  email: string;
}

const resolver = lazySharedResolver<ForgotValues>(() => import('@app/contracts').then((m) => m.forgotPasswordSchema));

/**
 * "Forgot password?": asks for the account's email and says the server's one answer, the same
 * whether the account exists or not (docs/api-conventions.md, "Forgotten password and welcome email").
 */
export default function ForgotPasswordPage() {
  const translate = useTranslate();
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { register, handleSubmit, formState, setError: setFieldError } = useForm<ForgotValues>({ resolver, defaultValues: { email: '' } });
  useEffect(() => resolver.preload(), []);
  const t = (key?: string) => (key ? translate(key, { _: key }) : undefined);

  const onSubmit = handleSubmit(async (values) => {
    setError(null);
    try {
      const res = await apiFetch('/auth/forgot-password', { method: 'POST', body: values, isLogin: true });
      setDone(res.message ?? '');
    } catch (e) {
      const onField = serverFieldError(e, 'email');
      if (onField) setFieldError('email', { message: onField });
      else setError(authErrorText(e));
    }
  });

  return (
    <AuthCard title={translate('auth.forgot_title')} subtitle={done ? undefined : translate('auth.forgot_subtitle')}>
      <Stack spacing={2}>
        {done !== null ? (
          <Alert severity="success" role="status">
            {done}
          </Alert>
        ) : (
          <form onSubmit={onSubmit} noValidate>
            <Stack spacing={2}>
              {error && (
                <Alert severity="error" role="alert">
                  {error}
                </Alert>
              )}
              <TextField
                label={translate('auth.email')}
                type="email"
                autoComplete="username"
                autoFocus
                fullWidth
                {...muiRegister(register, 'email')}
                error={!!formState.errors.email}
                helperText={t(formState.errors.email?.message)}
              />
              <Button type="submit" variant="contained" size="large" disabled={formState.isSubmitting}>
                {formState.isSubmitting ? translate('auth.sending') : translate('auth.send_link')}
              </Button>
            </Stack>
          </form>
        )}
        <MuiLink component={LinkBase} to="/auth/login" sx={{ alignSelf: 'center' }}>
          {translate('auth.back_to_sign_in')}
        </MuiLink>
      </Stack>
    </AuthCard>
  );
}
