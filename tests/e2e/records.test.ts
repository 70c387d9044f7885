import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN, newPage, signIn, useServerAndBrowser, toast } from './harness';

/**
 * The console as react-admin designs it: every record has a URL that opens its form (and a
 * reload keeps it), search results open their record, phones get a simple list, and the
 * banners resource (the registry's worked example) runs its whole lifecycle.
 */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const env = useServerAndBrowser();

async function demoDealerId(page: Page): Promise<number> {
  const token = await page.evaluate(() => document.cookie.match(/auth_token=([^;]+)/)?.[1] ?? localStorage.getItem('auth_token'));
  const res = await fetch(`${env.server.url}/api/v1/users?dealer_code=DEMO`, { headers: { Authorization: `Bearer ${decodeURIComponent(String(token))}` } });
  return (await res.json()).data[0].id as number;
}

describe('records have URLs', () => {
  it('opens /dealers/{id} directly in the slide-over, keeps it on reload, and closes back to the list', async () => {
    const { context, page, errors } = await newPage(env.browser, env.server.url);
    await signIn(page);
    await page.waitForURL(/\/dashboard$/);
    const id = await demoDealerId(page);
    await page.goto(`/dealers/${id}`);
    const form = page.getByRole('dialog', { name: 'Edit Dealer' });
    await form.waitFor();
    await expect(form.getByLabel(/^Dealer code/).inputValue()).resolves.toBe('DEMO');
    await page.reload();
    await form.waitFor();
    await expect(form.getByLabel(/^Email/).inputValue()).resolves.toBe('dealer@example.com');
    await form.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL(/\/dealers$/);
    await form.waitFor({ state: 'detached' });
    // A row click goes to the record's URL; /dealers/create opens the new-record form.
    await page.getByRole('row').filter({ hasText: 'dealer@example.com' }).getByText('Demo Dealer').click();
    await page.waitForURL(new RegExp(`/dealers/${id}$`));
    await page.goto('/dealers/create');
    await page.getByRole('dialog', { name: 'New Dealer' }).waitFor();
    await page.goto('/settings/roles/create');
    await page.getByRole('dialog', { name: 'New Role' }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a global search result opens its record', async () => {
    const { context, page, errors } = await newPage(env.browser, env.server.url);
    await signIn(page);
    await page.waitForURL(/\/dashboard$/);
    const id = await demoDealerId(page);
    await page.getByRole('searchbox', { name: 'Search' }).fill('dealer@example');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/search\?q=dealer%40example|\/search\?q=dealer@example/);
    await page.getByRole('link', { name: /Demo Dealer/ }).click();
    await page.waitForURL(new RegExp(`/dealers/${id}$`));
    await page.getByRole('dialog', { name: 'Edit Dealer' }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('on a phone-width screen a list is a simple list, not a table', async () => {
    const { context, page, errors } = await newPage(env.browser, env.server.url);
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, ADMIN, '/auth/login?redirect=%2Fdealers');
    await page.waitForURL(/\/dealers$/);
    await page.getByText('dealer@example.com').first().waitFor();
    await expect(page.getByRole('table').count()).resolves.toBe(0);
    await page.getByText('Demo Dealer').first().click();
    await page.getByRole('dialog', { name: 'Edit Dealer' }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("forms on react-admin's CreateBase / EditBase", () => {
  it("a server field error lands on its field, and a protected role's permissions can still be assigned", async () => {
    const { context, page, errors } = await newPage(env.browser, env.server.url);
    await signIn(page, ADMIN, '/auth/login?redirect=%2Fsettings%2Froles%2Fcreate');
    const modal = page.getByRole('dialog', { name: 'New Role' });
    await modal.getByLabel(/^Name/).fill('Dealer');
    await modal.getByRole('button', { name: 'Save' }).click();
    // The API's 422 (the name is taken, in any case) shows on the name field.
    await modal.getByText('The name has already been taken.').waitFor();
    await modal.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL(/\/settings\/roles$/);

    const row = page.getByRole('row').filter({ hasText: /^dealer/ });
    const before = Number(await row.getByRole('cell').nth(3).textContent());
    await row.getByRole('cell').nth(1).click();
    const edit = page.getByRole('dialog', { name: 'Edit Role' });
    await edit.getByRole('checkbox', { name: 'view logs' }).check();
    await edit.getByRole('button', { name: 'Update' }).click();
    await toast(page, 'Role updated successfully').waitFor();
    await edit.waitFor({ state: 'detached' });
    await expect.poll(async () => Number(await row.getByRole('cell').nth(3).textContent())).toBe(before + 1);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('banners, the registry example', () => {
  it('creates one with an image, edits its title, trashes it and restores it from the trash', async () => {
    const { context, page, errors } = await newPage(env.browser, env.server.url);
    await signIn(page, ADMIN, '/auth/login?redirect=%2Fbanners');
    await page.waitForURL(/\/banners$/);
    await page.getByRole('button', { name: 'New Banner' }).click();
    await page.waitForURL(/\/banners\/create$/);
    const form = page.getByRole('dialog', { name: 'New Banner' });
    await form.getByLabel(/^Title\s*\*?$/).fill('Ramadan offer');
    await form.getByLabel(/^Link/).fill('javascript:alert(1)');
    await form.locator('input[type=file]').setInputFiles({ name: 'banner.png', mimeType: 'image/png', buffer: PNG });
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByText('Enter a full web address starting with http:// or https://').waitFor();
    await form.getByLabel(/^Link/).fill('https://demo.example.so/ramadan');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'detached' });
    await page.waitForURL(/\/banners$/);
    const row = page.getByRole('row').filter({ hasText: 'Ramadan offer' });
    await row.waitFor();
    await expect(row.getByText('All storefronts').isVisible()).resolves.toBe(true);

    await row.getByText('Ramadan offer').click();
    const edit = page.getByRole('dialog', { name: 'Edit Banner' });
    await edit.getByLabel(/^Title\s*\*?$/).fill('Ramadan mega offer');
    await edit.getByRole('button', { name: 'Update' }).click();
    await edit.waitFor({ state: 'detached' });
    const renamed = page.getByRole('row').filter({ hasText: 'Ramadan mega offer' });
    await renamed.waitFor();

    await renamed.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await renamed.waitFor({ state: 'detached' });
    await page.goto('/trash/banners');
    const trashed = page.getByRole('row').filter({ hasText: 'Ramadan mega offer' });
    await trashed.getByRole('button', { name: /Restore/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await toast(page, 'Banner “Ramadan mega offer” restored from the trash').waitFor();
    await page.goto('/banners');
    await page.getByRole('row').filter({ hasText: 'Ramadan mega offer' }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
