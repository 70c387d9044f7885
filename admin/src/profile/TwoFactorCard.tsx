import { useState } from 'react';
import type { FieldValues } from 'react-hook-form';
import { Form, PasswordInput, useNotify, useTranslate } from 'react-admin';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Box, Button, Card, CardContent, CardHeader, Chip, Dialog, DialogActions, DialogContent, DialogTitle, Stack, Typography } from '@mui/material';
import { twoFactorPasswordSchema } from '@app/contracts';
import { authErrorText, serverFieldError } from '../providers/errors';
import { schemaResolver, typedText } from '../common/schemaResolver';
import { FormSubmitButton } from '../common/FormParts';
import { LoadError } from '../common/ListParts';
import { TwoFactorEnrolment } from '../auth/TwoFactorEnrolment';
import { RecoveryCodes } from '../auth/RecoveryCodes';
import { accountCalls, type RecoveryCodes as Codes } from './accountCalls';

const STATUS_KEY = ['auth', 'two-factor'];

const PASSWORD_EMPTY = { password: '' };
const passwordResolver = schemaResolver<typeof PASSWORD_EMPTY>(twoFactorPasswordSchema, (v) => typedText(v, PASSWORD_EMPTY));

/**
 * The profile's two-factor sign-in: its state, turning it on (QR code, code, password, then the
 * recovery codes once), new recovery codes and turning it off (both with the password; off is
 * refused while a role requires it).
 */
export function TwoFactorCard() {
  const translate = useTranslate();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const status = useQuery({ queryKey: STATUS_KEY, queryFn: () => accountCalls.twoFactorStatus() });
  const [enrolling, setEnrolling] = useState(false);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [ask, setAsk] = useState<'codes' | 'off' | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['auth'] });

  const enrolled = async (result: Codes) => {
    setEnrolling(false);
    setCodes(result.recovery_codes);
    queryClient.setQueryData(STATUS_KEY, result.status);
    notify('two_factor.now_on', { type: 'success' });
    await refresh();
  };

  const s = status.data;
  return (
    <Card>
      <CardHeader
        title={translate('two_factor.title')}
        action={s && <Chip color={s.enabled ? 'success' : 'default'} label={translate(s.enabled ? 'two_factor.on' : 'two_factor.off')} />}
      />
      <CardContent>
        {status.isError && <LoadError error={status.error} />}
        {s && (
          <Stack spacing={2}>
            <Typography variant="body2" color="text.secondary">
              {translate('two_factor.explain')}
            </Typography>
            {s.required && <Alert severity="info">{translate('two_factor.required_info')}</Alert>}
            {codes && (
              <>
                <Typography sx={{ fontWeight: 600 }}>{translate('two_factor.codes_title')}</Typography>
                <RecoveryCodes codes={codes} />
                <Box>
                  <Button onClick={() => setCodes(null)}>{translate('two_factor.codes_saved')}</Button>
                </Box>
              </>
            )}
            {!codes && s.enabled && (
              <>
                <Typography variant="body2">{translate('two_factor.codes_left', { n: s.recovery_codes_left })}</Typography>
                {s.trusted_devices > 0 && <Typography variant="body2">{translate('two_factor.trusted_devices', { n: s.trusted_devices })}</Typography>}
                <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
                  <Button variant="outlined" onClick={() => setAsk('codes')}>
                    {translate('two_factor.new_codes')}
                  </Button>
                  <Button variant="outlined" color="error" onClick={() => setAsk('off')} disabled={s.required}>
                    {translate('two_factor.turn_off')}
                  </Button>
                </Stack>
              </>
            )}
            {!codes && !s.enabled && !enrolling && (
              <Box>
                <Button variant="contained" onClick={() => setEnrolling(true)}>
                  {translate('two_factor.set_up')}
                </Button>
              </Box>
            )}
            {!s.enabled && enrolling && <TwoFactorEnrolment onDone={enrolled} onCancel={() => setEnrolling(false)} />}
          </Stack>
        )}
      </CardContent>
      <PasswordDialog
        open={ask !== null}
        title={translate(ask === 'off' ? 'two_factor.turn_off_title' : 'two_factor.new_codes_title')}
        text={translate(ask === 'off' ? 'two_factor.turn_off_text' : 'two_factor.new_codes_text')}
        confirm={translate(ask === 'off' ? 'two_factor.turn_off' : 'two_factor.new_codes')}
        danger={ask === 'off'}
        onClose={() => setAsk(null)}
        onConfirm={async (password) => {
          if (ask === 'off') {
            queryClient.setQueryData(STATUS_KEY, await accountCalls.disableTwoFactor(password));
            notify('two_factor.now_off', { type: 'info' });
          } else {
            const result = await accountCalls.newRecoveryCodes(password);
            queryClient.setQueryData(STATUS_KEY, result.status);
            setCodes(result.recovery_codes);
            notify('two_factor.codes_replaced', { type: 'success' });
          }
          setAsk(null);
          await refresh();
        }}
      />
    </Card>
  );
}

/** Asks for the password before a change to the second factor; a wrong one shows on the field. */
function PasswordDialog({
  open,
  title,
  text,
  confirm,
  danger,
  onClose,
  onConfirm,
}: {
  open: boolean;
  title: string;
  text: string;
  confirm: string;
  danger: boolean;
  onClose: () => void;
  onConfirm: (password: string) => Promise<void>;
}) {
  const translate = useTranslate();
  const [banner, setBanner] = useState<string>();
  const [pending, setPending] = useState(false);
  const close = () => {
    if (pending) return;
    setBanner(undefined);
    onClose();
  };
  const submit = async (values: FieldValues) => {
    setBanner(undefined);
    setPending(true);
    try {
      await onConfirm(typedText(values, PASSWORD_EMPTY).password);
      return undefined;
    } catch (err) {
      const onField = serverFieldError(err, 'password');
      if (onField) return { password: onField };
      setBanner((err as { body?: { message?: string } }).body?.message || authErrorText(err));
      return undefined;
    } finally {
      setPending(false);
    }
  };
  // The form lives inside the dialog: closed, it is gone, so it opens empty.
  return (
    <Dialog open={open} onClose={close} fullWidth maxWidth="xs" aria-labelledby="two-factor-password-title">
      <Form defaultValues={PASSWORD_EMPTY} resolver={passwordResolver as never} onSubmit={submit} noValidate disableInvalidFormNotification>
        <DialogTitle id="two-factor-password-title">{title}</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            <Typography variant="body2">{text}</Typography>
            {banner && <Alert severity="error">{banner}</Alert>}
            <PasswordInput source="password" label={translate('auth.password')} autoComplete="current-password" autoFocus helperText={false} margin="none" />
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={close} disabled={pending}>
            {translate('ra.action.cancel')}
          </Button>
          <FormSubmitButton color={danger ? 'error' : 'primary'} label={confirm} pendingLabel={confirm} />
        </DialogActions>
      </Form>
    </Dialog>
  );
}
