import { useState } from 'react';
import { Navigate, useLogout, useNavigate, useTranslate } from 'react-admin';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, Box, Button, Stack } from '@mui/material';
import { LOCK_PATH, LOGIN_PATH } from '../providers/authProvider';
import type { RecoveryCodes as Codes } from '../profile/accountCalls';
import { mustEnrolTwoFactor } from '../providers/session';
import { useSignInState } from './useSignInState';
import { useSignedInUser, useUserPermissions } from './identity';
import { homePath } from '../layout/menu';
import { MENU } from '../layout/menuItems';
import { AuthCard } from './AuthCard';
import { TwoFactorEnrolment } from './TwoFactorEnrolment';
import { RecoveryCodes } from './RecoveryCodes';

/**
 * /auth/two-factor-setup (blank layout): where a user whose role requires two-factor sign-in is
 * sent until it is set up. The API refuses everything else meanwhile; this page is the way on.
 */
export default function TwoFactorSetupPage() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const logout = useLogout();
  const queryClient = useQueryClient();
  const state = useSignInState();
  const user = useSignedInUser();
  const permissions = useUserPermissions();
  const [codes, setCodes] = useState<Codes | null>(null);
  // Decided on arrival: once enrolled here, the page stays to show the recovery codes.
  const [needed] = useState(() => mustEnrolTwoFactor(user));
  if (state === 'signed-out' || !user) return <Navigate to={LOGIN_PATH} replace />;
  if (state === 'locked') return <Navigate to={LOCK_PATH} replace />;
  const home = homePath(MENU, permissions, user.user_type);
  if (!needed) return <Navigate to={home} replace />;

  const finish = async () => {
    await queryClient.invalidateQueries({ queryKey: ['auth'] });
    navigate(home, { replace: true });
  };

  return (
    <AuthCard
      title={translate(codes ? 'two_factor.codes_title' : 'two_factor.setup_title')}
      subtitle={codes ? undefined : translate('two_factor.setup_required')}
    >
      {codes ? (
        <Stack spacing={2}>
          <Alert severity="success">{translate('two_factor.now_on')}</Alert>
          <RecoveryCodes codes={codes.recovery_codes} />
          <Button variant="contained" size="large" onClick={finish}>
            {translate('two_factor.continue')}
          </Button>
        </Stack>
      ) : (
        <TwoFactorEnrolment onDone={setCodes} />
      )}
      <Box sx={{ mt: 2, textAlign: 'center' }}>
        <Button size="small" onClick={() => logout()}>
          {translate('two_factor.sign_out')}
        </Button>
      </Box>
    </AuthCard>
  );
}
