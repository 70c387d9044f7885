import { useState, type FormEvent } from 'react';
import { useTranslate } from 'react-admin';
import { Alert, Button, Checkbox, FormControlLabel, Stack, TextField } from '@mui/material';
import { authProvider, type TwoFactorChallenge } from '../providers/authProvider';
import type { SessionUser } from '../providers/session';
import { authErrorText, serverFieldError } from '../providers/errors';
import { AuthCard } from './AuthCard';

/**
 * The second step of a sign-in with two-factor on: a 6-digit code from the authenticator app (or a
 * recovery code), and "remember this device for 30 days". A challenge that expired (401) sends the
 * user back to the password step with the server's message.
 */
export function TwoFactorStep({
  challenge,
  onSignedIn,
  onRestart,
}: {
  challenge: TwoFactorChallenge;
  onSignedIn: (user: SessionUser, message?: string) => void;
  onRestart: (message?: string) => void;
}) {
  const translate = useTranslate();
  const [useRecovery, setUseRecovery] = useState(false);
  const [value, setValue] = useState('');
  const [remember, setRemember] = useState(false);
  const [fieldError, setFieldError] = useState<string>();
  const [error, setError] = useState<string>();
  const [pending, setPending] = useState(false);
  const field = useRecovery ? 'recovery_code' : 'code';

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setFieldError(undefined);
    if (!value.trim()) {
      setFieldError(translate('validation:two_factor_code_required'));
      return;
    }
    setPending(true);
    try {
      const { user, message } = await authProvider.verifyTwoFactor({
        challenge: challenge.challenge,
        rememberMe: challenge.rememberMe,
        remember_device: remember,
        ...(useRecovery ? { recovery_code: value } : { code: value }),
      });
      onSignedIn(user, message);
    } catch (err) {
      const status = (err as { status?: number }).status;
      if (status === 401) return onRestart(authErrorText(err));
      const onField = serverFieldError(err, field) ?? serverFieldError(err, useRecovery ? 'code' : 'recovery_code');
      if (onField) setFieldError(onField);
      else setError(authErrorText(err));
    } finally {
      setPending(false);
    }
  };

  const switchMode = () => {
    setUseRecovery((r) => !r);
    setValue('');
    setFieldError(undefined);
  };

  return (
    <AuthCard title={translate('two_factor.step_title')} subtitle={translate(useRecovery ? 'two_factor.step_recovery_subtitle' : 'two_factor.step_subtitle')}>
      <form onSubmit={onSubmit} noValidate>
        <Stack spacing={2}>
          {error && (
            <Alert severity="error" role="alert">
              {error}
            </Alert>
          )}
          <TextField
            key={field}
            name={field}
            label={translate(useRecovery ? 'two_factor.recovery_code' : 'two_factor.code')}
            value={value}
            onChange={(e) => setValue(e.target.value)}
            autoFocus
            fullWidth
            autoComplete={useRecovery ? 'off' : 'one-time-code'}
            error={!!fieldError}
            helperText={fieldError ?? (useRecovery ? translate('two_factor.recovery_code_hint') : undefined)}
            slotProps={{
              htmlInput: useRecovery
                ? { dir: 'ltr', maxLength: 12, autoCapitalize: 'characters', spellCheck: false }
                : { dir: 'ltr', inputMode: 'numeric', pattern: '[0-9 ]*', maxLength: 7 },
            }}
          />
          <FormControlLabel
            control={<Checkbox checked={remember} onChange={(_e, checked) => setRemember(checked)} name="remember_device" />}
            label={translate('two_factor.remember_device')}
          />
          <Button type="submit" variant="contained" size="large" disabled={pending}>
            {pending ? translate('two_factor.verifying') : translate('two_factor.verify')}
          </Button>
          <Button size="small" onClick={switchMode} disabled={pending}>
            {translate(useRecovery ? 'two_factor.use_app' : 'two_factor.use_recovery')}
          </Button>
          <Button size="small" color="inherit" onClick={() => onRestart()} disabled={pending}>
            {translate('two_factor.back_to_sign_in')}
          </Button>
        </Stack>
      </form>
    </AuthCard>
  );
}
