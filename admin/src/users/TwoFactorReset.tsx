import { useState } from 'react';
import { Confirm, useNotify, useRefresh, useTranslate } from 'react-admin';
import { Button, Chip, Stack, Typography } from '@mui/material';
import LockResetIcon from '@mui/icons-material/LockReset';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { useSignedInUser, useUserPermissions } from '../auth/identity';
import { hasPermission } from '../permissions/permissions';
import { serverMessage } from '../providers/errors';
import type { UserRecord } from './types';

/** On, off, or "required" (a role requires it and the user has not set it up yet). */
export function TwoFactorChip({ user }: { user: UserRecord }) {
  const translate = useTranslate();
  if (user.two_factor_enabled) return <Chip size="small" color="success" label={translate('two_factor.on')} />;
  if (user.two_factor_required) return <Chip size="small" color="warning" label={translate('two_factor.pending_enrolment')} />;
  return <Chip size="small" variant="outlined" label={translate('two_factor.off')} />;
}

/**
 * An admin's reset of a user's second factor (a lost phone), with 'reset two-factor', after a
 * confirmation; logged by the API. Not for oneself: one's own goes off in the profile.
 */
export function TwoFactorResetButton({ user }: { user: UserRecord }) {
  const translate = useTranslate();
  const notify = useNotify();
  const refresh = useRefresh();
  const dataProvider = useConsoleDataProvider();
  const me = useSignedInUser();
  const permissions = useUserPermissions();
  const [open, setOpen] = useState(false);
  const [pending, setPending] = useState(false);
  if (!user.two_factor_enabled || !hasPermission(permissions, 'reset two-factor') || me?.id === user.id) return null;
  const reset = async () => {
    setPending(true);
    try {
      const res = await dataProvider.resetTwoFactor({ id: user.id });
      notify(res.message ?? 'two_factor.reset_done', { type: 'success' });
      setOpen(false);
      refresh();
    } catch (err) {
      notify(serverMessage(err), { type: 'error' });
    } finally {
      setPending(false);
    }
  };
  return (
    <>
      <Button
        size="small"
        color="warning"
        startIcon={<LockResetIcon />}
        onClick={(e) => {
          e.stopPropagation();
          setOpen(true);
        }}
      >
        {translate('two_factor.reset')}
      </Button>
      <Confirm
        isOpen={open}
        loading={pending}
        title={translate('two_factor.reset_title', { name: user.name })}
        content={translate('two_factor.reset_text')}
        confirm={translate('two_factor.reset')}
        confirmColor="warning"
        onConfirm={reset}
        onClose={() => setOpen(false)}
      />
    </>
  );
}

/** The user form's section: the state and, where allowed, the reset. */
export function TwoFactorUserSection({ user }: { user: UserRecord }) {
  const translate = useTranslate();
  return (
    <Stack spacing={1} sx={{ mt: 3 }}>
      <Typography variant="subtitle1" sx={{ fontWeight: 600 }}>
        {translate('two_factor.title')}
      </Typography>
      <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
        <TwoFactorChip user={user} />
        <TwoFactorResetButton user={user} />
      </Stack>
    </Stack>
  );
}
