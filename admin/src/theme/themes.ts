import { defaultLightTheme, defaultDarkTheme, type RaThemeOptions } from 'react-admin';
import type { Theme } from '@mui/material/styles';
import type { Direction } from './themeConfig';

export const SIDEBAR_WIDTH = 260;

/** react-admin's default themes with the direction and the sidebar width of docs/product.md section 2. */
export function buildTheme(dark: boolean, direction: Direction): RaThemeOptions {
  const base = dark ? defaultDarkTheme : defaultLightTheme;
  return {
    ...base,
    direction,
    // Status chips (warning, info, error) with text that reads at WCAG AA 4.5:1 on them and on the page:
    // MUI's light orange (#ed6c02) and light blue (#0288d1) under white text do not (3.1:1, 4.1:1).
    palette: {
      ...base.palette,
      ...(dark
        ? {
            warning: { main: '#ffb74d', contrastText: 'rgba(0, 0, 0, 0.87)' },
            info: { main: '#4fc3f7', contrastText: 'rgba(0, 0, 0, 0.87)' },
            // MUI's dark red (#f44336) takes white text at 3.7:1; a lighter red with dark text reads, and
            // red text reads on raised dark cards too (#ef5350 was 3.7:1 on a card's #313131, this is 5.5:1).
            error: { main: '#f28b82', contrastText: 'rgba(0, 0, 0, 0.87)' },
          }
        : { primary: { main: '#1d4ed8' }, warning: { main: '#b45309', contrastText: '#ffffff' }, info: { main: '#0369a1', contrastText: '#ffffff' } }),
    },
    sidebar: { width: SIDEBAR_WIDTH, closedWidth: 64 },
    components: {
      ...base.components,
      MuiButtonBase: { defaultProps: { disableRipple: false } },
      // A read-only field's helper text says why it cannot change (the currency once money exists):
      // it must read (text.disabled is 2.7:1 on white), so it keeps the secondary text colour.
      MuiFormHelperText: { styleOverrides: { root: ({ theme }: { theme: Theme }) => ({ '&.Mui-disabled': { color: theme.palette.text.secondary } }) } },
      // The top bar sits above the permanent sidebar (drawer + 1); every temporary drawer (slide-over
      // forms, the mobile sidebar, the customizer) opens above both, as a modal does.
      MuiDrawer: { styleOverrides: { modal: { zIndex: 1300 } } }, // theme.zIndex.modal
      // A table wider than its card scrolls inside it (the card, the page's toolbar and its pagination stay in view).
      RaDatagrid: { styleOverrides: { root: { '& .RaDatagrid-tableWrapper': { overflowX: 'auto' } } } },
    },
  };
}
