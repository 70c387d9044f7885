import { afterEach, describe, expect, it } from 'vitest';
import { act, cleanup, render } from '@testing-library/react';
import { DEFAULT_THEME_CONFIG, loadThemeConfig, nextThemeMode, THEME_CONFIG_KEY, ThemeConfigProvider, useThemeConfig } from './themeConfig';

describe('theme config (docs/product.md sections 2 and 3)', () => {
  afterEach(() => {
    cleanup();
    localStorage.clear();
  });

  it('defaults: light, vertical, full, ltr, sticky navbar', () => {
    expect(loadThemeConfig()).toMatchObject({ theme: 'light', menu: 'vertical', layout: 'full', rtlClass: 'ltr', navbar: 'navbar-sticky', semidark: false });
  });

  it('the theme switcher cycles light, dark, system, then light', () => {
    expect(nextThemeMode('light')).toBe('dark');
    expect(nextThemeMode('dark')).toBe('system');
    expect(nextThemeMode('system')).toBe('light');
  });

  it('keeps every choice in local storage (outside the store that logout wipes) and sets the page direction', () => {
    let ctx!: ReturnType<typeof useThemeConfig>;
    const Probe = () => {
      ctx = useThemeConfig();
      return null;
    };
    render(
      <ThemeConfigProvider>
        <Probe />
      </ThemeConfigProvider>,
    );
    act(() =>
      ctx.update({
        theme: 'dark',
        menu: 'horizontal',
        rtlClass: 'rtl',
        animation: 'animate__zoomIn',
        navbar: 'navbar-floating',
        layout: 'boxed-layout',
        semidark: true,
      }),
    );
    expect(ctx.isDarkMode).toBe(true);
    expect(JSON.parse(localStorage.getItem(THEME_CONFIG_KEY)!)).toMatchObject({
      theme: 'dark',
      menu: 'horizontal',
      rtlClass: 'rtl',
      animation: 'animate__zoomIn',
      semidark: true,
    });
    expect(document.documentElement.dir).toBe('rtl');
    expect(loadThemeConfig()).toMatchObject({ navbar: 'navbar-floating', layout: 'boxed-layout' });
    // "Reset to defaults" in an English console: left to right again (the language's direction).
    act(() => ctx.reset());
    expect(ctx.config).toEqual({ ...DEFAULT_THEME_CONFIG, rtlClass: 'ltr' });
    expect(document.documentElement.dir).toBe('ltr');
  });

  it('"Reset to defaults" keeps an Arabic console right to left, and an English one left to right', () => {
    let ctx!: ReturnType<typeof useThemeConfig>;
    const Probe = () => {
      ctx = useThemeConfig();
      return null;
    };
    render(
      <ThemeConfigProvider>
        <Probe />
      </ThemeConfigProvider>,
    );
    act(() => ctx.followLanguage('ae', 'rtl'));
    act(() => ctx.update({ rtlClass: 'ltr', theme: 'dark' }));
    act(() => ctx.reset());
    expect(ctx.config).toMatchObject({ rtlClass: 'rtl', locale: 'ae', theme: 'light' });
    expect(document.documentElement.dir).toBe('rtl');
    act(() => ctx.followLanguage('en', 'ltr'));
    act(() => ctx.update({ rtlClass: 'rtl' }));
    act(() => ctx.reset());
    expect(ctx.config).toMatchObject({ rtlClass: 'ltr', locale: 'en' });
    expect(document.documentElement.dir).toBe('ltr');
  });
});
