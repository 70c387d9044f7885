import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMailCatcher } from '../api/mail-catcher';
import { ADMIN, DEALER, apiData, artifactPath, newPage, signIn, toast, useServerAndBrowser } from './harness';

/**
 * A forgotten password in Chromium against the real server, at 390 px: "Forgot password?" on the
 * sign-in page, the email asked for, the mail received by a real SMTP server on loopback, its link
 * opened, the user form's password rules on the new password, the sign-in with it, and the link
 * refused the second time.
 */
const env = useServerAndBrowser();
const PHONE = { width: 390, height: 844 };
const NEW_PASSWORD = 'Harbour#Kite42';
let mail: Awaited<ReturnType<typeof startMailCatcher>>;

beforeAll(async () => {
  mail = await startMailCatcher();
  const login = await apiData<{ token: string }>(env.server, '/auth/admin/login', { method: 'POST', body: ADMIN });
  await apiData(env.server, '/settings/mail', {
    method: 'PUT',
    token: login.token,
    body: { host: '127.0.0.1', port: mail.port, security: 'none', from_address: 'noreply@example.so', from_name: 'Somali Data' },
  });
});
afterAll(() => mail?.close());

const readable = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');

describe('forgotten password in the browser', () => {
  it('asks by email, sets the new password through the mailed link, signs in with it; the link works once', async () => {
    const { context, page, errors } = await newPage(env.browser, env.server.url);
    await page.setViewportSize(PHONE);
    await page.goto('/auth/login');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.waitForURL(/\/auth\/forgot-password$/);
    await page.getByRole('heading', { name: 'Forgot your password?' }).waitFor();
    await page.getByLabel('Email').fill(DEALER.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'If an account exists for this email, a link to set a new password is on its way. It works for 60 minutes.' })
      .waitFor();
    await page.screenshot({ path: artifactPath('password-reset-asked-390.png'), fullPage: true });

    const until = Date.now() + 15_000;
    while (!mail.mails.some((m) => m.to.includes(DEALER.email)) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    const text = readable(mail.mails.find((m) => m.to.includes(DEALER.email))!.body);
    const link = /\/auth\/reset-password\?token=[A-Za-z0-9_-]+/.exec(text)![0];

    await page.goto(link);
    await page.getByRole('heading', { name: 'Set a new password' }).waitFor();
    await page.getByText(`For the account ${DEALER.email}.`).waitFor();
    await page.getByLabel('New password', { exact: true }).fill('short');
    await page.getByRole('button', { name: 'Save the password' }).click();
    await page.getByText('Password must be at least 8 characters').waitFor();
    await page.screenshot({ path: artifactPath('password-reset-rules-390.png'), fullPage: true });
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Confirm the new password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Save the password' }).click();
    await page.waitForURL(/\/auth\/login$/);
    await toast(page, 'Your new password is set and your other sessions were signed out. Sign in with it now.').waitFor();

    await signIn(page, { email: DEALER.email, password: NEW_PASSWORD });
    await page.waitForURL((u) => !u.pathname.startsWith('/auth/'));

    // The link is spent.
    const second = await context.newPage();
    await second.goto(link);
    await second.getByRole('alert').filter({ hasText: 'This link does not work: it is wrong, already used or expired. Ask for a new one.' }).waitFor();
    await second.getByRole('link', { name: 'Ask for a new link' }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
