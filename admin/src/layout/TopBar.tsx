import { LinkBase as RouterLink, useTranslate } from 'react-admin';
import { AppBar, Box, IconButton, Toolbar, Tooltip, Typography, useMediaQuery } from '@mui/material';
import MenuIcon from '@mui/icons-material/Menu';
import { SearchBox } from './SearchBox';
import { LanguageSwitcher } from './LanguageSwitcher';
import { ThemeSwitcher } from './ThemeSwitcher';
import { UserDropdown } from './UserDropdown';
import { Customizer } from './Customizer';
import { SandboxChip } from './SandboxChip';
import { useThemeConfig } from '../theme/themeConfig';
import { useVisibleMenu } from './useMenu';
import { MOBILE_QUERY } from './Sidebar';
import { usePublicSettings } from '../common/useCompanyFormat';

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
  // The company's name and logo (company settings); the product's name until they are read.
  const { data: company } = usePublicSettings();
  const name = company?.company_name || translate('app.name');

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
          sx={{
            fontWeight: 800,
            color: 'primary.main',
            textDecoration: 'none',
            mr: 2,
            minWidth: 0,
            flexShrink: 1,
            display: 'flex',
            alignItems: 'center',
            gap: 1,
          }}
          aria-label={`${name} · ${translate('topbar.home')}`}
        >
          {company?.logo && (
            <Box component="img" src={company.logo} alt="" sx={{ height: 32, width: 'auto', maxWidth: 96, objectFit: 'contain', flexShrink: 0 }} />
          )}
          {/* dir=auto: a Latin company name in the Arabic console is cut at its own end, not its start. */}
          <Box
            component="span"
            dir="auto"
            sx={{ overflow: 'hidden', textOverflow: 'ellipsis', display: { xs: company?.logo ? 'none' : 'inline', sm: 'inline' } }}
          >
            {name}
          </Box>
        </Typography>
        <SearchBox compact={small} />
        <Box sx={{ flex: 1 }} />
        <SandboxChip />
        <LanguageSwitcher />
        <ThemeSwitcher />
        <Customizer />
        <UserDropdown />
      </Toolbar>
    </AppBar>
  );
}
