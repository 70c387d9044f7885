import { useMemo, type ReactNode } from 'react';
import createCache from '@emotion/cache';
import { CacheProvider } from '@emotion/react';
import { prefixer } from 'stylis';
import rtlPlugin from '@mui/stylis-plugin-rtl';
import type { Direction } from './themeConfig';

/** MUI's right-to-left recipe: an emotion cache with the RTL stylis plugin, switched with the direction. */
export function DirectionCache({ direction, children }: { direction: Direction; children: ReactNode }) {
  const cache = useMemo(
    () => (direction === 'rtl' ? createCache({ key: 'muirtl', stylisPlugins: [prefixer, rtlPlugin] }) : createCache({ key: 'mui', prepend: true })),
    [direction],
  );
  return <CacheProvider value={cache}>{children}</CacheProvider>;
}
