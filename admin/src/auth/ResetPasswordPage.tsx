import { useEffect, useState } from 'react';
import type { FieldValues } from 'react-hook-form';
import { Form, LinkBase, PasswordInput, useNavigate, useNotify, useTranslate } from 'react-admin';
import { Alert, Button, CircularProgress, Link as MuiLink, Stack } from '@mui/material';
import { apiFetch } from '../providers/http';
import { authErrorText, fieldErrors } from '../providers/errors';
import { useSearchParams } from '../common/useSearchParams';
import { lazySchemaResolver } from '../common/lazyResolver';
import { typedText } from '../common/schemaResolver';
import { FormSubmitButton } from '../common/FormParts';
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
const TYPED: ResetValues = { token: '', password: '', password_confirmation: '' };
const resolver = lazySchemaResolver<ResetValues>(
  () => import('@app/contracts').then((m) => m.resetPasswordSchema),
  (v) => typedText(v, TYPED),
);

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

  const submit = async (values: FieldValues) => {
    setError(null);
    try {
      const res = await apiFetch('/auth/reset-password', { method: 'POST', body: typedText(values, TYPED), isLogin: true });
      notify(res.message ?? translate('auth.save_password'), { type: 'success' });
      navigate('/auth/login', { replace: true });
      return undefined;
    } catch (e) {
      const errors = fieldErrors(e);
      if (errors.token) {
        setInvalid(errors.token);
        return undefined;
      }
      const fields = Object.fromEntries((['password', 'password_confirmation'] as const).filter((f) => errors[f]).map((f) => [f, errors[f]]));
      if (!Object.keys(fields).length) setError(authErrorText(e));
      // react-admin's Form puts these on their inputs.
      return fields;
    }
  };

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
          <Form
            defaultValues={{ token, password: '', password_confirmation: '' }}
            resolver={resolver as never}
            onSubmit={submit}
            noValidate
            disableInvalidFormNotification
          >
            <Stack spacing={2}>
              {error && (
                <Alert severity="error" role="alert">
                  {error}
                </Alert>
              )}
              {/* The account's email, for the browser's password manager. */}
              <input type="email" name="username" autoComplete="username" value={link.email} readOnly hidden />
              <PasswordInput source="password" label={translate('auth.new_password')} autoComplete="new-password" autoFocus helperText={false} margin="none" />
              <PasswordInput
                source="password_confirmation"
                label={translate('auth.confirm_password')}
                autoComplete="new-password"
                helperText={false}
                margin="none"
              />
              <FormSubmitButton size="large" label={translate('auth.save_password')} pendingLabel={translate('auth.saving')} />
            </Stack>
          </Form>
        )}
        <MuiLink component={LinkBase} to="/auth/login" sx={{ alignSelf: 'center' }}>
          {translate('auth.back_to_sign_in')}
        </MuiLink>
      </Stack>
    </AuthCard>
  );
}
