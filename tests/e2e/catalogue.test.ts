import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { ADMIN, DEALER, newPage, signIn, useServerAndBrowser } from './harness';

/**
 * The catalogue in the browser: walk operators -> categories -> bundles, create one of each
 * (the operator with a logo), set a dealer's own price and see it on the storefront API, and
 * send a test mail to a real SMTP server on loopback.
 */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const env = useServerAndBrowser();

async function signedIn(who = ADMIN, path = '/dashboard'): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
  const { context, page, errors } = await newPage(env.browser, env.server.url);
  await signIn(page, who, `/auth/login?redirect=${encodeURIComponent(path)}`);
  await page.waitForURL((u) => u.pathname === path.split('?')[0]);
  return { page, errors, close: () => context.close() };
}

describe('the company catalogue', () => {
  it('walks operators -> categories -> bundles with breadcrumbs, and shows the cost to a super admin', async () => {
    const { page, errors, close } = await signedIn(ADMIN, '/internet-providers');
    await page.getByRole('heading', { name: 'Internet providers' }).waitFor();
    const hormuud = page.getByRole('row').filter({ hasText: 'HORMUUD' });
    await hormuud.getByText('61').waitFor();
    await hormuud.getByText('Hormuud', { exact: true }).click();
    await page.waitForURL(/\/internet-providers\/\d+\/categories$/);
    await page.getByRole('heading', { name: 'Categories of Hormuud' }).waitFor();
    await page.getByRole('row').filter({ hasText: 'Daily' }).getByText('Daily', { exact: true }).click();
    await page.waitForURL(/\/internet-providers\/\d+\/categories\/\d+\/bundles$/);
    const bundle = page.getByRole('row').filter({ hasText: '1 GB Daily' });
    await bundle.getByText('0.40').waitFor(); // cost
    await bundle.getByText('0.50').waitFor(); // default selling price
    const crumbs = page.getByRole('navigation', { name: 'Breadcrumb' });
    await crumbs.getByRole('link', { name: 'Hormuud' }).click();
    await page.waitForURL(/\/internet-providers\/\d+\/categories$/);
    await crumbs.getByRole('link', { name: 'Internet providers' }).click();
    await page.waitForURL(/\/internet-providers$/);
    expect(errors).toEqual([]);
    await close();
  });

  it('creates an operator with a logo, a category under it and a bundle under that', async () => {
    const { page, errors, close } = await signedIn(ADMIN, '/internet-providers');
    await page.getByRole('button', { name: 'New Operator' }).click();
    const form = page.getByRole('dialog', { name: 'New Operator' });
    await form.getByLabel(/^Name\s*\*?$/).fill('Amtel');
    await form.getByLabel(/^Code/).fill('AMTEL');
    await form.getByLabel(/^Number prefixes/).fill('71, x9');
    await form.locator('input[type=file]').setInputFiles({ name: 'amtel.png', mimeType: 'image/png', buffer: PNG });
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByText('Each prefix is 1 to 4 digits, such as 61').waitFor();
    await form.getByLabel(/^Number prefixes/).fill('71');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'detached' });
    const row = page.getByRole('row').filter({ hasText: 'AMTEL' });
    await row.locator('img').waitFor();
    await row.getByText('Amtel', { exact: true }).click();
    await page.waitForURL(/\/categories$/);

    await page.getByRole('button', { name: 'New Category' }).first().click();
    const cat = page.getByRole('dialog', { name: 'New Category' });
    await cat.getByLabel(/^Name\s*\*?$/).fill('Weekly');
    await cat.getByRole('button', { name: 'Save' }).click();
    await cat.waitFor({ state: 'detached' });
    await page.getByRole('row').filter({ hasText: 'Weekly' }).getByText('Weekly', { exact: true }).click();
    await page.waitForURL(/\/bundles$/);

    await page.getByRole('button', { name: 'New Bundle' }).first().click();
    const b = page.getByRole('dialog', { name: 'New Bundle' });
    await b.getByLabel(/^Name\s*\*?$/).fill('5 GB Weekly');
    await b.getByLabel(/^Data volume/).fill('5120');
    await b.getByLabel(/^Validity/).fill('7');
    await b.getByLabel(/^Cost price/).fill('2.00');
    await b.getByLabel(/^Selling price/).fill('1.90');
    await b.getByRole('button', { name: 'Save' }).click();
    await b.getByText('The selling price may not be below the cost price.').waitFor();
    await b.getByLabel(/^Selling price/).fill('2.40');
    await b.getByRole('button', { name: 'Save' }).click();
    await b.waitFor({ state: 'detached' });
    const created = page.getByRole('row').filter({ hasText: '5 GB Weekly' });
    await created.getByText('5 GB', { exact: true }).waitFor();
    await created.getByText('2.40').waitFor();
    expect(errors).toEqual([]);
    await close();
  });
});

