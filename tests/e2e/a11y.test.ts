import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { newPage, signIn, useServerAndBrowser } from './harness';

const env = useServerAndBrowser();

/** Serious and critical axe-core violations, as "rule: target" lines for a readable failure. */
async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')}`));
}

describe('accessibility (axe-core): no serious or critical violations', () => {
  it('on the sign-in page', async () => {
    const { context, page } = await newPage(env.browser, env.server.url);
    await page.goto('/auth/login');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });

  it('on the dashboard shell and the user list, light and dark', async () => {
    const { context, page } = await newPage(env.browser, env.server.url);
    await signIn(page);
    await page.waitForURL(/\/dashboard$/);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await page.goto('/admin');
    await page.getByRole('row').filter({ hasText: 'admin@example.com' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByTestId('theme-switcher').click();
    await page.locator('[data-testid=theme-switcher][data-mode=dark]').waitFor();
    // Measured after a reload, not in the middle of the colour transitions.
    await page.reload();
    await page.getByRole('row').filter({ hasText: 'admin@example.com' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });

  // Every console screen an admin can open, in the three languages (Arabic right to left).
  const CONSOLE_PAGES = [
    '/dashboard',
    '/internet-providers',
    '/dealer-providers',
    '/banners',
    '/wallets',
    '/wallet-transactions',
    '/recharges',
    '/recharges/review',
    '/missed-sales',
    '/reports',
    '/reports/dealer-profit',
    '/settings',
    '/settings/money',
    '/settings/mail',
    '/settings/roles',
    '/settings/areas',
    '/settings/payment-methods',
    '/settings/company',
    '/settings/contacts',
    '/logs',
    '/trash',
    '/admin',
    '/dealers',
    '/auth/profile',
  ];
  for (const lang of ['en', 'ae', 'so'] as const) {
    it(`on every console screen in ${lang}`, async () => {
      const { context, page } = await newPage(env.browser, env.server.url);
      await signIn(page);
      await page.waitForURL(/\/dashboard$/);
      await page.evaluate((l) => localStorage.setItem('i18nextLng', l), lang);
      const found: string[] = [];
      for (const path of CONSOLE_PAGES) {
        await page.goto(path);
        await page.locator('h1').first().waitFor();
        // Lists and cards load after the heading: let them settle.
        await page.waitForLoadState('networkidle');
        found.push(...(await seriousViolations(page)).map((v) => `${path}: ${v}`));
      }
      expect(found).toEqual([]);
      await context.close();
    }, 300_000);
  }
});
