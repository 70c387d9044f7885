import { describe, expect, it } from 'vitest';
import { ADMIN, artifactPath, newPage, signIn, useServerAndBrowser, apiData, toast } from './harness';

// A 1x1 PNG, the dealer logo.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

const env = useServerAndBrowser();

const api = <T = unknown>(path: string, init: Parameters<typeof apiData>[2] = {}) => apiData<T>(env.server, path, init);

describe('console in Chromium against the real server', () => {
  it('sends a signed-out visitor to sign-in and back to the page asked for', async () => {
    const { context, page, errors } = await newPage(env.browser, env.server.url);
    await page.goto('/dealers?from=mail');
    await page.waitForURL(/\/auth\/login\?redirect=%2Fdealers%3Ffrom%3Dmail$/);
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password', { exact: true }).fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'Invalid email or password.' }).waitFor()).resolves.toBeUndefined();
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await page.getByLabel('Remember me').check();
    const [login] = await Promise.all([
      page.waitForRequest((r) => r.url().endsWith('/api/v1/auth/admin/login')),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    expect(login.postDataJSON()).toMatchObject({ email: ADMIN.email, rememberMe: true });
    await page.waitForURL(/\/dealers\?from=mail$/);
    await toast(page, 'Welcome back, Super Admin!').waitFor();
    await page.getByRole('heading', { name: 'Dealers', level: 1 }).waitFor();
    // Remember me: a 30-day token cookie.
    const cookie = (await context.cookies()).find((c) => c.name === 'auth_token');
    expect(Math.round((cookie!.expires * 1000 - Date.now()) / 86_400_000)).toBe(30);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('locks the session with the password and unlocks it', async () => {
    const { context, page, errors } = await newPage(env.browser, env.server.url);
    await signIn(page);
    await page.waitForURL(/\/dashboard$/);
    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: 'Lock Screen' }).click();
    const dialog = page.getByRole('dialog', { name: 'Lock Session' });
    await dialog.getByText('Enter your password to lock').waitFor();
    await dialog.getByRole('button', { name: 'Lock Session' }).click();
    await dialog.getByText('Password is required').waitFor();
    await dialog.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await dialog.getByRole('button', { name: 'Lock Session' }).click();
    await page.waitForURL(/\/auth\/lock-screen$/);
    await toast(page, 'Session locked successfully').waitFor();

    // The lock survives a reload and guards every signed-in route.
    await page.goto('/admin');
    await page.waitForURL(/\/auth\/lock-screen$/);
    await page.getByLabel('Password', { exact: true }).fill('Wrong@12345');
    await page.getByRole('button', { name: 'Unlock' }).click();
    // The server's 422 message shows on the password field (docs/product.md section 8).
    await page.getByText('The password is incorrect.').waitFor();
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Unlock' }).click();
    await page.waitForURL(/\/dashboard$/);
    await page.goto('/admin');
    await page.getByRole('heading', { name: 'Admins', level: 1 }).waitFor();

    // Logout ends the session even from here.
    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await page.waitForURL(/\/auth\/login/);
    await toast(page, 'Logged out successfully').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('creates a dealer with a logo, sees it in the list, trashes and restores it', async () => {
    const { context, page, errors } = await newPage(env.browser, env.server.url);
    await signIn(page, ADMIN, '/auth/login?redirect=%2Fdealers');
    await page.waitForURL(/\/dealers$/);
    await page.getByRole('button', { name: 'New Dealer' }).click();
    const form = page.getByRole('dialog', { name: 'New Dealer' });
    await form.getByLabel('Name', { exact: false }).first().fill('Hodan Telecom Shop');
    await form.getByLabel(/^Email/).fill('hodan@shop.so');
    await form.getByLabel(/^Password/).fill('Shop@Pass2026!');
    await form.getByLabel(/^Confirm password/).fill('Shop@Pass2026!');
    await form.getByLabel(/^Dealer code/).fill('HODAN');
    await form.getByLabel(/^Company name\s*\*?$/).fill('Hodan Telecom');
    // Ready to sell: the company's catalogue at cost + 0.10.
    await form.getByLabel("Margin on the company's catalogue").fill('0.10');
    // ... and the company's EVC Plus with the shop's own number (customers of a Cost + Profit shop pay the shop).
    await form.getByRole('checkbox', { name: 'EVC Plus (company)' }).check();
    await form.getByLabel("This shop's number for EVC Plus (company)").fill('617000099');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByText('Dealer logo is required for new dealer accounts').waitFor();
    await form.locator('input[type=file][name=dealer_logo]').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: PNG });
    await form.getByText('logo.png').waitFor();
    await form.getByRole('button', { name: 'Save' }).click();
    // Made: the toast gives the welcome email's outcome (no mail settings here: the typed password stays).
    await page
      .getByText(/^The welcome email could not be sent: the mail settings are not saved/)
      .first()
      .waitFor();
    await form.waitFor({ state: 'detached' });
    const row = page.getByRole('row').filter({ hasText: 'hodan@shop.so' });
    await row.waitFor();
    await expect(row.getByText('HODAN', { exact: true }).isVisible()).resolves.toBe(true);
    const methods = (await (await fetch(new URL('/api/v1/client/payment-methods', env.server.url), { headers: { dealer_code: 'HODAN' } })).json()) as {
      data: { name: string; account_number: string }[];
    };
    // The shop's customers read the wallet's own name, not the console's label (issue 28 item 8).
    expect(methods.data.map((m) => [m.name, m.account_number])).toEqual([['EVC Plus', '617000099']]);
    const logo = await row.locator('img').first().getAttribute('src');
    expect(logo).toMatch(/\/storage\//);
    const img = await fetch(new URL(logo!, env.server.url));
    expect(img.status).toBe(200);
    const shop = await (await fetch(`${env.server.url}/api/v1/client/dealer/providers`, { headers: { dealer_code: 'HODAN' } })).json();
    const prices = shop.data.providers.flatMap((p: { categories: { bundles: { name: string; price: string }[] }[] }) => p.categories.flatMap((c) => c.bundles));
    expect(prices.length).toBeGreaterThan(0);

    // Trash it (soft delete) ...
    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await row.waitFor({ state: 'detached' });

    // ... find it in the trash and restore it.
    await page.getByRole('button', { name: 'Trash' }).click();
    await page.getByRole('link', { name: 'Users' }).last().click();
    await page.waitForURL(/\/trash\/users$/);
    const trashed = page.getByRole('row').filter({ hasText: 'hodan@shop.so' });
    await trashed.waitFor();
    await trashed.getByRole('button', { name: /Restore/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await toast(page, 'User “Hodan Telecom Shop” restored from the trash').waitFor();
    await trashed.waitFor({ state: 'detached' });
    await page.goto('/dealers');
    await page.getByRole('row').filter({ hasText: 'hodan@shop.so' }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('edits a user in the slide-over and changes status in bulk', async () => {
    const { context, page, errors } = await newPage(env.browser, env.server.url);
    await signIn(page, ADMIN, '/auth/login?redirect=%2Fdealers');
    await page.waitForURL(/\/dealers$/);
    await page.getByRole('row').filter({ hasText: 'dealer@example.com' }).getByText('Demo Dealer').click();
    const form = page.getByRole('dialog', { name: 'Edit Dealer' });
    await form.getByLabel(/^Company name\s*\*?$/).fill('Demo Telecom Mogadishu');
    await form.getByRole('button', { name: 'Update' }).click();
    await toast(page, 'User updated successfully').waitFor();
    await form.waitFor({ state: 'detached' });
    const row = page.getByRole('row').filter({ hasText: 'dealer@example.com' });
    await row.getByText('Demo Telecom Mogadishu').waitFor();

    await row.getByRole('checkbox', { name: 'Select this row' }).check();
    await page.getByRole('button', { name: 'Deactivate' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await row.getByText('Inactive').waitFor();
    await row.getByRole('checkbox', { name: 'Select this row' }).check();
    await page.getByRole('button', { name: 'Activate', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await row.getByText('Active', { exact: true }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('creates a role with permissions by group, sees the protected-role warning, trashes the role', async () => {
    const { context, page, errors } = await newPage(env.browser, env.server.url);
    await signIn(page, ADMIN, '/auth/login?redirect=%2Fsettings%2Froles');
    await page.waitForURL(/\/settings\/roles$/);
    await page.getByRole('button', { name: 'New Role' }).click();
    const modal = page.getByRole('dialog', { name: 'New Role' });
    await modal.getByRole('button', { name: 'Save' }).click();
    await modal.getByText('Name is required').waitFor();
    await modal.getByLabel(/^Name/).fill('auditor');
    await modal.getByRole('checkbox', { name: 'Select all logs permissions' }).check();
    // Permissions read in the user's language ('view trash items' is the value sent).
    await modal.getByRole('checkbox', { name: 'View trash', exact: true }).check();
    await modal.getByRole('button', { name: 'Save' }).click();
    await toast(page, 'Role created successfully').waitFor();
    const row = page.getByRole('row').filter({ hasText: 'auditor' });
    await row.waitFor();
    await expect(row.getByRole('cell').nth(3).textContent()).resolves.toBe('2');

    await page.getByRole('row').filter({ hasText: 'super-admin' }).getByText('super-admin').click();
    const edit = page.getByRole('dialog', { name: 'Edit Role' });
    await edit.getByText('This is a system-protected role and cannot be modified. You can only view its details and manage permissions.').waitFor();
    await expect(edit.getByLabel(/^Name/).isDisabled()).resolves.toBe(true);
    await edit.getByRole('button', { name: 'Cancel' }).click();
    await edit.waitFor({ state: 'detached' });

    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await row.waitFor({ state: 'detached' });
    await page.goto('/trash/roles');
    const trashed = page.getByRole('row').filter({ hasText: 'auditor' });
    await trashed.getByRole('button', { name: /Delete permanently/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await toast(page, 'Role “auditor” deleted for good').waitFor();
    await trashed.waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('edits the own profile, uploads a profile picture and the dealer logo', async () => {
    const { context, page, errors } = await newPage(env.browser, env.server.url);
    await signIn(page, { email: 'dealer@example.com', password: 'Dealer@12345' });
    await page.waitForURL(/\/dashboard$/);
    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: 'Profile' }).click();
    await page.waitForURL(/\/auth\/profile$/);
    await page.getByLabel(/^Phone/).fill('+252615550000');
    await page.getByRole('button', { name: 'Update' }).click();
    await toast(page, 'Profile updated successfully').waitFor();
    await page.locator('input[type=file][name=profile_image]').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: PNG });
    // The avatar everywhere switches to the uploaded file (its toast queues behind the first).
    await page.waitForFunction(() => document.querySelector('[data-testid=user-menu] img')?.getAttribute('src')?.includes('/storage/'));
    // The dealer's own logo: upload, then remove.
    const logoArea = page.getByTestId('logo-area');
    await logoArea.locator('input[type=file]').setInputFiles({ name: 'brand.png', mimeType: 'image/png', buffer: PNG });
    await logoArea.locator('img[src*="/storage/"]').waitFor();
    await logoArea.getByRole('button', { name: 'Remove logo' }).click();
    await logoArea.locator('img').waitFor({ state: 'detached' });
    await page.reload();
    await expect(page.getByLabel(/^Phone/).inputValue()).resolves.toBe('+252615550000');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a user with a limited role sees only its menu entries and gets /unauthorized elsewhere', async () => {
    const { token } = await api<{ token: string }>('/auth/admin/login', { method: 'POST', body: ADMIN });
    const role = await api<{ id: number }>('/roles', {
      method: 'POST',
      token,
      body: { name: 'support', guard_name: 'web', permissions: ['view admins', 'view roles'] },
    });
    await api('/users', {
      method: 'POST',
      token,
      body: {
        name: 'Support Agent',
        email: 'support@example.com',
        password: 'Agent@Pass123',
        password_confirmation: 'Agent@Pass123',
        user_type: 'admin',
        role_id: role.id,
      },
    });

    const { context, page, errors } = await newPage(env.browser, env.server.url);
    await signIn(page, { email: 'support@example.com', password: 'Agent@Pass123' });
    // The home page is the first menu entry this user may see.
    await page.waitForURL(/\/admin$/);
    const nav = page.getByRole('navigation', { name: 'Main menu' });
    await nav.getByRole('link', { name: 'Admins' }).waitFor();
    await nav.getByRole('button', { name: 'Settings' }).click();
    await nav.getByRole('link', { name: 'Roles' }).waitFor();
    const links = await nav.getByRole('link').allTextContents();
    expect(links).toEqual(['Admins', 'Roles']);
    const headings = await nav.locator('.MuiListSubheader-root').allTextContents();
    expect(headings).toEqual(['Management', 'Configuration']);

    await page.goto('/logs');
    await page.waitForURL(/\/unauthorized$/);
    await page.goto('/dealers');
    await page.waitForURL(/\/unauthorized$/);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a 401 on any call ends the session and goes to sign-in with the expiry message', async () => {
    const { context, page, errors } = await newPage(env.browser, env.server.url);
    await signIn(page);
    await page.waitForURL(/\/dashboard$/);
    // Once the guard has loaded the user and checked the lock, the page shows.
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    // The server revokes the session (as a logout elsewhere or an expiry would).
    const token = (await context.cookies()).find((c) => c.name === 'auth_token')!.value;
    await api('/auth/logout', { method: 'POST', token: decodeURIComponent(token) });
    // The next call ends it: the menu's review count (asked again when the window gets focus) or the Admins list.
    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('button', { name: 'Users' }).click();
    await Promise.race([
      page.waitForURL(/\/auth\/login/),
      page
        .getByRole('link', { name: 'Admins' })
        .click()
        .catch(() => undefined),
    ]);
    // The sign-in page keeps the page to return to, and says why the user is there.
    await page.waitForURL(/\/auth\/login\?redirect=%2F/);
    await page.getByRole('status').filter({ hasText: 'Your session has expired. Please login again.' }).waitFor();
    expect(await page.evaluate(() => [localStorage.getItem('auth_user'), document.cookie.includes('auth_token=')])).toEqual([null, false]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('header search: Ctrl+K focuses it, Enter goes to /search?q=', async () => {
    const { context, page } = await newPage(env.browser, env.server.url);
    await signIn(page);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.keyboard.press('Control+k');
    const box = page.getByRole('searchbox', { name: 'Search' });
    await page.waitForFunction(() => document.activeElement?.getAttribute('type') === 'search');
    await box.fill('  demo  ');
    await box.press('Enter');
    await page.waitForURL(/\/search\?q=demo$/);
    await page.getByRole('heading', { name: 'Results for "demo"' }).waitFor();
    await page.getByText('dealer@example.com').waitFor();
    await box.fill('');
    await page.waitForURL(/\/search$/);
    await context.close();
  });

  it('a dealer signs in to its own menu and home page', async () => {
    const { context, page, errors } = await newPage(env.browser, env.server.url);
    await signIn(page, { email: 'dealer@example.com', password: 'Dealer@12345' });
    await page.waitForURL(/\/dashboard$/);
    const nav = page.getByRole('navigation', { name: 'Main menu' });
    await nav.getByRole('link', { name: 'Dashboard' }).waitFor();
    await expect(nav.getByRole('button', { name: 'Users' }).count()).resolves.toBe(0);
    await expect(nav.getByRole('button', { name: 'Trash' }).count()).resolves.toBe(0);
    await page.goto('/admin');
    await page.waitForURL(/\/unauthorized$/);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the customizer switches to the horizontal menu and dark theme, and keeps them', async () => {
    const { context, page, errors } = await newPage(env.browser, env.server.url);
    await signIn(page);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Open customizer' }).click();
    await page.getByRole('button', { name: 'Horizontal' }).click();
    await page.getByRole('button', { name: 'Dark' }).click();
    await page.getByRole('button', { name: 'RTL' }).click();
    await page.keyboard.press('Escape');
    // The focus goes back to the customizer's button, whose tooltip can lie over the menu: away from it.
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).click();
    const nav = page.getByRole('navigation', { name: 'Main menu' });
    await nav.getByRole('button', { name: 'Users' }).hover();
    await page.getByRole('menuitem', { name: 'Dealers' }).click();
    await page.waitForURL(/\/dealers$/);
    await page.reload();
    await page.getByRole('heading', { name: 'Dealers', level: 1 }).waitFor();
    await expect(page.locator('[data-testid=theme-switcher]').getAttribute('data-mode')).resolves.toBe('dark');
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).not.toBe('rgb(250, 250, 250)');
    await expect(page.getByRole('navigation', { name: 'Main menu' }).getByRole('button', { name: 'Users' }).isVisible()).resolves.toBe(true);
    // A direction picked in the customizer survives the reload (the language did not change).
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('switching to Arabic (ae) turns the page right-to-left', async () => {
    const { context, page, errors } = await newPage(env.browser, env.server.url);
    await signIn(page, ADMIN, '/auth/login?redirect=%2Fadmin');
    await page.waitForURL(/\/admin$/);
    await page.getByRole('heading', { name: 'Admins', level: 1 }).waitFor();
    await page.getByTestId('language-switcher').click();
    await page.getByRole('menuitem', { name: 'العربية' }).click();
    await page.getByRole('heading', { name: 'المسؤولون', level: 1 }).waitFor();
    expect(await page.evaluate(() => [document.documentElement.dir, document.documentElement.lang])).toEqual(['rtl', 'ar']);
    // The sidebar moved to the right-hand side.
    const nav = page.getByRole('navigation', { name: 'القائمة الرئيسية' });
    await nav.getByRole('link', { name: 'الوكلاء', exact: true }).waitFor();
    const box = await nav.boundingBox();
    expect(box!.x).toBeGreaterThan(1366 / 2);
    await page.screenshot({ path: artifactPath('console-rtl-ae.png'), fullPage: true });
    // The choice is kept: a reload stays in Arabic, right-to-left.
    await page.reload();
    await page.getByRole('heading', { name: 'المسؤولون', level: 1 }).waitFor();
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    expect(errors).toEqual([]);
    await context.close();
  });
});
