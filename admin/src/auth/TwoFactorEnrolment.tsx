import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslate } from 'react-admin';
import { Alert, Box, Button, CircularProgress, Stack, TextField, Typography } from '@mui/material';
import type { TwoFactorSetup } from '@app/contracts';
import { authProvider, type RecoveryCodes } from '../providers/authProvider';
import { authErrorText, serverFieldError } from '../providers/errors';
import { PasswordField } from '../common/PasswordField';
import { useSession } from '../providers/useSession';

/**
 * The setup on screen, kept while the page lives: a language switch re-mounts the page, and a new
 * secret then would silently replace the one the user may have scanned already.
 */
let shown: { account: string; setup: TwoFactorSetup } | null = null;

/** The secret in groups of four, as authenticator apps show it when typed by hand. */
const grouped = (secret: string) => secret.replace(/(.{4})/g, '$1 ').trim();

/**
 * Enrolment: a new secret as a QR code (and as text, to type by hand), then a code from the app
 * and the password to turn two-factor on. `onDone` gets the ten recovery codes, shown once.
 */
export function TwoFactorEnrolment({ onDone, onCancel }: { onDone: (result: RecoveryCodes) => void; onCancel?: () => void }) {
  const translate = useTranslate();
  const { user } = useSession();
  const account = user?.email ?? '';
  const [setup, setSetup] = useState<TwoFactorSetup | null>(shown?.account === account ? shown.setup : null);
  const [loadError, setLoadError] = useState<string>();
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<{ code?: string; password?: string; banner?: string }>({});
  const [pending, setPending] = useState(false);

  const start = async () => {
    setLoadError(undefined);
    setSetup(null);
    setErrors({});
    try {
      const made = await authProvider.startTwoFactorSetup();
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

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const missing = {
      code: code.trim() ? undefined : translate('validation:two_factor_code_required'),
      password: password ? undefined : translate('validation:password_required'),
    };
    setErrors(missing);
    if (missing.code || missing.password) return;
    setPending(true);
    try {
      const result = await authProvider.confirmTwoFactor({ code, password });
      shown = null;
      onDone(result);
    } catch (err) {
      const next = { code: serverFieldError(err, 'code'), password: serverFieldError(err, 'password') };
      setErrors(next.code || next.password ? next : { banner: authErrorText(err) });
    } finally {
      setPending(false);
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
    <form onSubmit={onSubmit} noValidate>
      <Stack spacing={2}>
        {errors.banner && <Alert severity="error">{errors.banner}</Alert>}
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
        <TextField
          name="code"
          label={translate('two_factor.code')}
          value={code}
          onChange={(e) => setCode(e.target.value)}
          fullWidth
          autoComplete="one-time-code"
          error={!!errors.code}
          helperText={errors.code}
          slotProps={{ htmlInput: { dir: 'ltr', inputMode: 'numeric', maxLength: 7 } }}
        />
        <PasswordField
          name="password"
          label={translate('two_factor.confirm_password')}
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={!!errors.password}
          helperText={errors.password}
        />
        <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap', justifyContent: 'flex-end' }}>
          {onCancel && (
            <Button onClick={onCancel} disabled={pending}>
              {translate('ra.action.cancel')}
            </Button>
          )}
          <Button type="submit" variant="contained" disabled={pending}>
            {pending ? translate('two_factor.turning_on') : translate('two_factor.turn_on')}
          </Button>
        </Stack>
      </Stack>
    </form>
  );
}
