import { defaultLightTheme, defaultDarkTheme, type RaThemeOptions } from 'react-admin';
import type { Direction } from './themeConfig';

export const SIDEBAR_WIDTH = 260;

/** react-admin's default themes with the direction and the sidebar width of docs/product.md section 2. */
export function buildTheme(dark: boolean, direction: Direction): RaThemeOptions {
  const base = dark ? defaultDarkTheme : defaultLightTheme;
  return {
    ...base,
    direction,
    palette: { ...base.palette, ...(dark ? {} : { primary: { main: '#1d4ed8' } }) },
    sidebar: { width: SIDEBAR_WIDTH, closedWidth: 64 },
    components: {
      ...base.components,
      MuiButtonBase: { defaultProps: { disableRipple: false } },
      // The top bar sits above the permanent sidebar (drawer + 1); every temporary drawer (slide-over
      // forms, the mobile sidebar, the customizer) opens above both, as a modal does.
      MuiDrawer: { styleOverrides: { modal: { zIndex: 1300 } } }, // theme.zIndex.modal
    },
  };
}
