import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { isRtl } from '../i18n/i18n';

/**
 * Theme config of docs/product.md section 3, set by the top bar and the customizer panel. Kept in its
 * own local storage key because react-admin wipes its store on logout (admin/README.md).
 */
export type ThemeMode = 'light' | 'dark' | 'system';
export type MenuMode = 'vertical' | 'horizontal' | 'collapsible-vertical';
export type LayoutMode = 'full' | 'boxed-layout';
export type Direction = 'ltr' | 'rtl';
export type NavbarMode = 'navbar-sticky' | 'navbar-floating' | 'navbar-static';
export const ANIMATIONS = [
  '',
  'animate__fadeIn',
  'animate__fadeInDown',
  'animate__fadeInUp',
  'animate__fadeInLeft',
  'animate__fadeInRight',
  'animate__slideInDown',
  'animate__slideInLeft',
  'animate__slideInRight',
  'animate__zoomIn',
] as const;
export type Animation = (typeof ANIMATIONS)[number];

export interface ThemeConfig {
  theme: ThemeMode;
  menu: MenuMode;
  layout: LayoutMode;
  rtlClass: Direction;
  navbar: NavbarMode;
  animation: Animation;
  semidark: boolean;
  /** Sidebar open (desktop) / shown (mobile). */
  sidebar: boolean;
  /** The language the direction was last set from: a new language resets it, a reload does not. */
  locale: string;
}

export const DEFAULT_THEME_CONFIG: ThemeConfig = {
  theme: 'light',
  menu: 'vertical',
  layout: 'full',
  rtlClass: 'ltr',
  navbar: 'navbar-sticky',
  animation: '',
  semidark: false,
  sidebar: true,
  locale: 'en',
};

export const THEME_CONFIG_KEY = 'theme_config';

export function loadThemeConfig(): ThemeConfig {
  try {
    const raw = localStorage.getItem(THEME_CONFIG_KEY);
    return raw ? { ...DEFAULT_THEME_CONFIG, ...JSON.parse(raw) } : DEFAULT_THEME_CONFIG;
  } catch {
    return DEFAULT_THEME_CONFIG;
  }
}

/** Light, dark, system, then light again (docs/product.md section 2). */
export const nextThemeMode = (mode: ThemeMode): ThemeMode => (mode === 'light' ? 'dark' : mode === 'dark' ? 'system' : 'light');

interface Ctx {
  config: ThemeConfig;
  isDarkMode: boolean;
  /** The mobile sidebar drawer: closed on every load, not kept. */
  mobileOpen: boolean;
  setMobileOpen: (open: boolean) => void;
  update: (patch: Partial<ThemeConfig>) => void;
  /** Follow a language: its direction applies when the language differs from the stored one. */
  followLanguage: (lng: string, direction: Direction) => void;
  reset: () => void;
}
const ThemeConfigContext = createContext<Ctx | null>(null);

const systemDark = () => typeof window !== 'undefined' && !!window.matchMedia?.('(prefers-color-scheme: dark)').matches;

export function ThemeConfigProvider({ children }: { children: ReactNode }) {
  const [config, setConfig] = useState<ThemeConfig>(loadThemeConfig);
  const [osDark, setOsDark] = useState(systemDark);
  const [mobileOpen, setMobileOpen] = useState(false);

  useEffect(() => {
    const mq = window.matchMedia?.('(prefers-color-scheme: dark)');
    if (!mq) return;
    const on = () => setOsDark(mq.matches);
    mq.addEventListener('change', on);
    return () => mq.removeEventListener('change', on);
  }, []);

  useEffect(() => {
    localStorage.setItem(THEME_CONFIG_KEY, JSON.stringify(config));
    document.documentElement.dir = config.rtlClass;
  }, [config]);

  const update = useCallback((patch: Partial<ThemeConfig>) => setConfig((c) => ({ ...c, ...patch })), []);
  const followLanguage = useCallback(
    (lng: string, direction: Direction) => setConfig((c) => (c.locale === lng ? c : { ...c, locale: lng, rtlClass: direction })),
    [],
  );
  // Defaults, with the direction of the console's language (an English console is left to right
  // again even after the customizer turned it right to left).
  const reset = useCallback(() => setConfig((c) => ({ ...DEFAULT_THEME_CONFIG, rtlClass: isRtl(c.locale) ? 'rtl' : 'ltr', locale: c.locale })), []);
  const isDarkMode = config.theme === 'dark' || (config.theme === 'system' && osDark);
  const value = useMemo(
    () => ({ config, isDarkMode, update, followLanguage, reset, mobileOpen, setMobileOpen }),
    [config, isDarkMode, update, followLanguage, reset, mobileOpen],
  );
  return <ThemeConfigContext.Provider value={value}>{children}</ThemeConfigContext.Provider>;
}

export function useThemeConfig(): Ctx {
  const ctx = useContext(ThemeConfigContext);
  if (!ctx) throw new Error('useThemeConfig outside ThemeConfigProvider');
  return ctx;
}
