import { useEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import { LinkBase, useNavigate, useNotify, useTranslate } from 'react-admin';
import { Alert, Button, CircularProgress, Link as MuiLink, Stack } from '@mui/material';
import { apiFetch } from '../providers/http';
import { authErrorText, fieldErrors } from '../providers/errors';
import { useSearchParams } from '../common/useSearchParams';
import { muiRegister } from '../common/muiRegister';
import { lazySharedResolver } from '../common/lazyResolver';
import { PasswordField } from '../common/PasswordField';
import { AuthCard } from './AuthCard';

interface ResetValues {
  token: string;
  password: string;
  password_confirmation: string;
}

interface LinkInfo {
  email: string;
  purpose: 'reset' | 'welcome';
  expires_at: string;
}

// The same password rules as the user form (contracts' passwordSchema), checked before sending.
const resolver = lazySharedResolver<ResetValues>(() => import('@app/contracts').then((m) => m.resetPasswordSchema));

/**
 * The page a set-password link opens (a forgotten password, or a new account's welcome email):
 * it checks the link first, then asks for the new password twice. Saved, the user signs in with it.
 */
export default function ResetPasswordPage() {
  const translate = useTranslate();
  const notify = useNotify();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [link, setLink] = useState<LinkInfo | null>(null);
  const [invalid, setInvalid] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    formState,
    setError: setFieldError,
  } = useForm<ResetValues>({
    resolver,
    defaultValues: { token, password: '', password_confirmation: '' },
  });
  const t = (key?: string) => (key ? translate(key, { _: key }) : undefined);

  useEffect(() => {
    resolver.preload();
    let live = true;
    apiFetch<LinkInfo>('/auth/reset-password/check', { method: 'POST', body: { token }, isLogin: true })
      .then((res) => live && setLink(res.data ?? null))
      .catch((e: unknown) => live && setInvalid(fieldErrors(e).token ?? authErrorText(e)));
    return () => {
      live = false;
    };
  }, [token]);

  const onSubmit = handleSubmit(async (values) => {
    setError(null);
    try {
      const res = await apiFetch('/auth/reset-password', { method: 'POST', body: values, isLogin: true });
      notify(res.message ?? translate('auth.save_password'), { type: 'success' });
      navigate('/auth/login', { replace: true });
    } catch (e) {
      const errors = fieldErrors(e);
      if (errors.token) return setInvalid(errors.token);
      const fields = (['password', 'password_confirmation'] as const).filter((f) => errors[f]);
      for (const f of fields) setFieldError(f, { message: errors[f] });
      if (!fields.length) setError(authErrorText(e));
    }
  });

  const title = translate(link?.purpose === 'welcome' ? 'auth.welcome_title' : 'auth.reset_title');
  return (
    <AuthCard title={title} subtitle={link ? translate('auth.reset_for', { email: link.email }) : undefined}>
      <Stack spacing={2}>
        {invalid !== null ? (
          <>
            <Alert severity="error" role="alert">
              {invalid}
            </Alert>
            <Button component={LinkBase} to="/auth/forgot-password" variant="contained">
              {translate('auth.ask_new_link')}
            </Button>
          </>
        ) : !link ? (
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }} role="status">
            <CircularProgress size={20} />
            <span>{translate('auth.checking_link')}</span>
          </Stack>
        ) : (
          <form onSubmit={onSubmit} noValidate>
            <Stack spacing={2}>
              {error && (
                <Alert severity="error" role="alert">
                  {error}
                </Alert>
              )}
              {/* The account's email, for the browser's password manager. */}
              <input type="email" name="username" autoComplete="username" value={link.email} readOnly hidden />
              <PasswordField
                label={translate('auth.new_password')}
                autoComplete="new-password"
                autoFocus
                {...muiRegister(register, 'password')}
                error={!!formState.errors.password}
                helperText={t(formState.errors.password?.message)}
              />
              <PasswordField
                label={translate('auth.confirm_password')}
                autoComplete="new-password"
                {...muiRegister(register, 'password_confirmation')}
                error={!!formState.errors.password_confirmation}
                helperText={t(formState.errors.password_confirmation?.message)}
              />
              <Button type="submit" variant="contained" size="large" disabled={formState.isSubmitting}>
                {formState.isSubmitting ? translate('auth.saving') : translate('auth.save_password')}
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
