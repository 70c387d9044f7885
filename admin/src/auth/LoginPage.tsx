import { useEffect, useState } from 'react';
import type { FieldValues } from 'react-hook-form';
import { Form, LinkBase, PasswordInput, TextInput, useInput, useNavigate, useNotify, useTranslate } from 'react-admin';
import { useSearchParams } from '../common/useSearchParams';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, Box, Checkbox, FormControlLabel, Link as MuiLink, Stack } from '@mui/material';
import { authProvider, isChallenge, keepChallenge, keptChallenge, TWO_FACTOR_SETUP_PATH, type TwoFactorChallenge } from '../providers/authProvider';
import { mustEnrolTwoFactor, sessionEnd, type SessionUser } from '../providers/session';
import { TwoFactorStep } from './TwoFactorStep';
import { authErrorText } from '../providers/errors';
import { lazySchemaResolver } from '../common/lazyResolver';
import { typedText } from '../common/schemaResolver';
import { FormSubmitButton } from '../common/FormParts';
import { homePath } from '../layout/menu';
import { userPermissions } from '../permissions/permissions';
import { AuthCard } from './AuthCard';

interface LoginValues {
  email: string;
  password: string;
  rememberMe: boolean;
}

const EMPTY: LoginValues = { email: '', password: '', rememberMe: false };

// The shared login schema (and zod) load after the page shows; the menu (for the home page) with the sign-in.
const resolver = lazySchemaResolver<LoginValues>(
  () => import('@app/contracts').then((m) => m.loginSchema),
  (v) => typedText(v, EMPTY),
);

/** "Remember me" as a plain checkbox (react-admin's BooleanInput is a switch). */
function RememberMeInput({ label }: { label: string }) {
  const { field } = useInput({ source: 'rememberMe', defaultValue: false });
  return (
    <FormControlLabel
      control={<Checkbox checked={Boolean(field.value)} onChange={(_e, checked) => field.onChange(checked)} onBlur={field.onBlur} name={field.name} />}
      label={label}
    />
  );
}

/** Only same-site paths are followed after sign-in (no open redirect). */
export const safeRedirect = (value: string | null): string | null =>
  value && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/auth/') ? value : null;

export default function LoginPage() {
  const translate = useTranslate();
  const notify = useNotify();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [params] = useSearchParams();
  const [error, setError] = useState<string | null>(null);
  // The last session ended without signing out (expired, or its cookie gone): say so, not nothing.
  const [ended] = useState(sessionEnd);
  // With two-factor on, the password step answers a challenge and the code is asked next.
  const [challenge, setChallengeState] = useState<TwoFactorChallenge | null>(keptChallenge);
  const setChallenge = (next: TwoFactorChallenge | null) => {
    keepChallenge(next);
    setChallengeState(next);
  };
  useEffect(() => resolver.preload(), []);

  const signedIn = async (user: SessionUser, message?: string) => {
    const { MENU } = await import('../layout/menuItems');
    queryClient.removeQueries({ queryKey: ['auth'] });
    notify(message ?? translate('auth.welcome_back', { name: user.name, _: `Welcome back, ${user.name}!` }), { type: 'success' });
    // A role that requires two-factor and a user without it: enrolment first, nothing else.
    if (mustEnrolTwoFactor(user)) return navigate(TWO_FACTOR_SETUP_PATH, { replace: true });
    navigate(safeRedirect(params.get('redirect')) ?? homePath(MENU, userPermissions(user), user.user_type), { replace: true });
  };

  const submit = async (values: FieldValues) => {
    setError(null);
    try {
      const outcome = await authProvider.login(typedText(values, EMPTY));
      if (isChallenge(outcome)) setChallenge(outcome);
      else await signedIn(outcome);
    } catch (e) {
      setError(authErrorText(e));
    }
  };

  if (challenge)
    return (
      <TwoFactorStep
        challenge={challenge}
        onSignedIn={signedIn}
        onRestart={(message) => {
          setChallenge(null);
          setError(message ?? null);
        }}
      />
    );

  return (
    <AuthCard title={translate('auth.sign_in_title')} subtitle={translate('auth.sign_in_subtitle')}>
      <Form defaultValues={EMPTY} resolver={resolver as never} onSubmit={submit} noValidate disableInvalidFormNotification>
        <Stack spacing={2}>
          {error && (
            <Alert severity="error" role="alert">
              {error}
            </Alert>
          )}
          {!error && ended && (
            <Alert severity="info" role="status">
              {translate(ended === 'expired' ? 'errors.session_expired' : 'auth.session_ended')}
            </Alert>
          )}
          <TextInput source="email" label={translate('auth.email')} type="email" autoComplete="username" autoFocus helperText={false} margin="none" />
          <PasswordInput source="password" label={translate('auth.password')} autoComplete="current-password" helperText={false} margin="none" />
          <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', justifyContent: 'space-between', columnGap: 1 }}>
            <RememberMeInput label={translate('auth.remember_me')} />
            <MuiLink component={LinkBase} to="/auth/forgot-password" variant="body2">
              {translate('auth.forgot_password')}
            </MuiLink>
          </Box>
          <FormSubmitButton size="large" label={translate('auth.sign_in')} pendingLabel={translate('auth.signing_in')} />
        </Stack>
      </Form>
    </AuthCard>
  );
}
