import { useEffect, useState } from 'react';
import { LinkBase as RouterLink, useLocation, useTranslate } from 'react-admin';
import { Box, Collapse, Drawer, List, ListItem, ListItemButton, ListItemIcon, ListItemText, ListSubheader, Tooltip, useMediaQuery } from '@mui/material';
import ExpandLess from '@mui/icons-material/ExpandLess';
import ExpandMore from '@mui/icons-material/ExpandMore';
import CircleIcon from '@mui/icons-material/FiberManualRecord';
import { activeGroupKeys, isActivePath, type MenuItem } from './menu';
import { useVisibleMenu } from './useMenu';
import { useThemeConfig } from '../theme/themeConfig';
import { badgeOf, IconCount, MenuCount } from './MenuBadge';
import { SIDEBAR_WIDTH } from '../theme/themes';

export const MOBILE_QUERY = '(max-width:1023.95px)';
const COLLAPSED_WIDTH = 72;

/**
 * The vertical sidebar of docs/product.md section 2: 260 px, section headings (hidden when empty),
 * collapsible groups (300 ms) that open on their own around the current path, the active path
 * highlighted, closed after navigation under 1024 px. 'collapsible-vertical' shrinks it to icons.
 */
export function Sidebar({ mobileOnly = false }: { mobileOnly?: boolean }) {
  const translate = useTranslate();
  const location = useLocation();
  const { sections } = useVisibleMenu();
  const { config, mobileOpen, setMobileOpen } = useThemeConfig();
  const mobile = useMediaQuery(MOBILE_QUERY);
  const mini = !mobile && config.menu === 'collapsible-vertical' && !config.sidebar;
  const [open, setOpen] = useState<Record<string, boolean>>({});
  const semidark = config.semidark && !mobile;
  // On the semi-dark sidebar the theme's primary colour is too dark to read: a light blue instead.
  const activeColor = semidark ? '#93c5fd' : 'primary.main';

  useEffect(() => {
    const active = activeGroupKeys(sections, location.pathname);
    if (active.length) setOpen((o) => ({ ...o, ...Object.fromEntries(active.map((k) => [k, true])) }));
    setMobileOpen(false);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [location.pathname]);

  const renderItem = (item: MenuItem, depth: number) => {
    const label = translate(item.label);
    const Icon = item.icon ?? CircleIcon;
    const isOpen = !!open[item.key];
    // A group shows its child's count while it is closed; the collapsed sidebar shows it on the icon.
    const badge = item.children ? (isOpen ? undefined : badgeOf(item)) : item.badge;
    const icon = (
      <ListItemIcon sx={{ minWidth: 36, color: 'inherit' }}>
        <IconCount kind={mini ? badge : undefined}>
          <Icon fontSize={depth ? 'inherit' : 'small'} />
        </IconCount>
      </ListItemIcon>
    );
    if (item.children) {
      const childActive = activeGroupKeys([{ key: 'main', items: [item] }], location.pathname).length > 0;
      return (
        <ListItem key={item.key} disablePadding sx={{ display: 'block' }}>
          <Tooltip title={mini ? label : ''} placement="right">
            <ListItemButton
              onClick={() => setOpen((o) => ({ ...o, [item.key]: !isOpen }))}
              aria-expanded={isOpen}
              sx={{ borderRadius: 1, mx: 1, color: childActive ? activeColor : 'inherit' }}
            >
              {icon}
              {!mini && <ListItemText primary={label} />}
              {!mini && badge && <MenuCount kind={badge} />}
              {!mini && (isOpen ? <ExpandLess fontSize="small" /> : <ExpandMore fontSize="small" />)}
            </ListItemButton>
          </Tooltip>
          <Collapse in={isOpen} timeout={300} unmountOnExit>
            <List disablePadding dense>
              {item.children.map((c) => renderItem(c, depth + 1))}
            </List>
          </Collapse>
        </ListItem>
      );
    }
    const active = isActivePath(item.path!, location.pathname) && !hasMoreSpecificSibling(item.path!, location.pathname, sections);
    return (
      <ListItem key={item.key} disablePadding sx={{ display: 'block' }}>
        <Tooltip title={mini ? label : ''} placement="right">
          <ListItemButton
            component={RouterLink}
            to={item.path!}
            selected={active}
            aria-current={active ? 'page' : undefined}
            sx={{ borderRadius: 1, mx: 1, pl: depth ? 4.5 : 2, '&.Mui-selected': { color: activeColor, fontWeight: 600 } }}
          >
            {icon}
            {!mini && <ListItemText primary={label} />}
            {!mini && badge && <MenuCount kind={badge} />}
          </ListItemButton>
        </Tooltip>
      </ListItem>
    );
  };

  const width = mini ? COLLAPSED_WIDTH : SIDEBAR_WIDTH;
  const content = (
    <Box component="nav" aria-label={translate('layout.main_menu')} sx={{ width, overflowX: 'hidden', py: 1 }}>
      {sections.map((s) => (
        <List
          key={s.key}
          dense
          subheader={
            s.title && !mini ? (
              <ListSubheader
                component="li"
                sx={{ bgcolor: 'transparent', color: 'inherit', opacity: 0.75, textTransform: 'uppercase', fontSize: 12, lineHeight: '32px' }}
              >
                {translate(s.title)}
              </ListSubheader>
            ) : undefined
          }
        >
          {s.items.map((i) => renderItem(i, 0))}
        </List>
      ))}
    </Box>
  );

  const paperSx = {
    width,
    boxSizing: 'border-box' as const,
    // Sticky in the layout's flow rather than fixed to the window, so a boxed layout keeps
    // the sidebar inside its box.
    position: 'sticky' as const,
    top: 64,
    height: 'calc(100vh - 64px)',
    transition: 'width 300ms',
    ...(semidark ? { bgcolor: '#0e1726', color: '#e0e6ed' } : {}),
  };
  if (mobile) {
    return (
      // The open drawer is a dialog (MUI gives its paper role="dialog"): named like the menu it holds.
      <Drawer
        variant="temporary"
        open={mobileOpen}
        onClose={() => setMobileOpen(false)}
        slotProps={{ paper: { sx: { width: SIDEBAR_WIDTH }, 'aria-label': translate('layout.main_menu') } }}
      >
        {content}
      </Drawer>
    );
  }
  if (mobileOnly) return null;
  const hidden = config.menu === 'vertical' && !config.sidebar;
  return (
    <Drawer
      variant="permanent"
      sx={{ width: hidden ? 0 : width, flexShrink: 0, transition: 'width 300ms', '& .MuiDrawer-paper': { ...paperSx, display: hidden ? 'none' : 'block' } }}
    >
      {content}
    </Drawer>
  );
}

/** /reports and /reports/dealer-profit: only the most specific item is highlighted. */
function hasMoreSpecificSibling(path: string, pathname: string, sections: ReturnType<typeof useVisibleMenu>['sections']): boolean {
  const paths: string[] = [];
  const visit = (items: MenuItem[]) => items.forEach((i) => (i.path && paths.push(i.path), i.children && visit(i.children)));
  sections.forEach((s) => visit(s.items));
  return paths.some((p) => p !== path && p.startsWith(`${path}/`) && isActivePath(p, pathname));
}
