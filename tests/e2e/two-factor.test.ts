import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { Secret, TOTP } from 'otpauth';
import { ADMIN, artifactPath, newPage, signIn, useServerAndBrowser, apiData, toast } from './harness';

/**
 * Two-factor sign-in in Chromium against the real server: the super admin enrols on its profile
 * (the secret read from the page, codes computed with the same RFC 6238 library any app uses),
 * signs out, signs in with a code (remembering the device), then elsewhere with a recovery code;
 * an admin requires two-factor of a role in the role list, and that role's user is taken to
 * enrolment and can go nowhere else until it is done; the admin resets it from the user list.
 * Screenshots at 390 px and in Arabic.
 */
const env = useServerAndBrowser();
const PHONE = { width: 390, height: 844 };

/** The app's code for the step `offset` steps from now (the server accepts one step either side). */
const codeFor = (secret: string, offset = 0) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + offset * 30_000 });

const api = <T = unknown>(path: string, init: Parameters<typeof apiData>[2] = {}) => apiData<T>(env.server, path, init);

/** The super admin's recovery codes, from its enrolment in the first test. */
let adminCodes: string[] = [];

/** Enrols on the page shown (profile card or setup page): reads the secret, answers its code and the password. */
async function enrol(page: Page, password: string): Promise<{ secret: string; codes: string[] }> {
  const secretBox = page.getByTestId('two-factor-secret');
  await secretBox.waitFor();
  await expect(page.getByRole('img', { name: 'QR code for your authenticator app' }).getAttribute('src')).resolves.toMatch(/^data:image\/svg\+xml;base64,/);
  const secret = (await secretBox.innerText()).replace(/\s+/g, '');
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await page.getByLabel('Authentication code').fill('000000');
  await page.getByLabel('Your password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Turn on' }).click();
  await page.getByText('The code is not correct. Check your authenticator app and try again.').waitFor();
  await page.getByLabel('Authentication code').fill(codeFor(secret));
  await page.getByRole('button', { name: 'Turn on' }).click();
  const list = page.getByTestId('recovery-codes');
  await list.waitFor();
  const codes = (await list.locator('li').allInnerTexts()).map((c) => c.trim());
  expect(codes).toHaveLength(10);
  return { secret, codes };
}

async function signOut(page: Page) {
  await page.getByTestId('user-menu').click();
  await page.getByRole('menuitem', { name: 'Logout' }).click();
  await page.waitForURL(/\/auth\/login/);
}

