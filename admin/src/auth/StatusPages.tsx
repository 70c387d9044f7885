import type { ReactNode } from 'react';
import { useNavigate, useTranslate } from 'react-admin';
import { Box, Button, Stack, Typography } from '@mui/material';
import { homePath } from '../layout/menu';
import { MENU } from '../layout/menuItems';
import { useUserPermissions } from './identity';

/** Bare full-page status screen used by /unauthorized, the not-found page and the error page. */
function StatusPage({ code, title, text, actions }: { code: string; title: string; text: string; actions?: ReactNode }) {
  const translate = useTranslate();
  const navigate = useNavigate();
  const permissions = useUserPermissions();
  return (
    <Box component="main" sx={{ minHeight: '100vh', display: 'flex', alignItems: 'center', justifyContent: 'center', p: 3, bgcolor: 'background.default' }}>
      <Stack spacing={2} sx={{ alignItems: 'center', textAlign: 'center', maxWidth: 520 }}>
        <Typography variant="h2" component="p" color="primary" aria-hidden sx={{ fontWeight: 800 }}>
          {code}
        </Typography>
        <Typography variant="h4" component="h1" sx={{ fontWeight: 700 }}>
          {title}
        </Typography>
        <Typography color="text.secondary">{text}</Typography>
        <Stack direction="row" spacing={2}>
          {actions}
          <Button variant="outlined" onClick={() => navigate(-1)}>
            {translate('status.go_back')}
          </Button>
          <Button variant="contained" onClick={() => navigate(homePath(MENU, permissions))}>
            {translate('status.back_home')}
          </Button>
        </Stack>
      </Stack>
    </Box>
  );
}

export function UnauthorizedPage() {
  const translate = useTranslate();
  return <StatusPage code="403" title={translate('status.unauthorized_title')} text={translate('status.unauthorized_text')} />;
}

export function NotFoundPage() {
  const translate = useTranslate();
  return <StatusPage code="404" title={translate('status.not_found_title')} text={translate('status.not_found_text')} />;
}

export function ErrorPage() {
  const translate = useTranslate();
  return <StatusPage code="500" title={translate('status.error_title')} text={translate('status.error_text')} />;
}
