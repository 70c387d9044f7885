import { LinkBase as RouterLink, useTranslate } from 'react-admin';
import { AppBar, Box, IconButton, Toolbar, Tooltip, Typography, useMediaQuery } from '@mui/material';
import MenuIcon from '@mui/icons-material/Menu';
import { SearchBox } from './SearchBox';
import { LanguageSwitcher } from './LanguageSwitcher';
import { ThemeSwitcher } from './ThemeSwitcher';
import { UserDropdown } from './UserDropdown';
import { Customizer } from './Customizer';
import { useThemeConfig } from '../theme/themeConfig';
import { useVisibleMenu } from './useMenu';
import { MOBILE_QUERY } from './Sidebar';

/** The top bar of docs/product.md section 2. */
export function TopBar() {
  const translate = useTranslate();
  const { config, update, mobileOpen, setMobileOpen } = useThemeConfig();
  const { home } = useVisibleMenu();
  const mobile = useMediaQuery(MOBILE_QUERY);
  const small = useMediaQuery('(max-width:767.95px)');
  const position = config.navbar === 'navbar-static' ? 'static' : 'sticky';
  const floating = config.navbar === 'navbar-floating';
  const showToggle = mobile || config.menu !== 'horizontal';

  return (
    <AppBar
      position={position}
      color="inherit"
      elevation={floating ? 4 : 1}
      sx={{ zIndex: (t) => t.zIndex.drawer + 1, ...(floating ? { top: 8, mx: 1, width: 'auto', borderRadius: 2 } : {}) }}
    >
      <Toolbar sx={{ gap: { xs: 0.5, sm: 1 }, position: 'relative', px: { xs: 1, sm: 2 } }}>
        {showToggle && (
          <Tooltip title={translate('topbar.toggle_sidebar')}>
            <IconButton
              edge="start"
              color="inherit"
              aria-label={translate('topbar.toggle_sidebar')}
              onClick={() => (mobile ? setMobileOpen(!mobileOpen) : update({ sidebar: !config.sidebar }))}
            >
              <MenuIcon />
            </IconButton>
          </Tooltip>
        )}
        <Typography
          component={RouterLink}
          to={home}
          variant="h6"
          noWrap
          sx={{ fontWeight: 800, color: 'primary.main', textDecoration: 'none', mr: 2, minWidth: 0, flexShrink: 1 }}
          aria-label={translate('topbar.home')}
        >
          {translate('app.name')}
        </Typography>
        <SearchBox compact={small} />
        <Box sx={{ flex: 1 }} />
        <LanguageSwitcher />
        <ThemeSwitcher />
        <Customizer />
        <UserDropdown />
      </Toolbar>
    </AppBar>
  );
}
