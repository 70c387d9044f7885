import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN, DEALER, newPage, signIn, useServerAndBrowser } from './harness';

/**
 * The console on a phone (390 px): no list cut off or scrolling sideways, filters behind a
 * button, the customizer in the top bar covering nothing; logs written as sentences in the
 * user's language; My wallet only for dealers.
 */
const env = useServerAndBrowser();

const PHONE = { width: 390, height: 844 };

async function phonePage(who = ADMIN, path = '/dashboard') {
  const opened = await newPage(env.browser, env.server.url);
  await opened.page.setViewportSize(PHONE);
  await signIn(opened.page, who, `/auth/login?redirect=${encodeURIComponent(path)}`);
  await opened.page.waitForURL((u) => u.pathname === path);
  return opened;
}

/** Waits for the list to settle (its rows, its empty state or its error), then measures. */
async function settle(page: Page) {
  await page.locator('main h1').first().waitFor();
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(300);
}

const overflow = (page: Page) => page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));

async function token(page: Page) {
  const cookies = await page.context().cookies();
  return cookies.find((c) => c.name === 'auth_token')!.value;
}

describe('the console at 390 px', () => {
  const ADMIN_LISTS = [
    '/wallets',
    '/wallet-transactions',
    '/recharges',
    '/recharges/review',
    '/missed-sales',
    '/logs',
    '/banners',
    '/internet-providers',
    '/dealer-providers',
    '/dealers',
    '/admin',
    '/settings/roles',
    '/settings/areas',
    '/settings/payment-methods',
    '/settings/contacts',
    '/trash/users',
  ];

  it('no list is wider than the screen, and the wide ones are simple lists, not tables', async () => {
    const { context, page, errors } = await phonePage(ADMIN, '/wallets');
    for (const path of ADMIN_LISTS) {
      await page.goto(path);
      await settle(page);
      const { scroll } = await overflow(page);
      expect(scroll, `${path} scrolls sideways`).toBeLessThanOrEqual(PHONE.width);
    }
    for (const path of ['/wallets', '/wallet-transactions', '/recharges', '/logs']) {
      await page.goto(path);
      await settle(page);
      await expect(page.locator('main table').count(), path).resolves.toBe(0);
    }
    expect(errors).toEqual([]);
    await context.close();
  });

  it('filters wait behind a button instead of stacking above the data', async () => {
    const { context, page, errors } = await phonePage(ADMIN, '/logs');
    await settle(page);
    await page.getByText('Super Admin signed in').first().waitFor();
    // Desktop shows five inputs above the log; the phone shows none until asked.
    await expect(page.getByLabel('Action').count()).resolves.toBe(0);
    await expect(page.getByLabel('From').count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByRole('menu').getByText('Action', { exact: true }).click();
    await page.getByLabel('Action').first().waitFor();
    expect((await overflow(page)).scroll).toBeLessThanOrEqual(PHONE.width);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the customizer sits in the top bar and covers nothing', async () => {
    for (const width of [PHONE.width, 1366]) {
      const { context, page } = await phonePage(ADMIN, '/logs');
      await page.setViewportSize({ width, height: 844 });
      await settle(page);
      const button = page.getByRole('button', { name: 'Open customizer' });
      // The customizer loads just after the layout (its own chunk): wait for it before counting.
      await button.first().waitFor();
      await expect(page.locator('header').getByRole('button', { name: 'Open customizer' }).count()).resolves.toBe(1);
      const box = (await button.boundingBox())!;
      // Nothing of the page's content lies under it, and nothing is fixed at the screen's edge.
      const covered = await page.evaluate(
        ({ x, y, w, h }) => {
          const main = document.getElementById('main-content')!.getBoundingClientRect();
          return !(x + w <= main.left || x >= main.right || y + h <= main.top || y >= main.bottom);
        },
        { x: box.x, y: box.y, w: box.width, h: box.height },
      );
      expect(covered, `at ${width}px`).toBe(false);
      await expect(button.evaluate((b) => getComputedStyle(b).position)).resolves.not.toBe('fixed');
      await button.click();
      await page.getByRole('heading', { name: 'Customizer' }).waitFor();
      await context.close();
    }
  });
});

describe('logs people can read', () => {
  it('each entry is a sentence with its subject linked, in English and in Arabic; no raw action codes', async () => {
    const { context, page, errors } = await phonePage(ADMIN, '/logs');
    await page.setViewportSize({ width: 1366, height: 900 });
    const bearer = { Authorization: `Bearer ${await token(page)}` };
    const role = await page.request.post('/api/v1/roles', { headers: bearer, data: { name: 'Editors' } });
    expect(role.status()).toBe(201);
    const roleId = (await role.json()).data.id;
    const assigned = await page.request.post(`/api/v1/roles/${roleId}/assign-permissions`, { headers: bearer, data: { permissions: ['view logs'] } });
    expect(assigned.status()).toBe(200);

    await page.reload();
    await page.getByText('Super Admin assigned permissions to role Editors').first().waitFor();
    await page.getByText('Super Admin created role Editors').first().waitFor();
    await page.getByText('Super Admin signed in').first().waitFor();
    const link = page.getByRole('link', { name: 'role Editors' }).first();
    await expect(link.getAttribute('href')).resolves.toBe(`/settings/roles/${roleId}`);
    const text = await page.locator('main').innerText();
    expect(text).not.toMatch(/permissions_assigned|\brole #\d|user #\d/);

    // On a phone: the same sentences, no table, nothing sideways.
    await page.setViewportSize(PHONE);
    await page.locator('main table').first().waitFor({ state: 'detached' });
    await page.getByText('Super Admin assigned permissions to role Editors').first().waitFor();
    expect((await overflow(page)).scroll).toBeLessThanOrEqual(PHONE.width);

    // Arabic, right to left.
    await page.evaluate(() => localStorage.setItem('i18nextLng', 'ae'));
    await page.reload();
    // Names isolated in their own direction (FSI … PDI), so a Latin name is not reordered.
    await page.getByText('أسند \u2068Super Admin\u2069 صلاحيات إلى الدور \u2068Editors\u2069').first().waitFor();
    await page.getByText('سجّل \u2068Super Admin\u2069 الدخول').first().waitFor();
    await expect(page.evaluate(() => document.documentElement.dir)).resolves.toBe('rtl');
    expect((await overflow(page)).scroll).toBeLessThanOrEqual(PHONE.width);
    expect(await page.locator('main').innerText()).not.toMatch(/permissions_assigned|recharge_completed/);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('menu items for those they serve', () => {
  it('an admin has no My wallet (and /my-wallet is not for it); a dealer has', async () => {
    const { context, page, errors } = await phonePage(ADMIN, '/wallets');
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.getByRole('link', { name: 'All wallets' }).first().waitFor();
    await expect(page.getByRole('link', { name: 'My wallet' }).count()).resolves.toBe(0);
    await page.goto('/my-wallet');
    await page.waitForURL(/\/unauthorized$/);
    expect(errors).toEqual([]);
    await context.close();

    const dealer = await phonePage(DEALER, '/my-wallet');
    await dealer.page.setViewportSize({ width: 1366, height: 900 });
    await dealer.page.getByRole('link', { name: 'My wallet' }).first().waitFor();
    expect(dealer.errors).toEqual([]);
    await dealer.context.close();
  });
});

describe('small ends', () => {
  it('toasts say what was done to what, and an empty list says what will show there', async () => {
    const { context, page, errors } = await phonePage(ADMIN, '/settings/areas');
    await page.setViewportSize({ width: 1366, height: 800 });
    await page.goto('/settings/areas/create');
    const dialog = page.getByRole('dialog', { name: 'New Area' });
    await dialog.getByLabel(/^Name/).first().fill('Hodan District');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Area “Hodan District” created').waitFor();
    const row = page.getByRole('row').filter({ hasText: 'Hodan District' }).first();
    await row.getByRole('button', { name: /Delete/ }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Area “Hodan District” moved to the trash').waitFor();
    // No sales on a fresh server: a sentence, not a blank table.
    await page.goto('/recharges');
    await page.getByText('No sales yet. Each bundle bought on a storefront will be listed here.').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('in Arabic, switching an operator off and on (desktop) and creating an area (phone) are said by name', async () => {
    const { context, page, errors } = await phonePage(ADMIN, '/settings/areas');
    await page.evaluate(() => localStorage.setItem('i18nextLng', 'ae'));
    // The switch lives in the desktop table (on a phone a row opens its form, where status is).
    await page.setViewportSize({ width: 1366, height: 800 });
    await page.goto('/internet-providers');
    const hormuud = page.getByRole('row').filter({ hasText: 'Hormuud' }).first();
    await hormuud.getByRole('switch').first().click();
    await page.getByText('تم إيقاف المشغّل «Hormuud»').waitFor();
    await hormuud.getByRole('switch').first().click();
    await page.getByText('تم تفعيل المشغّل «Hormuud»').waitFor();
    // A new area at 390 px in Arabic.
    await page.setViewportSize(PHONE);
    await page.goto('/settings/areas/create');
    await page.getByRole('dialog').getByLabel(/الاسم/).first().fill('Waberi');
    await page.getByRole('dialog').getByRole('button', { name: 'حفظ' }).click();
    await page.getByText('تم إنشاء المنطقة «Waberi»').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
