import { useEffect, useRef, useState } from 'react';
import { useFormState, type FieldValues, type Resolver } from 'react-hook-form';
import { Form, PasswordInput, TextInput, useTranslate } from 'react-admin';
import { Alert, Box, Button, CircularProgress, Stack, Typography } from '@mui/material';
import type { TwoFactorSetup } from '@app/contracts';
import { authErrorText, serverFieldError } from '../providers/errors';
import { lazySchemaResolver } from '../common/lazyResolver';
import { typedText } from '../common/schemaResolver';
import { FormSubmitButton } from '../common/FormParts';
import { useSignedInUser } from './identity';
import { accountCalls, type RecoveryCodes } from '../profile/accountCalls';

/**
 * The setup on screen, kept while the page lives: a language switch re-mounts the page, and a new
 * secret then would silently replace the one the user may have scanned already.
 */
let shown: { account: string; setup: TwoFactorSetup } | null = null;

/** The secret in groups of four, as authenticator apps show it when typed by hand. */
const grouped = (secret: string) => secret.replace(/(.{4})/g, '$1 ').trim();

const EMPTY = { code: '', password: '' };

// The API's own schema, loaded with its first use (the setup page is a sign-in page, shown before zod loads).
const checked = lazySchemaResolver<typeof EMPTY>(
  () => import('@app/contracts').then((m) => m.twoFactorConfirmSchema),
  (v) => typedText(v, EMPTY),
);
/** The schema calls an empty code a wrong format; this form has always said a code is needed. */
const resolver: Resolver<typeof EMPTY> = async (values, context, options) => {
  const result = await checked(values, context, options);
  const errors = result.errors as Record<string, { type: string; message: string }>;
  if (errors.code && !typedText(values, EMPTY).code.trim()) errors.code = { type: 'validation', message: 'validation:two_factor_code_required' };
  return result;
};

/** Cancel, idle while the code is sent. */
function CancelButton({ onCancel }: { onCancel: () => void }) {
  const translate = useTranslate();
  const { isSubmitting } = useFormState();
  return (
    <Button onClick={onCancel} disabled={isSubmitting}>
      {translate('ra.action.cancel')}
    </Button>
  );
}

/**
 * Enrolment: a new secret as a QR code (and as text, to type by hand), then a code from the app
 * and the password to turn two-factor on. `onDone` gets the ten recovery codes, shown once.
 */
export function TwoFactorEnrolment({ onDone, onCancel }: { onDone: (result: RecoveryCodes) => void; onCancel?: () => void }) {
  const translate = useTranslate();
  const user = useSignedInUser();
  const account = user?.email ?? '';
  const [setup, setSetup] = useState<TwoFactorSetup | null>(shown?.account === account ? shown.setup : null);
  const [loadError, setLoadError] = useState<string>();
  const [banner, setBanner] = useState<string>();

  const start = async () => {
    setLoadError(undefined);
    setSetup(null);
    setBanner(undefined);
    try {
      const made = await accountCalls.startTwoFactorSetup();
      shown = { account, setup: made };
      setSetup(made);
    } catch (err) {
      setLoadError(authErrorText(err));
    }
  };
  // Once per opening: each start replaces the secret waiting for its code (StrictMode mounts twice).
  const started = useRef(false);
  useEffect(() => {
    if (started.current || setup) return;
    started.current = true;
    void start();
    // Mount only: a later render must never start another setup by itself.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => checked.preload(), []);

  const onSubmit = async (values: FieldValues) => {
    setBanner(undefined);
    const { code, password } = typedText(values, EMPTY);
    try {
      const result = await accountCalls.confirmTwoFactor({ code, password });
      shown = null;
      onDone(result);
      return undefined;
    } catch (err) {
      // A wrong code or password comes back as a 422 on its field: shown there, anything else above the form.
      const onFields = Object.fromEntries((['code', 'password'] as const).map((f) => [f, serverFieldError(err, f)] as const).filter(([, message]) => message));
      if (Object.keys(onFields).length) return onFields;
      setBanner(authErrorText(err));
      return undefined;
    }
  };

  if (loadError)
    return (
      <Stack spacing={2}>
        <Alert severity="error">{loadError}</Alert>
        <Box>
          <Button variant="outlined" onClick={start}>
            {translate('two_factor.start_again')}
          </Button>
        </Box>
      </Stack>
    );
  if (!setup)
    return (
      <Box sx={{ display: 'flex', justifyContent: 'center', py: 4 }}>
        <CircularProgress aria-label={translate('two_factor.preparing')} />
      </Box>
    );
  return (
    <Form defaultValues={EMPTY} resolver={resolver as never} onSubmit={onSubmit} noValidate disableInvalidFormNotification>
      <Stack spacing={2}>
        {banner && <Alert severity="error">{banner}</Alert>}
        <Typography variant="body2">{translate('two_factor.scan')}</Typography>
        <Box sx={{ display: 'flex', justifyContent: 'center' }}>
          <Box
            component="img"
            src={setup.qr_code}
            alt={translate('two_factor.qr_alt')}
            sx={{ width: 200, height: 200, bgcolor: '#fff', p: 1, borderRadius: 1, border: 1, borderColor: 'divider' }}
          />
        </Box>
        <Typography variant="body2" color="text.secondary">
          {translate('two_factor.manual_entry', { issuer: setup.issuer, account: setup.account })}
        </Typography>
        <Box
          data-testid="two-factor-secret"
          dir="ltr"
          sx={{
            fontFamily: 'monospace',
            fontSize: '1.05rem',
            letterSpacing: 1,
            textAlign: 'center',
            p: 1.5,
            bgcolor: 'action.hover',
            borderRadius: 1,
            wordBreak: 'break-all',
          }}
        >
          {grouped(setup.secret)}
        </Box>
        <TextInput
          source="code"
          label={translate('two_factor.code')}
          autoComplete="one-time-code"
          helperText={false}
          margin="none"
          slotProps={{ htmlInput: { dir: 'ltr', inputMode: 'numeric', maxLength: 7 } }}
        />
        <PasswordInput source="password" label={translate('two_factor.confirm_password')} autoComplete="current-password" helperText={false} margin="none" />
        <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap', justifyContent: 'flex-end' }}>
          {onCancel && <CancelButton onCancel={onCancel} />}
          <FormSubmitButton label={translate('two_factor.turn_on')} pendingLabel={translate('two_factor.turning_on')} />
        </Stack>
      </Stack>
    </Form>
  );
}
