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
    },
  };
}
