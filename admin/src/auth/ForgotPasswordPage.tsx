import { useEffect, useState } from 'react';
import type { FieldValues } from 'react-hook-form';
import { Form, LinkBase, TextInput, useTranslate } from 'react-admin';
import { Alert, Link as MuiLink, Stack } from '@mui/material';
import { apiFetch } from '../providers/http';
import { authErrorText, serverFieldError } from '../providers/errors';
import { lazySchemaResolver } from '../common/lazyResolver';
import { typedText } from '../common/schemaResolver';
import { FormSubmitButton } from '../common/FormParts';
import { AuthCard } from './AuthCard';

interface ForgotValues {
  email: string;
}
const EMPTY: ForgotValues = { email: '' };

const resolver = lazySchemaResolver<ForgotValues>(
  () => import('@app/contracts').then((m) => m.forgotPasswordSchema),
  (v) => typedText(v, EMPTY),
);

/**
 * "Forgot password?": asks for the account's email and says the server's one answer, the same
 * whether the account exists or not (docs/api-conventions.md, "Forgotten password and welcome email").
 */
export default function ForgotPasswordPage() {
  const translate = useTranslate();
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => resolver.preload(), []);

  const submit = async (values: FieldValues) => {
    setError(null);
    try {
      const res = await apiFetch('/auth/forgot-password', { method: 'POST', body: typedText(values, EMPTY), isLogin: true });
      setDone(res.message ?? '');
      return undefined;
    } catch (e) {
      const onField = serverFieldError(e, 'email');
      if (onField) return { email: onField };
      setError(authErrorText(e));
      return undefined;
    }
  };

  return (
    <AuthCard title={translate('auth.forgot_title')} subtitle={done ? undefined : translate('auth.forgot_subtitle')}>
      <Stack spacing={2}>
        {done !== null ? (
          <Alert severity="success" role="status">
            {done}
          </Alert>
        ) : (
          <Form defaultValues={EMPTY} resolver={resolver as never} onSubmit={submit} noValidate disableInvalidFormNotification>
            <Stack spacing={2}>
              {error && (
                <Alert severity="error" role="alert">
                  {error}
                </Alert>
              )}
              <TextInput source="email" label={translate('auth.email')} type="email" autoComplete="username" autoFocus helperText={false} margin="none" />
              <FormSubmitButton size="large" label={translate('auth.send_link')} pendingLabel={translate('auth.sending')} />
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