describe('the dealer catalogue', () => {
  it('lets the dealer set its own price, which the storefront shows at once', async () => {
    const { page, errors, close } = await signedIn(DEALER, '/dealer-providers');
    await page.getByRole('row').filter({ hasText: 'Hormuud' }).getByText('Hormuud', { exact: true }).click();
    await page.waitForURL(/\/dealer-providers\/\d+\/categories$/);
    await page.getByRole('row').filter({ hasText: 'Daily' }).getByText('Daily', { exact: true }).click();
    await page.waitForURL(/\/bundles$/);
    const price = page.getByLabel('Your price for 1 GB Daily');
    await price.fill('0.30');
    await page.getByRole('button', { name: 'Save the price' }).click();
    await page.getByText('The selling price may not be below the cost price (0.40).').waitFor();
    await price.fill('0.65');
    await page.getByRole('button', { name: 'Save the price' }).click();
    await page.getByText('Price saved').waitFor();
    const res = await fetch(`${env.server.url}/api/v1/client/dealer/providers`, { headers: { dealer_code: 'DEMO' } });
    const body = await res.json();
    const daily = body.data.providers.find((p: { code: string }) => p.code === 'HORMUUD').categories.find((c: { name: string }) => c.name === 'Daily');
    expect(daily.bundles.find((b: { name: string }) => b.name === '1 GB Daily').price).toBe('0.65');
    expect(errors).toEqual([]);
    await close();
  });
});

describe('mail settings', () => {
  let smtp: SMTPServer;
  let port: number;
  const received: { to: string[]; body: string }[] = [];
  beforeAll(async () => {
    smtp = new SMTPServer({
      disabledCommands: ['STARTTLS', 'AUTH'],
      onData(stream, session, cb) {
        let body = '';
        stream.on('data', (c: Buffer) => (body += c.toString()));
        stream.on('end', () => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address), body });
          cb();
        });
      },
    });
    await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
    port = (smtp.server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => smtp.close(() => r())));

  it('saves the SMTP server and sends a test mail through it', async () => {
    const { page, errors, close } = await signedIn(ADMIN, '/settings/mail');
    await page.getByLabel(/^SMTP host/).fill('127.0.0.1');
    await page.getByLabel(/^Port/).fill(String(port));
    await page.getByRole('combobox', { name: /^Security/ }).click();
    await page.getByRole('option', { name: 'None' }).click();
    await page.getByLabel(/^From address/).fill('noreply@example.so');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Mail settings saved').first().waitFor();
    await page.getByLabel('Send to').fill('ops@example.so');
    await page.getByRole('button', { name: 'Send test mail' }).click();
    await page.getByRole('status').filter({ hasText: 'Test mail sent to ops@example.so' }).waitFor();
    expect(received.at(-1)?.to).toEqual(['ops@example.so']);
    expect(received.at(-1)?.body).toContain('Subject: Test mail from Somali Data Bundles');
    expect(errors).toEqual([]);
    await close();
  });
});
