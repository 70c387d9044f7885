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
});
