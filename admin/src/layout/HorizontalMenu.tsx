import { useRef, useState } from 'react';
import { LinkBase as RouterLink, useLocation, useTranslate } from 'react-admin';
import { Box, Button, ClickAwayListener, ListSubheader, MenuItem as MuiMenuItem, MenuList, Paper, Popper } from '@mui/material';
import ExpandMore from '@mui/icons-material/ExpandMore';
import { activeGroupKeys, isActivePath, type MenuItem } from './menu';
import { useVisibleMenu } from './useMenu';
import { badgeOf, MenuCount } from './MenuBadge';

/**
 * Horizontal navigation (docs/product.md section 2): one button per top item, a dropdown for its
 * children (one further nested level shown as a titled block), filtered by permissions, the
 * active route highlighted, opened by hover or a click (a click keeps it open), closed on outside click.
 */
export function HorizontalMenu() {
  const translate = useTranslate();
  const { sections } = useVisibleMenu();
  const items = sections.flatMap((s) => s.items);
  return (
    <Box
      component="nav"
      aria-label={translate('layout.main_menu')}
      sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5, px: 2, py: 0.5, borderBottom: 1, borderColor: 'divider', bgcolor: 'background.paper' }}
    >
      {items.map((item) => (
        <TopItem key={item.key} item={item} />
      ))}
    </Box>
  );
}

function TopItem({ item }: { item: MenuItem }) {
  const translate = useTranslate();
  const { pathname } = useLocation();
  // Opened by hover (closes when the pointer leaves) or pinned by a click (stays until a second
  // click, a choice or a click elsewhere): a click on a parent the hover opened keeps it open.
  const [hovered, setHovered] = useState(false);
  const [pinned, setPinned] = useState(false);
  const open = hovered || pinned;
  const anchor = useRef<HTMLButtonElement>(null);
  const Icon = item.icon;
  if (!item.children) {
    const active = isActivePath(item.path!, pathname);
    return (
      <Button
        component={RouterLink}
        to={item.path!}
        startIcon={Icon ? <Icon /> : undefined}
        color={active ? 'primary' : 'inherit'}
        aria-current={active ? 'page' : undefined}
      >
        {translate(item.label)}
      </Button>
    );
  }
  const active = activeGroupKeys([{ key: 'main', items: [item] }], pathname).length > 0;
  const close = () => {
    setHovered(false);
    setPinned(false);
  };
  const renderChildren = (children: MenuItem[]): React.ReactNode[] =>
    children.flatMap((c) =>
      c.children
        ? [<ListSubheader key={`${c.key}-h`}>{translate(c.label)}</ListSubheader>, ...renderChildren(c.children)]
        : [
            <MuiMenuItem
              key={c.key}
              component={RouterLink}
              to={c.path!}
              selected={
                isActivePath(c.path!, pathname) &&
                !children.some((o) => o.path && o.path !== c.path && o.path.startsWith(`${c.path}/`) && isActivePath(o.path, pathname))
              }
              onClick={close}
            >
              {translate(c.label)}
              {c.badge && <MenuCount kind={c.badge} />}
            </MuiMenuItem>,
          ],
    );
  return (
    <Box onMouseEnter={() => setHovered(true)} onMouseLeave={() => setHovered(false)}>
      <Button
        ref={anchor}
        startIcon={Icon ? <Icon /> : undefined}
        endIcon={<ExpandMore />}
        color={active ? 'primary' : 'inherit'}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => (pinned ? close() : setPinned(true))}
      >
        {translate(item.label)}
        {badgeOf(item) && !open && <MenuCount kind={badgeOf(item)!} />}
      </Button>
      <Popper open={open} anchorEl={anchor.current} placement="bottom-start" sx={{ zIndex: 1300 }}>
        <ClickAwayListener onClickAway={(e) => !anchor.current?.contains(e.target as Node) && close()}>
          <Paper elevation={4}>
            <MenuList dense>{renderChildren(item.children)}</MenuList>
          </Paper>
        </ClickAwayListener>
      </Popper>
    </Box>
  );
}
