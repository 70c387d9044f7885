import { describe, expect, it } from 'vitest';
import { ADMIN, apiData, newPage, signIn, useServerAndBrowser } from './harness';

/**
 * A session that ends without signing out, in Chromium against the real server: the sign-in page
 * keeps ?redirect= the page the user was on (docs/product.md section 4), says why they are there,
 * and signing in again returns there; whether the server refused the token (an expiry or a logout
 * elsewhere) or the token's cookie is gone.
 */
const env = useServerAndBrowser();

const api = <T = unknown>(path: string, init: Parameters<typeof apiData>[2] = {}) => apiData<T>(env.server, path, init);

describe('a session that ended', () => {
  it('refused on /recharges: sign-in keeps ?redirect=%2Frecharges, says it expired, and returns there', async () => {
    const { context, page, errors } = await newPage(env.browser, env.server.url);
    await signIn(page);
    await page.waitForURL(/\/dashboard$/);
    await page.goto('/recharges');
    await page.getByRole('heading', { name: 'Recharges', level: 1 }).waitFor();
    // The server ends the session (as an expiry or a logout elsewhere would); the list's next call is refused.
    const token = (await context.cookies()).find((c) => c.name === 'auth_token')!.value;
    await api('/auth/logout', { method: 'POST', token: decodeURIComponent(token) });
    // The window gets focus again: the page's queries (the menu's review count) are asked again.
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await page.waitForURL(/\/auth\/login\?redirect=%2Frecharges$/);
    await page.getByRole('status').filter({ hasText: 'Your session has expired. Please login again.' }).waitFor();
    expect(await page.evaluate(() => [localStorage.getItem('auth_user'), document.cookie.includes('auth_token=')])).toEqual([null, false]);
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/recharges(\?|$)/);
    await page.getByRole('heading', { name: 'Recharges', level: 1 }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('its cookie deleted: sign-in keeps ?redirect=%2Frecharges and says the session ended', async () => {
    const { context, page, errors } = await newPage(env.browser, env.server.url);
    await signIn(page, ADMIN, '/auth/login?redirect=%2Frecharges');
    await page.waitForURL(/\/recharges$/);
    await page.getByRole('heading', { name: 'Recharges', level: 1 }).waitFor();
    await context.clearCookies({ name: 'auth_token' });
    await page.reload();
    await page.waitForURL(/\/auth\/login\?redirect=%2Frecharges$/);
    await page.getByRole('status').filter({ hasText: 'Your session ended; sign in again.' }).waitFor();
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/recharges$/);
    // Signed in again: the sign-in page has nothing more to explain.
    await page.getByRole('heading', { name: 'Recharges', level: 1 }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
