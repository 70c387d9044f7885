import { useEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import { Navigate, useNavigate, useLogout, useTranslate } from 'react-admin';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Avatar, Box, Button, Stack, Typography } from '@mui/material';
import { lockSchema } from '@app/contracts';
import { authProvider, LOGIN_PATH } from '../providers/authProvider';
import { authErrorText, serverFieldError } from '../providers/errors';
import { useSession } from '../providers/useSession';
import { muiRegister, sharedResolver } from '../common/zodForm';
import { resolveImage } from '../common/image';
import { PasswordField } from '../common/PasswordField';
import { homePath } from '../layout/menu';
import { MENU } from '../layout/menuItems';
import { AuthCard } from './AuthCard';
import { authRetry, LOCK_STALE_MS } from './retry';

/** /auth/lock-screen: the locked user unlocks with the password (blank layout). */
export default function LockScreen() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const logout = useLogout();
  const queryClient = useQueryClient();
  const { user, isAuthenticated, permissions } = useSession();
  const [error, setError] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    formState,
    setError: setFieldError,
  } = useForm<{ password: string }>({
    resolver: sharedResolver(lockSchema),
    mode: 'onChange',
    defaultValues: { password: '' },
  });
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

  const onSubmit = handleSubmit(async ({ password }) => {
    setError(null);
    try {
      await authProvider.unlock(password);
      queryClient.setQueryData(['auth', 'check-lock'], false);
      navigate(homePath(MENU, permissions), { replace: true });
    } catch (e) {
      // A wrong password comes back as a 422 on the password field: show it there.
      const onField = serverFieldError(e, 'password');
      if (onField) setFieldError('password', { type: 'server', message: onField });
      else setError(authErrorText(e));
    }
  });
  const err = formState.errors.password?.message;

  return (
    <AuthCard title={translate('lock.screen_title')} subtitle={translate('lock.screen_subtitle')}>
      <Stack spacing={1} sx={{ alignItems: 'center', mb: 3 }}>
        <Avatar src={resolveImage(user.profile_image)} alt="" sx={{ width: 72, height: 72 }} />
        <Typography sx={{ fontWeight: 600 }}>{user.name}</Typography>
        <Typography variant="body2" color="text.secondary">
          {user.email}
        </Typography>
      </Stack>
      <form onSubmit={onSubmit} noValidate>
        <Stack spacing={2}>
          {error && <Alert severity="error">{error}</Alert>}
          <PasswordField
            label={translate('auth.password')}
            autoComplete="current-password"
            autoFocus
            {...muiRegister(register, 'password')}
            error={!!err}
            helperText={err ? translate(err, { _: err }) : undefined}
          />
          <Button type="submit" variant="contained" size="large" disabled={formState.isSubmitting}>
            {formState.isSubmitting ? translate('lock.unlocking') : translate('lock.unlock')}
          </Button>
        </Stack>
      </form>
      <Box sx={{ mt: 2, textAlign: 'center' }}>
        <Button size="small" onClick={() => logout()}>
          {translate('lock.other_user')}
        </Button>
      </Box>
    </AuthCard>
  );
}