describe('two-factor sign-in in the browser', () => {
  it('enrols on the profile, then signs in with a code (remembering the device) and elsewhere with a recovery code', async () => {
    const { context, page, errors } = await newPage(env.browser, env.server.url);
    await signIn(page);
    await page.waitForURL(/\/dashboard$/);
    await page.goto('/auth/profile');
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const { secret, codes } = await enrol(page, ADMIN.password);
    adminCodes = codes;
    await toast(page, 'Two-factor sign-in is on.').waitFor();
    await page.getByRole('button', { name: 'Download' }).waitFor();
    await page.screenshot({ path: artifactPath('two-factor-profile-codes.png'), fullPage: true });
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByText('Recovery codes left: 10').waitFor();

    // Signed out, the password alone is not enough: the code is asked next.
    await signOut(page);
    await signIn(page);
    await page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
    expect(page.url()).toMatch(/\/auth\/login$/);
    await page.getByLabel('Authentication code').fill('123456');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('The code is not correct. Check your authenticator app and try again.').waitFor();
    await page.getByLabel('Authentication code').fill(codeFor(secret, 1));
    await page.getByLabel('Remember this device for 30 days').check();
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(/\/dashboard$/);
    await toast(page, 'Welcome back, Super Admin!').waitFor();
    // The device cookie is out of the page's reach (httpOnly) and only goes to the sign-in calls.
    const device = (await context.cookies()).find((c) => c.name.startsWith('tfd_'));
    expect(device).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/v1/auth' });
    expect(await page.evaluate(() => document.cookie)).not.toContain('tfd_');

    // This browser is trusted: the password goes straight in.
    await signOut(page);
    await signIn(page);
    await page.waitForURL(/\/dashboard$/);
    await context.close();

    // Another browser, no phone at hand: a recovery code, once.
    const other = await newPage(env.browser, env.server.url);
    await signIn(other.page);
    await other.page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
    await other.page.getByRole('button', { name: 'Use a recovery code' }).click();
    await other.page.getByLabel('Recovery code').fill(codes[0].toLowerCase());
    await other.page.getByRole('button', { name: 'Verify' }).click();
    await other.page.waitForURL(/\/dashboard$/);
    await toast(other.page, 'Welcome back, Super Admin! You used a recovery code: 9 left.').waitFor();
    await signOut(other.page);
    await signIn(other.page);
    await other.page.getByRole('button', { name: 'Use a recovery code' }).click();
    await other.page.getByLabel('Recovery code').fill(codes[0]);
    await other.page.getByRole('button', { name: 'Verify' }).click();
    await other.page.getByText('This recovery code is not valid or has already been used.').waitFor();

    // The second step at 390 px, and in Arabic (right to left).
    await other.page.setViewportSize(PHONE);
    await other.page.getByRole('button', { name: 'Use the authenticator app' }).click();
    expect(await other.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await other.page.screenshot({ path: artifactPath('two-factor-step-390.png'), fullPage: true });
    await other.page.getByTestId('language-switcher').click();
    await other.page.getByRole('menuitem', { name: 'العربية' }).click();
    await other.page.getByRole('heading', { name: 'التحقق بخطوتين' }).waitFor();
    expect(await other.page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await other.page.getByRole('button', { name: 'تحقق' }).click();
    await other.page.getByText('أدخل الرمز المكوّن من 6 أرقام أو رمز استرداد.').waitFor();
    await other.page.screenshot({ path: artifactPath('two-factor-step-390-ae.png'), fullPage: true });
    expect(errors).toEqual([]);
    expect(other.errors).toEqual([]);
    await other.context.close();
  });

  it('a role that requires two-factor takes its user to enrolment and nowhere else until it is done; an admin resets it', async () => {
    // The super admin (two-factor on since the first test) signs in with recovery codes: one for its API calls, one in a new browser.
    const challenge = await api<{ challenge: string }>('/auth/admin/login', { method: 'POST', body: ADMIN });
    const rootToken = (
      await api<{ token: string }>('/auth/two-factor/verify', { method: 'POST', body: { challenge: challenge.challenge, recovery_code: adminCodes[1] } })
    ).token;
    const admin = await newPage(env.browser, env.server.url);
    await signIn(admin.page, ADMIN, '/auth/login?redirect=%2Fsettings%2Froles');
    await admin.page.getByRole('button', { name: 'Use a recovery code' }).click();
    await admin.page.getByLabel('Recovery code').fill(adminCodes[2]);
    await admin.page.getByRole('button', { name: 'Verify' }).click();
    await admin.page.waitForURL(/\/settings\/roles$/);

    const role = await api<{ id: number }>('/roles', { method: 'POST', body: { name: 'Cashiers', permissions: ['view dashboard'] }, token: rootToken });
    await api('/users', {
      method: 'POST',
      token: rootToken,
      body: {
        name: 'Amina Cashier',
        email: 'amina@example.com',
        password: 'Teller@Pass77',
        password_confirmation: 'Teller@Pass77',
        user_type: 'admin',
        role_id: role.id,
      },
    });
    await admin.page.reload();
    const row = admin.page.getByRole('row').filter({ hasText: 'Cashiers' });
    // Saved at once (no form): the switch follows the server's answer.
    await row.getByLabel('Require two-factor sign-in for Cashiers').click();
    await toast(admin.page, 'Members of this role now sign in with two-factor.').waitFor();
    await expect(row.getByLabel('Require two-factor sign-in for Cashiers').isChecked()).resolves.toBe(true);
    await admin.page.screenshot({ path: artifactPath('two-factor-roles.png'), fullPage: true });

    // The cashier signs in with the password and lands on enrolment; other pages send it back there.
    const cashier = await newPage(env.browser, env.server.url);
    await cashier.page.setViewportSize(PHONE);
    await signIn(cashier.page, { email: 'amina@example.com', password: 'Teller@Pass77' });
    await cashier.page.waitForURL(/\/auth\/two-factor-setup$/);
    await cashier.page.getByText('Your role requires two-factor sign-in. Set it up to continue', { exact: false }).waitFor();
    await cashier.page.getByTestId('two-factor-secret').waitFor();
    expect(await cashier.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await cashier.page.screenshot({ path: artifactPath('two-factor-setup-390.png'), fullPage: true });
    await cashier.page.goto('/dashboard');
    await cashier.page.waitForURL(/\/auth\/two-factor-setup$/);
    // The server refuses the rest too, whatever the page does.
    const sessionToken = (await cashier.context.cookies()).find((c) => c.name === 'auth_token')!.value;
    const refused = await fetch(`${env.server.url}/api/v1/dashboard`, { headers: { Authorization: `Bearer ${decodeURIComponent(sessionToken)}` } });
    expect(refused.status).toBe(403);
    expect((await refused.json()).code).toBe('auth.two_factor_enrolment_required');

    // In Arabic, right to left; the secret shown stays the one the user may have scanned.
    const shownSecret = await cashier.page.getByTestId('two-factor-secret').innerText();
    await cashier.page.getByTestId('language-switcher').click();
    await cashier.page.getByRole('menuitem', { name: 'العربية' }).click();
    await cashier.page.getByRole('heading', { name: 'إعداد تسجيل الدخول بخطوتين' }).waitFor();
    expect(await cashier.page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await cashier.page.screenshot({ path: artifactPath('two-factor-setup-390-ae.png'), fullPage: true });
    await cashier.page.getByTestId('language-switcher').click();
    await cashier.page.getByRole('menuitem', { name: 'English' }).click();
    await cashier.page.getByRole('heading', { name: 'Set up two-factor sign-in' }).waitFor();
    expect(await cashier.page.getByTestId('two-factor-secret').innerText()).toBe(shownSecret);

    await enrol(cashier.page, 'Teller@Pass77');
    await cashier.page.getByRole('button', { name: 'I have saved them, continue' }).click();
    await cashier.page.waitForURL(/\/dashboard$/);
    expect((await fetch(`${env.server.url}/api/v1/dashboard`, { headers: { Authorization: `Bearer ${decodeURIComponent(sessionToken)}` } })).status).toBe(200);

    // The admin resets the cashier's second factor from the user list (logged); the cashier must enrol again.
    await admin.page.goto('/admin');
    const cashierRow = admin.page.getByRole('row').filter({ hasText: 'Amina Cashier' });
    await cashierRow.getByText('On', { exact: true }).waitFor();
    await cashierRow.getByRole('button', { name: 'Reset two-factor' }).click();
    await admin.page.getByRole('dialog').getByRole('button', { name: 'Reset two-factor' }).click();
    await toast(admin.page, 'Two-factor sign-in was reset. The user sets it up again at the next sign-in.').waitFor();
    await cashierRow.getByText('Required, not set up').waitFor();
    const logs = await api<{ action: string; actor: { name: string } | null }[]>('/logs?action=two_factor_reset', { token: rootToken });
    expect(logs[0]).toMatchObject({ action: 'two_factor_reset', actor: { name: 'Super Admin' } });
    await cashier.page.goto('/dashboard');
    await cashier.page.waitForURL(/\/auth\/two-factor-setup$/);

    // The profile card with two-factor on, at 390 px and in Arabic.
    await admin.page.setViewportSize(PHONE);
    await admin.page.goto('/auth/profile');
    await admin.page.getByText('Recovery codes left:', { exact: false }).waitFor();
    await admin.page.getByText('Two-factor sign-in', { exact: true }).scrollIntoViewIfNeeded();
    expect(await admin.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await admin.page.screenshot({ path: artifactPath('two-factor-profile-390.png'), fullPage: true });
    await admin.page.evaluate(() => localStorage.setItem('i18nextLng', 'ae'));
    await admin.page.reload();
    await admin.page.getByText('تسجيل الدخول بخطوتين', { exact: true }).first().waitFor();
    await admin.page.screenshot({ path: artifactPath('two-factor-profile-390-ae.png'), fullPage: true });
    expect(admin.errors).toEqual([]);
    expect(cashier.errors).toEqual([]);
    await admin.context.close();
    await cashier.context.close();
  });
});
