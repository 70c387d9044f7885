import { useEffect, useState } from 'react';
import type { FieldValues } from 'react-hook-form';
import { Form, Navigate, PasswordInput, useNavigate, useLogout, useTranslate } from 'react-admin';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Avatar, Box, Button, Stack, Typography } from '@mui/material';
import { lockSchema } from '@app/contracts';
import { authProvider, LOGIN_PATH } from '../providers/authProvider';
import { authErrorText, serverFieldError } from '../providers/errors';
import { useSignInState } from './useSignInState';
import { useSignedInUser, useUserPermissions } from './identity';
import { schemaResolver, typedText } from '../common/schemaResolver';
import { FormSubmitButton } from '../common/FormParts';
import { resolveImage } from '../common/image';
import { homePath } from '../layout/menu';
import { MENU } from '../layout/menuItems';
import { AuthCard } from './AuthCard';
import { authRetry, LOCK_STALE_MS } from './retry';

const EMPTY = { password: '' };
const resolver = schemaResolver<typeof EMPTY>(lockSchema, (v) => typedText(v, EMPTY));

/** /auth/lock-screen: the locked user unlocks with the password (blank layout). */
export default function LockScreen() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const logout = useLogout();
  const queryClient = useQueryClient();
  const isAuthenticated = useSignInState() !== 'signed-out';
  const user = useSignedInUser();
  const permissions = useUserPermissions();
  const [error, setError] = useState<string | null>(null);
  // The server's answer decides: a session it does not hold as locked goes back in.
  const lock = useQuery({
    queryKey: ['auth', 'check-lock'],
    queryFn: () => authProvider.checkLock(),
    staleTime: LOCK_STALE_MS,
    retry: authRetry,
    enabled: isAuthenticated,
  });
  useEffect(() => {
    if (lock.data === false) navigate(homePath(MENU, permissions), { replace: true });
  }, [lock.data, navigate, permissions]);
  if (!isAuthenticated || !user) return <Navigate to={LOGIN_PATH} replace />;

  const submit = async (values: FieldValues) => {
    setError(null);
    try {
      await authProvider.unlock(typedText(values, EMPTY).password);
      queryClient.setQueryData(['auth', 'check-lock'], false);
      navigate(homePath(MENU, permissions), { replace: true });
      return undefined;
    } catch (e) {
      // A wrong password comes back as a 422 on the password field: show it there.
      const onField = serverFieldError(e, 'password');
      if (onField) return { password: onField };
      setError(authErrorText(e));
      return undefined;
    }
  };

  return (
    <AuthCard title={translate('lock.screen_title')} subtitle={translate('lock.screen_subtitle')}>
      <Stack spacing={1} sx={{ alignItems: 'center', mb: 3 }}>
        <Avatar src={resolveImage(user.profile_image)} alt="" sx={{ width: 72, height: 72 }} />
        <Typography sx={{ fontWeight: 600 }}>{user.name}</Typography>
        <Typography variant="body2" color="text.secondary">
          {user.email}
        </Typography>
      </Stack>
      {/* Checked on every change, as the lock dialog is. */}
      <Form defaultValues={EMPTY} resolver={resolver as never} mode="onChange" onSubmit={submit} noValidate disableInvalidFormNotification>
        <Stack spacing={2}>
          {error && <Alert severity="error">{error}</Alert>}
          <PasswordInput source="password" label={translate('auth.password')} autoComplete="current-password" autoFocus helperText={false} margin="none" />
          <FormSubmitButton size="large" label={translate('lock.unlock')} pendingLabel={translate('lock.unlocking')} />
        </Stack>
      </Form>
      <Box sx={{ mt: 2, textAlign: 'center' }}>
        <Button size="small" onClick={() => logout()}>
          {translate('lock.other_user')}
        </Button>
      </Box>
    </AuthCard>
  );
}
