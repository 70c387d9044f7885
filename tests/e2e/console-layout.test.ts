import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { ADMIN, apiData, artifactPath, buyFromDemoShop, ensureAdminBuild, launchBrowser, newPage, signIn, startServer, type Server } from './harness';

/**
 * The console's layout on a phone (390 px) and on a laptop (1366 px), issue 28 item 10: status
 * chips that read (axe, light and dark), the Dealers table whole at 1366 px, the dashboard's latest
 * sales as a phone list, toasts off the top bar on phones, the search toggle focusing its field,
 * lists never blank while they load, "Reset to defaults" back to the language's direction, and the
 * horizontal menu kept open by a click. The demo with its sales history (chips of every status).
 */
let server: Server;
let browser: Browser;
beforeAll(async () => {
  ensureAdminBuild();
  [server, browser] = await Promise.all([startServer({ SEED_DEMO_HISTORY: 'true', PAYMENT_SANDBOX_APPROVAL_MS: '600000' }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1366, height: 768 };

async function at(path: string, viewport: { width: number; height: number }, locale = 'en-US', before?: (page: Page) => Promise<void>) {
  const opened = await newPage(browser, server.url, locale);
  await opened.page.setViewportSize(viewport);
  if (before) await before(opened.page);
  await signIn(opened.page, ADMIN, `/auth/login?redirect=${encodeURIComponent(path)}`);
  await opened.page.waitForURL((u) => u.pathname === path);
  return opened;
}

async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')}`));
}

const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe('status chips', () => {
  it('a sale with its orange (warning) payment chip passes axe, light and dark', async () => {
    // A sale whose payment prompt waits on the buyer's phone (the stand-in approves after 10 minutes): "Prompt sent", orange.
    const token = (await apiData<{ token: string }>(server, '/auth/admin/login', { method: 'POST', body: { email: ADMIN.email, password: ADMIN.password } }))
      .token;
    const [wallet] = await apiData<{ id: number }[]>(server, '/wallets?q=DEMO', { token });
    await apiData(server, `/wallets/${wallet.id}/top-up`, { method: 'POST', token, body: { amount: '5.00', reference: 'chips-e2e' } });
    const sale = await buyFromDemoShop(server, { phone: '0615550101', idempotencyKey: `chips-${Date.now()}` });
    expect(sale.status).toBe(201);
    const { context, page } = await at(`/recharges/${sale.data.id}`, LAPTOP);
    await page.locator('.MuiChip-colorWarning').first().waitFor();
    expect(await page.locator('.MuiChip-colorWarning').count()).toBeGreaterThan(0);
    expect(await seriousViolations(page)).toEqual([]);

    // Dark (the sale opens over its list, a modal: the top bar's switcher is behind it).
    await page.evaluate(() =>
      localStorage.setItem('theme_config', JSON.stringify({ ...JSON.parse(localStorage.getItem('theme_config') ?? '{}'), theme: 'dark' })),
    );
    await page.reload();
    await page.locator('[data-testid=theme-switcher][data-mode=dark]').waitFor({ state: 'attached' });
    await page.locator('.MuiChip-colorWarning').first().waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });
});

describe('the Sandbox chip (issue 28 item 12: the default server runs the stand-ins)', () => {
  // On a laptop it reads "Sandbox"; on a phone it is an icon named by its words. Each: the bar
  // keeps its buttons on screen, axe, light and dark, English and Arabic.
  for (const viewport of [LAPTOP, PHONE]) {
    it(`at ${viewport.width} px`, { timeout: 240_000 }, async () => {
      const { context, page } = await at('/dashboard', viewport);
      for (const lng of ['en', 'ae']) {
        for (const theme of ['light', 'dark']) {
          await page.evaluate(
            ([l, t]) => {
              localStorage.setItem('i18nextLng', l);
              localStorage.setItem('theme_config', JSON.stringify({ ...JSON.parse(localStorage.getItem('theme_config') ?? '{}'), theme: t }));
            },
            [lng, theme],
          );
          await page.reload();
          await page.locator(`[data-testid=theme-switcher][data-mode=${theme}]`).waitFor({ state: 'attached' });
          await expect.poll(() => page.evaluate(() => document.documentElement.dir)).toBe(lng === 'ae' ? 'rtl' : 'ltr');
          const chip = page.getByTestId('sandbox-chip');
          await chip.waitFor();
          const name = (await chip.getAttribute('aria-label')) ?? '';
          expect(name).toContain(lng === 'en' ? 'Payments are not real: customers are not charged' : 'المدفوعات ليست حقيقية');
          expect((await chip.innerText()).trim()).toBe(viewport === PHONE ? '' : lng === 'en' ? 'Sandbox' : 'تجريبي');
          // Every control of the bar on screen, the chip and the user menu included (their icons: an
          // edge button's padding may pass the edge by design).
          const controls = await page.locator('header :is(button, a)').evaluateAll((els) =>
            els
              .filter((el) => el.checkVisibility())
              .map((el) => {
                const box = (el.querySelector('svg, img') ?? el).getBoundingClientRect();
                return { name: el.getAttribute('aria-label') ?? el.textContent, left: box.left, right: box.right };
              }),
          );
          expect(controls.length).toBeGreaterThan(3);
          expect(controls.filter((c) => c.left < 0 || c.right > viewport.width)).toEqual([]);
          await expect
            .poll(() => page.getByTestId('connector-mode-line').innerText())
            .toContain(lng === 'en' ? 'Payments: Sandbox — nobody is charged' : 'المدفوعات: تجريبي');
          expect(await overflow(page)).toBeLessThanOrEqual(0);
          const axe = await new AxeBuilder({ page }).include('header').analyze();
          expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
          const size = viewport === PHONE ? 'phone' : 'laptop';
          await page
            .locator('header')
            .first()
            .screenshot({ path: artifactPath(`console-sandbox-chip-${size}-${lng}-${theme}.png`) });
          if (viewport === LAPTOP && lng === 'en' && theme === 'light') {
            await chip.hover();
            await page.getByRole('tooltip').waitFor();
            await page.screenshot({ path: artifactPath('console-sandbox-chip-tooltip.png'), clip: { x: 0, y: 0, width: LAPTOP.width, height: 260 } });
          }
        }
      }
      await context.close();
    });
  }
});

describe('at 1366 px', () => {
  it('the Dealers table fits: every column in view, the row actions reachable, nothing scrolls sideways', async () => {
    const { context, page } = await at('/dealers', LAPTOP);
    const row = page.getByRole('row').filter({ hasText: 'dealer@example.com' });
    await row.waitFor();
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    const table = await page.locator('main table').first().boundingBox();
    const main = await page.locator('main').boundingBox();
    expect(table!.x + table!.width).toBeLessThanOrEqual(main!.x + main!.width + 1);
    const lastCell = await row.locator('td').last().boundingBox();
    expect(lastCell!.x + lastCell!.width).toBeLessThanOrEqual(LAPTOP.width);
    await context.close();
  });

  it('the horizontal menu: a click on a parent the hover opened keeps it open; a second click closes it', async () => {
    const { context, page } = await at('/dashboard', LAPTOP, 'en-US', async (p) => {
      await p.addInitScript(() => localStorage.setItem('theme_config', JSON.stringify({ menu: 'horizontal', locale: 'en' })));
    });
    const nav = page.getByRole('navigation', { name: 'Main menu' });
    const parent = nav.getByRole('button', { name: /^Recharges/ });
    const child = page.getByRole('menuitem').first();
    // Each try leaves the bar and comes back: a pointer already resting on the button sends no new
    // mouseenter, so hovering in place again could never open it (the top bar may still be settling
    // under a first hover). What the page showed is printed if it never opens.
    const opened = await expect
      .poll(
        async () => {
          await page.mouse.move(LAPTOP.width / 2, LAPTOP.height - 20);
          await parent.hover();
          return child.isVisible();
        },
        { timeout: 20_000, interval: 300 },
      )
      .toBe(true)
      .then(
        () => true,
        async (error: unknown) => {
          const box = await parent.boundingBox();
          console.error('horizontal menu never opened', {
            expanded: await parent.getAttribute('aria-expanded'),
            box,
            atCentre: box
              ? await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.outerHTML.slice(0, 200), [box.x + box.width / 2, box.y + box.height / 2])
              : null,
            menuItems: await page.getByRole('menuitem').evaluateAll((els) => els.map((el) => [el.textContent, el.checkVisibility()])),
          });
          await page.screenshot({ path: artifactPath('console-horizontal-menu-failed.png') });
          throw error;
        },
      );
    expect(opened).toBe(true);
    await parent.click();
    await page.waitForTimeout(300);
    expect(await parent.getAttribute('aria-expanded')).toBe('true');
    expect(await child.isVisible()).toBe(true);
    // Pinned: it stays open when the pointer leaves.
    await page.mouse.move(LAPTOP.width / 2, LAPTOP.height - 20);
    await page.waitForTimeout(300);
    expect(await child.isVisible()).toBe(true);
    await parent.click();
    await page.mouse.move(LAPTOP.width / 2, LAPTOP.height - 20);
    await child.waitFor({ state: 'hidden' });
    expect(await parent.getAttribute('aria-expanded')).toBe('false');
    await context.close();
  });

  it('the dashboard keeps its latest sales table and toasts top right', async () => {
    const { context, page } = await at('/dashboard', LAPTOP);
    const card = page.locator('.MuiCard-root').filter({ has: page.getByRole('heading', { name: 'Latest sales' }) });
    await card.locator('table').waitFor();
    expect(await page.getByTestId('latest-sales-list').count()).toBe(0);
    await page.goto('/dealers/999999');
    const toast = page.locator('.MuiSnackbar-root').first();
    await toast.waitFor();
    expect((await toast.boundingBox())!.y).toBeLessThan(LAPTOP.height / 3);
    await context.close();
  });
});

describe('at 390 px', () => {
  it('the dashboard lists the latest sales as a phone list, nothing wider than the screen', async () => {
    const { context, page } = await at('/dashboard', PHONE);
    const list = page.getByTestId('latest-sales-list');
    await list.waitFor();
    const card = page.locator('.MuiCard-root').filter({ has: page.getByRole('heading', { name: 'Latest sales' }) });
    expect(await card.locator('table').count()).toBe(0);
    const box = await list.boundingBox();
    expect(box!.width).toBeLessThanOrEqual(PHONE.width);
    expect(await list.getByRole('link').count()).toBeGreaterThan(0);
    await page.waitForLoadState('networkidle');
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await context.close();
  });

  it('toasts show at the bottom, off the top bar', async () => {
    const { context, page } = await at('/dashboard', PHONE);
    await page.goto('/dealers/999999');
    const toast = page.locator('.MuiSnackbar-root').first();
    await toast.waitFor();
    const box = (await toast.boundingBox())!;
    const bar = (await page.locator('header').first().boundingBox())!;
    expect(box.y).toBeGreaterThan(bar.y + bar.height);
    expect(box.y + box.height).toBeGreaterThan(PHONE.height * 0.75);
    // Above the Save and Cancel bar at the foot of a form drawer (64 px), which it covered before.
    expect(box.y + box.height).toBeLessThanOrEqual(PHONE.height - 64);
    await context.close();
  });

  it('the search toggle opens the field focused, ready to type', async () => {
    const { context, page } = await at('/dashboard', PHONE);
    await page.locator('header').getByRole('button', { name: 'Search' }).click();
    const field = page.getByRole('searchbox', { name: 'Search' });
    await field.waitFor();
    await expect.poll(() => field.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type('DEMO');
    expect(await field.inputValue()).toBe('DEMO');
    // Enter: the results, and the floating field out of the way of their heading (it covered it).
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/search\?q=DEMO$/);
    // The results' own heading (the dashboard's may still show while the page loads), read once it
    // is on screen: uncovered at its start.
    const heading = page.getByRole('heading', { level: 1, name: /DEMO/ });
    await heading.waitFor();
    await field.waitFor({ state: 'detached' });
    await expect
      .poll(async () => {
        const box = await heading.boundingBox();
        return box && page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.closest('h1') !== null, [box.x + 4, box.y + box.height / 2]);
      })
      .toBe(true);
    await context.close();
  });

  it('a list shows a loading bar, not a blank page, while its data is on the way', async () => {
    const { context, page } = await at('/dashboard', PHONE);
    await page.route(/\/api\/v1\/users\?/, async (route) => {
      await new Promise((r) => setTimeout(r, 6000));
      await route.continue();
    });
    await page.goto('/dealers');
    const bar = page.getByRole('progressbar', { name: 'Loading' });
    await bar.waitFor({ timeout: 5000 });
    expect(await page.getByText('dealer@example.com').count()).toBe(0);
    await page.getByText('dealer@example.com').first().waitFor();
    await bar.waitFor({ state: 'detached' });
    await context.close();
  });

  it('"Reset to defaults" in the customizer leaves an English console left to right', async () => {
    const { context, page } = await at('/dashboard', PHONE);
    await page.locator('main h1').first().waitFor();
    await page.getByRole('button', { name: 'Open customizer' }).click();
    await page.getByRole('button', { name: 'RTL', exact: true }).click();
    await expect.poll(() => page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await page.getByRole('button', { name: 'Reset to defaults' }).click();
    await expect.poll(() => page.evaluate(() => document.documentElement.dir)).toBe('ltr');
    await context.close();
  });

  it('screenshots: the dashboard and a list in English and Arabic', async () => {
    for (const lng of ['en', 'ae']) {
      const { context, page } = await at('/dashboard', PHONE);
      await page.evaluate((l) => localStorage.setItem('i18nextLng', l), lng);
      await page.reload();
      await page.getByTestId('latest-sales-list').waitFor();
      expect(await page.evaluate(() => document.documentElement.dir)).toBe(lng === 'ae' ? 'rtl' : 'ltr');
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: artifactPath(`console-phone-dashboard-${lng}.png`), fullPage: true });
      await page.goto('/recharges');
      await page.locator('main h1').first().waitFor();
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: artifactPath(`console-phone-recharges-${lng}.png`) });
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      await context.close();
    }
  });
});
