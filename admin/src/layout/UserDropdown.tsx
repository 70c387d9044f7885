import { lazy, Suspense, useState } from 'react';
import { LinkBase as RouterLink, useLogout, useNotify, useTranslate } from 'react-admin';
import { Avatar, Box, Chip, Divider, IconButton, ListItemIcon, Menu, MenuItem, Tooltip, Typography } from '@mui/material';
import PersonIcon from '@mui/icons-material/PersonOutlined';
import LockIcon from '@mui/icons-material/LockOutlined';
import LogoutIcon from '@mui/icons-material/Logout';
import { useSignedInUser } from '../auth/identity';
import { resolveImage } from '../common/image';
// Loaded when first opened: it brings the form library and the shared schemas.
const LockSessionDialog = lazy(() => import('../auth/LockSessionDialog'));

/** The user dropdown of docs/product.md section 2 (230 px): image, name, Admin badge, email, links. */
export function UserDropdown() {
  const translate = useTranslate();
  const notify = useNotify();
  const logout = useLogout();
  const user = useSignedInUser();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const [lockOpen, setLockOpen] = useState(false);
  const [loggingOut, setLoggingOut] = useState(false);
  const image = resolveImage(user?.profile_image);

  const onLogout = async () => {
    setLoggingOut(true);
    try {
      await logout();
      notify('user_menu.logged_out', { type: 'success', messageArgs: { _: 'Logged out successfully' } });
    } finally {
      setLoggingOut(false);
      setAnchor(null);
    }
  };

  return (
    <>
      <Tooltip title={user?.name ?? ''}>
        <IconButton onClick={(e) => setAnchor(e.currentTarget)} aria-label={translate('user_menu.open')} aria-haspopup="menu" data-testid="user-menu">
          <Avatar src={image} alt="" sx={{ width: 34, height: 34 }} />
        </IconButton>
      </Tooltip>
      <Menu
        anchorEl={anchor}
        open={!!anchor}
        onClose={() => setAnchor(null)}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'right' }}
        slotProps={{ paper: { sx: { width: 230 } } }}
      >
        <Box sx={{ display: 'flex', gap: 1.5, alignItems: 'center', px: 2, py: 1 }}>
          <Avatar src={image} alt="" />
          <Box sx={{ minWidth: 0 }}>
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
              <Typography noWrap sx={{ fontWeight: 600 }}>
                {user?.name}
              </Typography>
              <Chip label={translate('user_menu.admin_badge')} size="small" color="success" sx={{ height: 20 }} />
            </Box>
            <Typography variant="body2" color="text.secondary" noWrap title={user?.email}>
              {user?.email}
            </Typography>
          </Box>
        </Box>
        <Divider />
        <MenuItem component={RouterLink} to="/auth/profile" onClick={() => setAnchor(null)}>
          <ListItemIcon>
            <PersonIcon fontSize="small" />
          </ListItemIcon>
          {translate('user_menu.profile')}
        </MenuItem>
        <MenuItem
          onClick={() => {
            setAnchor(null);
            setLockOpen(true);
          }}
        >
          <ListItemIcon>
            <LockIcon fontSize="small" />
          </ListItemIcon>
          {translate('user_menu.lock_screen')}
        </MenuItem>
        <Divider />
        <MenuItem onClick={onLogout} disabled={loggingOut} sx={{ color: 'error.main' }}>
          <ListItemIcon>
            <LogoutIcon fontSize="small" color="error" />
          </ListItemIcon>
          {loggingOut ? translate('user_menu.logging_out') : translate('user_menu.logout')}
        </MenuItem>
      </Menu>
      {lockOpen && (
        <Suspense fallback={null}>
          <LockSessionDialog open onClose={() => setLockOpen(false)} />
        </Suspense>
      )}
    </>
  );
}
