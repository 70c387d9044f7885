import { useMemo, useRef, useState } from 'react';
import { useFormContext, useFormState, type FieldValues, type Resolver } from 'react-hook-form';
import { Form, TextInput, useInput, useTranslate } from 'react-admin';
import { Alert, Button, Checkbox, FormControlLabel, Stack } from '@mui/material';
import { authProvider, type TwoFactorChallenge } from '../providers/authProvider';
import type { SessionUser } from '../providers/session';
import { authErrorText, serverFieldError } from '../providers/errors';
import { lazySchemaResolver } from '../common/lazyResolver';
import { typedText } from '../common/schemaResolver';
import { FormSubmitButton } from '../common/FormParts';
import { AuthCard } from './AuthCard';

interface StepValues {
  code: string;
  recovery_code: string;
  remember_device: boolean;
}
type Field = 'code' | 'recovery_code';

const EMPTY: StepValues = { code: '', recovery_code: '', remember_device: false };

/** "Remember this device" as a plain checkbox (react-admin's BooleanInput is a switch). */
function RememberDeviceInput({ label }: { label: string }) {
  const { field } = useInput({ source: 'remember_device', defaultValue: false });
  return (
    <FormControlLabel
      control={<Checkbox checked={Boolean(field.value)} onChange={(_e, checked) => field.onChange(checked)} onBlur={field.onBlur} name={field.name} />}
      label={label}
    />
  );
}

/** The buttons under the form: the other kind of code (the field emptied) and back to the password, both idle while sending. */
function StepButtons({ field, onSwitch, onRestart }: { field: Field; onSwitch: () => void; onRestart: () => void }) {
  const translate = useTranslate();
  const { setValue, clearErrors } = useFormContext<StepValues>();
  const { isSubmitting } = useFormState();
  const switchMode = () => {
    setValue(field, '');
    clearErrors();
    onSwitch();
  };
  return (
    <>
      <Button size="small" onClick={switchMode} disabled={isSubmitting}>
        {translate(field === 'recovery_code' ? 'two_factor.use_app' : 'two_factor.use_recovery')}
      </Button>
      <Button size="small" color="inherit" onClick={onRestart} disabled={isSubmitting}>
        {translate('two_factor.back_to_sign_in')}
      </Button>
    </>
  );
}

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
  const [error, setError] = useState<string>();
  const field: Field = useRecovery ? 'recovery_code' : 'code';
  // The resolver is made once (react-hook-form keeps the first); it reads which code is asked from here.
  const mode = useRef<Field>(field);
  mode.current = field;

  // Checked with the API's own schema (loaded lazily, as on the password step), on what would be sent:
  // the challenge and the one code asked. A missing code is said on the field in view.
  const resolver = useMemo<Resolver<StepValues>>(() => {
    const checked = lazySchemaResolver<StepValues>(
      () => import('@app/contracts').then((m) => m.twoFactorVerifySchema),
      (v) => {
        const typed = typedText(v, EMPTY);
        return { challenge: challenge.challenge, remember_device: typed.remember_device, [mode.current]: typed[mode.current] };
      },
    );
    checked.preload();
    return async (values, context, options) => {
      const result = await checked(values, context, options);
      const errors = result.errors as Record<string, unknown>;
      if (mode.current === 'recovery_code' && errors.code && !errors.recovery_code) {
        const { code, ...rest } = errors;
        return { values: {}, errors: { ...rest, recovery_code: code } as never };
      }
      return result;
    };
  }, [challenge.challenge]);

  const submit = async (values: FieldValues) => {
    setError(undefined);
    const typed = typedText(values, EMPTY);
    const value = typed[field];
    try {
      const { user, message } = await authProvider.verifyTwoFactor({
        challenge: challenge.challenge,
        rememberMe: challenge.rememberMe,
        remember_device: typed.remember_device,
        ...(useRecovery ? { recovery_code: value } : { code: value }),
      });
      onSignedIn(user, message);
      return undefined;
    } catch (err) {
      const status = (err as { status?: number }).status;
      if (status === 401) {
        onRestart(authErrorText(err));
        return undefined;
      }
      // A wrong code comes back as a 422 on its field (or the other code's): shown on the field in view.
      const onField = serverFieldError(err, field) ?? serverFieldError(err, useRecovery ? 'code' : 'recovery_code');
      if (onField) return { [field]: onField };
      setError(authErrorText(err));
      return undefined;
    }
  };

  return (
    <AuthCard title={translate('two_factor.step_title')} subtitle={translate(useRecovery ? 'two_factor.step_recovery_subtitle' : 'two_factor.step_subtitle')}>
      <Form defaultValues={EMPTY} resolver={resolver as never} onSubmit={submit} noValidate disableInvalidFormNotification>
        <Stack spacing={2}>
          {error && (
            <Alert severity="error" role="alert">
              {error}
            </Alert>
          )}
          <TextInput
            key={field}
            source={field}
            label={translate(useRecovery ? 'two_factor.recovery_code' : 'two_factor.code')}
            autoFocus
            autoComplete={useRecovery ? 'off' : 'one-time-code'}
            helperText={useRecovery ? translate('two_factor.recovery_code_hint') : false}
            margin="none"
            slotProps={{
              htmlInput: useRecovery
                ? { dir: 'ltr', maxLength: 12, autoCapitalize: 'characters', spellCheck: false }
                : { dir: 'ltr', inputMode: 'numeric', pattern: '[0-9 ]*', maxLength: 7 },
            }}
          />
          <RememberDeviceInput label={translate('two_factor.remember_device')} />
          <FormSubmitButton size="large" label={translate('two_factor.verify')} pendingLabel={translate('two_factor.verifying')} />
          <StepButtons field={field} onSwitch={() => setUseRecovery((r) => !r)} onRestart={() => onRestart()} />
        </Stack>
      </Form>
    </AuthCard>
  );
}
