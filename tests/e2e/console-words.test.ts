import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { Secret, TOTP } from 'otpauth';
import { ADMIN, DEALER, apiData, artifactPath, buyFromDemoShop, signIn, newPage, signedInAt, toast, useServerAndBrowser } from './harness';

/**
 * Issue 28 items 8, 9 and 7a in the browser, each at 390 px and at 1366 px: the console's own words
 * in Arabic (`ae`) and Somali (`so`) where react-admin used to print slugs ("No Missed-sales
 * found", "Delete internet-provider Telesom"), counts that agree with their noun, the server's
 * reason for a refused self-delete, a generated password clearing "Password is required", a role
 * form in words without "Guard name", search results and CSV headers in words, a failed sale's
 * reason in the reader's language, Somali dates and menu, one Arabic word for dealer, My wallet
 * ending a session without the 500 page; the "export reports" permission and a stable two-factor
 * setup secret.
 */
const env = useServerAndBrowser();

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 900 };
const SIZES = [PHONE, DESKTOP] as const;
const sizeName = (v: { width: number }) => `${v.width} px`;

const api = <T = unknown>(path: string, init: Parameters<typeof apiData>[2] = {}) => apiData<T>(env.server, path, init);

/** The records the tests read: sales of each outcome, and the users of the access tests. */
const ids = { completed: 0, declined: 0, refunded: 0, refundedPhone: '0615550303', declinedCreatedAt: '' };
let rootToken = '';
let dealerToken = '';
const READER = { email: 'reader@example.com', password: 'Kitaab@Pass77' };
const ENROLLING = {
  [PHONE.width]: { email: 'tf-phone@example.com', password: 'Guard@Pass77' },
  [DESKTOP.width]: { email: 'tf-desk@example.com', password: 'Guard@Pass77' },
};

type Sale = { recharge: { status: string; created_at: string } };
const saleStatus = async (id: number) => (await api<Sale>(`/recharges/${id}`, { token: rootToken })).recharge;

/** Waits until the worker has settled a sale (the stand-ins answer within seconds). */
async function settled(id: number): Promise<Sale['recharge']> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await saleStatus(id);
    if (!['pending', 'processing'].includes(r.status)) return r;
    if (Date.now() > deadline) throw new Error(`sale ${id} still ${r.status}`);
    await new Promise((res) => setTimeout(res, 250));
  }
}

beforeAll(async () => {
  rootToken = (await api<{ token: string }>('/auth/admin/login', { method: 'POST', body: ADMIN })).token;
  dealerToken = (await api<{ token: string }>('/auth/admin/login', { method: 'POST', body: DEALER })).token;
  const [wallet] = await api<{ id: number }[]>('/wallets?q=DEMO', { token: rootToken });
  await api(`/wallets/${wallet.id}/top-up`, { method: 'POST', token: rootToken, body: { amount: '5.00', reference: 'words-e2e' } });
  // One delivered sale (the dashboard's "1 sale"), one the payer declines (…0000), one delivered then refunded by hand.
  const sales = await Promise.all([
    buyFromDemoShop(env.server, { phone: '0615550101', idempotencyKey: 'words-e2e-completed' }),
    buyFromDemoShop(env.server, { phone: '0615550202', idempotencyKey: 'words-e2e-declined', payerPhone: '0617770000' }),
    buyFromDemoShop(env.server, { phone: ids.refundedPhone, idempotencyKey: 'words-e2e-refunded' }),
  ]);
  for (const s of sales) expect(s.status).toBe(201);
  [ids.completed, ids.declined, ids.refunded] = sales.map((s) => s.data.id);
  const outcomes = await Promise.all([ids.completed, ids.declined, ids.refunded].map(settled));
  expect(outcomes.map((o) => o.status)).toEqual(['completed', 'failed', 'completed']);
  ids.declinedCreatedAt = outcomes[1].created_at;
  await api(`/recharges/${ids.refunded}/refund`, { method: 'POST', token: rootToken });
  expect((await saleStatus(ids.refunded)).status).toBe('refunded');

  // A reader of reports without "export reports"; two admins whose role requires two-factor.
  const readers = await api<{ id: number }>('/roles', {
    method: 'POST',
    token: rootToken,
    body: { name: 'Report readers', permissions: ['view dashboard', 'view reports'] },
  });
  const guarded = await api<{ id: number }>('/roles', { method: 'POST', token: rootToken, body: { name: 'Guarded', permissions: ['view dashboard'] } });
  await api(`/roles/${guarded.id}/two-factor`, { method: 'PUT', token: rootToken, body: { required: true } });
  for (const [who, role, name] of [
    [READER, readers.id, 'Rahma Reader'],
    [ENROLLING[PHONE.width], guarded.id, 'Phone Guard'],
    [ENROLLING[DESKTOP.width], guarded.id, 'Desk Guard'],
  ] as const)
    await api('/users', {
      method: 'POST',
      token: rootToken,
      body: { name, email: who.email, password: who.password, password_confirmation: who.password, user_type: 'admin', role_id: role },
    });
}, 120_000);

/** A signed-in console page at `viewport`, in `lng` from the next load on. */
async function consoleAt(who: typeof ADMIN, path: string, viewport: { width: number; height: number }, lng: 'en' | 'ae' | 'so' = 'en') {
  const opened = await signedInAt(env, who, '/dashboard', viewport);
  await setLanguage(opened.page, lng, path);
  return opened;
}

/** The console's language as a stored preference (what its switcher keeps), read on the load of `path`. */
async function setLanguage(page: Page, lng: 'en' | 'ae' | 'so', path: string) {
  await page.evaluate((l) => localStorage.setItem('i18nextLng', l), lng);
  await page.goto(path);
  await expect.poll(() => page.evaluate(() => document.documentElement.dir)).toBe(lng === 'ae' ? 'rtl' : 'ltr');
}

const mainText = (page: Page) => page.locator('main').innerText();

describe('react-admin texts name the record in its language (item 8)', () => {
  for (const viewport of SIZES) {
    it(`an empty list says what it lists, in Arabic and Somali, at ${sizeName(viewport)}`, async () => {
      const { page, errors, close } = await consoleAt(ADMIN, '/dashboard', viewport, 'ae');
      // A period with no missed sale: the list's empty text names them in words, never "Missed-sales".
      for (const [lng, text] of [
        ['ae', 'لم يتم العثور على المبيعات الفائتة'],
        ['so', 'Lama helin Iibka la waayay'],
      ] as const) {
        await setLanguage(page, lng, '/missed-sales?from=2020-01-01&to=2020-01-31');
        await page.getByText(text).first().waitFor();
        expect(await mainText(page)).not.toMatch(/missed[-_ ]sales/i);
        if (viewport === PHONE && lng === 'ae') await page.screenshot({ path: artifactPath('console-words-missed-empty-390-ae.png'), fullPage: true });
      }
      expect(errors).toEqual([]);
      await close();
    });
  }

  // A phone's lists open a row's form instead of offering Delete: the question is asked on the desktop table.
  it('a delete question names the kind of record, in Arabic and Somali, at 1366 px', async () => {
    const { page, errors, close } = await consoleAt(ADMIN, '/internet-providers', DESKTOP, 'ae');
    for (const [lng, title, cancel] of [
      ['ae', 'حذف مشغّل Telesom', 'إلغاء'],
      ['so', 'Tirtir shirkad Telesom', 'Jooji'],
    ] as const) {
      await setLanguage(page, lng, '/internet-providers');
      const row = page.getByRole('row').filter({ hasText: 'Telesom' }).first();
      await row.getByRole('button', { name: lng === 'ae' ? 'حذف' : 'Tirtir' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText(title).waitFor();
      expect(await dialog.innerText()).not.toMatch(/internet-provider/i);
      await dialog.getByRole('button', { name: cancel }).click();
      await dialog.waitFor({ state: 'detached' });
    }
    expect(errors).toEqual([]);
    await close();
  });
});

describe('counts agree with their noun (item 8)', () => {
  // Arabic's forms for a count of top-up requests (1, 2, 3-10, 11-99, 100+).
  const arabicRequests = (n: number) =>
    n === 1 ? 'طلب شحن واحد معلق' : n === 2 ? 'طلبا شحن معلقان' : n % 100 >= 3 && n % 100 <= 10 ? `${n} طلبات شحن معلقة` : `${n} طلب شحن معلقًا`;

  for (const viewport of SIZES) {
    it(`"1 sale" in English, Somali and Arabic, and Arabic's other forms, at ${sizeName(viewport)}`, async () => {
      // One delivered sale today (the refunded and the declined one are not sales made).
      const { page, errors, close } = await consoleAt(ADMIN, '/dashboard', viewport, 'en');
      const today = page.getByText(/^1 sale · profit /).first();
      await today.waitFor();
      expect(await mainText(page)).not.toMatch(/\b1 sales\b/);
      await setLanguage(page, 'so', '/dashboard');
      await page
        .getByText(/^1 iib · faa'iido /)
        .first()
        .waitFor();
      await setLanguage(page, 'ae', '/dashboard');
      await page
        .getByText(/^عملية بيع واحدة · الربح /)
        .first()
        .waitFor();
      expect(await mainText(page)).not.toMatch(/1 عمليات/);
      if (viewport === PHONE) await page.screenshot({ path: artifactPath('console-words-dashboard-390-ae.png'), fullPage: true });
      await close();

      // The dealer's pending top-up requests on My wallet: one more each time, each count in its Arabic form.
      const dealer = await consoleAt(DEALER, '/dashboard', viewport, 'ae');
      for (let i = 0; i < 2; i++)
        await api('/wallet-top-up-requests', {
          method: 'POST',
          token: dealerToken,
          body: { amount: '1.00', reference: `words-${viewport.width}-${i}` },
        });
      const pending = (await api<unknown[]>('/wallet-top-up-requests?status=pending', { token: dealerToken })).length;
      await dealer.page.goto('/my-wallet');
      await dealer.page.getByText(arabicRequests(pending), { exact: true }).waitFor();
      expect(dealer.errors).toEqual([]);
      expect(errors).toEqual([]);
      await dealer.close();
    });
  }
});

describe('users and roles in words (item 8 and 9)', () => {
  for (const viewport of SIZES) {
    it(`a generated password clears "Password is required", in Arabic and Somali, at ${sizeName(viewport)}`, async () => {
      const { page, errors, close } = await consoleAt(ADMIN, '/admin', viewport, 'ae');
      for (const [lng, title, save, required, generate] of [
        ['ae', 'مسؤول جديد', 'حفظ', 'كلمة المرور مطلوبة', 'توليد كلمة مرور'],
        ['so', 'Maamule Cusub', 'Kaydi', 'Furaha sirta ah waa loo baahan yahay', 'Samee furaha'],
      ] as const) {
        await setLanguage(page, lng, '/admin');
        await page.getByRole('button', { name: title }).click();
        const form = page.getByRole('dialog', { name: title });
        await form.getByRole('button', { name: save }).click();
        await form.getByText(required).first().waitFor();
        await form.getByRole('button', { name: generate }).click();
        await form.getByText(required).first().waitFor({ state: 'detached' });
        // Both fields hold the password made.
        const [password, confirmation] = await Promise.all(
          [form.locator('input[name=password]'), form.locator('input[name=password_confirmation]')].map((f) => f.inputValue()),
        );
        expect(password.length).toBeGreaterThan(7);
        expect(confirmation).toBe(password);
        await page.keyboard.press('Escape');
        await form.waitFor({ state: 'detached' });
      }
      expect(errors).toEqual([]);
      await close();
    });

    it(`the role form lists permissions in words, without "Guard name", in Arabic and Somali, at ${sizeName(viewport)}`, async () => {
      const { page, errors, close } = await consoleAt(ADMIN, '/settings/roles', viewport, 'ae');
      for (const [lng, title, permissions] of [
        ['ae', 'دور جديد', ['عرض لوحة التحكم', 'نقل إلى سلة المحذوفات: المستخدمين']],
        ['so', 'Door Cusub', ['Eeg shaashadda guud', 'U rar qashinka: isticmaalayaasha']],
      ] as const) {
        await setLanguage(page, lng, '/settings/roles');
        await page.getByRole('button', { name: title }).click();
        const form = page.getByRole('dialog', { name: title });
        for (const name of permissions) await form.getByRole('checkbox', { name, exact: true }).waitFor();
        const text = await form.innerText();
        // No permission by its code, no guard.
        expect(text).not.toMatch(/\bview dashboard\b|\bdelete users\b|\bexport reports\b/);
        expect(text).not.toMatch(/guard/i);
        if (viewport === PHONE && lng === 'ae') await page.screenshot({ path: artifactPath('console-words-role-form-390-ae.png'), fullPage: true });
        await page.keyboard.press('Escape');
        await form.waitFor({ state: 'detached' });
      }
      expect(errors).toEqual([]);
      await close();
    });
  }

  // The Users table (desktop): a phone's list opens a row's form and has no Delete or bulk status.
  it("an admin deleting its own account reads the server's reason, and a bulk status change says it saved, in Arabic and Somali, at 1366 px", async () => {
    const { page, close } = await consoleAt(ADMIN, '/admin', DESKTOP, 'ae');
    for (const [lng, del, confirm, reason, deactivate, activate, saved, inactive, active] of [
      ['ae', 'حذف', 'تأكيد', 'لا يمكنك حذف حسابك.', 'إلغاء التفعيل', 'تفعيل', 'تم حفظ التغييرات', 'غير نشط', 'نشط'],
      ['so', 'Tirtir', 'Xaqiiji', 'Ma tirtiri kartid akoonkaaga.', 'Dami', 'Firfircooni', 'Isbeddellada waa la keydiyay', 'Aan firfircoonayn', 'Firfircoon'],
    ] as const) {
      await setLanguage(page, lng, '/admin');
      const mine = page.getByRole('row').filter({ hasText: ADMIN.email });
      await mine.getByRole('button', { name: del }).click();
      await page.getByRole('dialog').getByRole('button', { name: confirm }).click();
      await toast(page, reason).waitFor();
      expect(await page.getByText(/permission|صلاحية|ogolaansho/i).count()).toBe(0);
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      await mine.waitFor();

      // The reader's status, off and on again: the toast in the reader's words, not "Element updated".
      const reader = page.getByRole('row').filter({ hasText: READER.email });
      await reader.getByRole('checkbox').first().check();
      await page.getByRole('button', { name: deactivate, exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: confirm }).click();
      await toast(page, saved).waitFor();
      await reader.getByText(inactive, { exact: true }).waitFor();
      await reader.getByRole('checkbox').first().check();
      await page.getByRole('button', { name: activate, exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: confirm }).click();
      await reader.getByText(active, { exact: true }).waitFor();
      expect(await page.getByText(/Element updated/).count()).toBe(0);
    }
    await close();
  });
});

describe('search results, exports and a failed sale in words (items 8 and 9)', () => {
  async function search(page: Page, q: string) {
    // A phone shows a toggle in the top bar, a desktop the field itself.
    const toggle = page.locator('header').getByRole('button', { name: /^(بحث|Raadi|Search)$/ });
    const field = page.getByRole('searchbox').first();
    await field.or(toggle).first().waitFor();
    if (!(await field.isVisible())) await toggle.click();
    await field.fill(q);
    await field.press('Enter');
    await page.waitForURL((u) => u.pathname === '/search');
  }

  for (const viewport of SIZES) {
    it(`search results show a sale's status in words, in Arabic and Somali, at ${sizeName(viewport)}`, async () => {
      const { page, errors, close } = await consoleAt(ADMIN, '/dashboard', viewport, 'ae');
      for (const [lng, refunded] of [
        ['ae', 'مستردة'],
        ['so', 'La celiyay'],
      ] as const) {
        await setLanguage(page, lng, '/dashboard');
        await search(page, ids.refundedPhone);
        const hit = page
          .getByRole('link')
          .filter({ hasText: ids.refundedPhone.slice(1) })
          .first();
        await hit.waitFor();
        expect(await hit.innerText()).toContain(refunded);
        expect(await mainText(page)).not.toMatch(/\brefunded\b/);
        if (viewport === PHONE && lng === 'ae') await page.screenshot({ path: artifactPath('console-words-search-390-ae.png'), fullPage: true });
      }
      expect(errors).toEqual([]);
      await close();
    });

    it(`the sales CSV downloaded in Arabic has Arabic headers and words, at ${sizeName(viewport)}`, async () => {
      const { page, errors, close } = await consoleAt(ADMIN, '/recharges', viewport, 'ae');
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'تصدير CSV' }).click()]);
      const csv = readFileSync(await download.path())
        .toString('utf8')
        .replace(/^\uFEFF/, '');
      const [header, ...rows] = csv.trim().split(/\r?\n/);
      expect(header.split(',').slice(0, 3)).toEqual(['المعرّف', 'المرجع', 'تاريخ الإنشاء']);
      expect(header).toContain('سبب الفشل');
      expect(header).not.toMatch(/[a-z]_[a-z]|\bstatus\b|\bcreated_at\b/);
      const declined = rows.find((r) => r.startsWith(`${ids.declined},`))!;
      expect(declined).toContain('فاشلة');
      expect(declined).toContain('رفض الدافع الدفع: لم يُؤخذ شيء');
      expect(rows.find((r) => r.startsWith(`${ids.completed},`))).toContain('مكتملة');
      expect(csv).not.toMatch(/,(completed|failed|refunded),/);
      expect(errors).toEqual([]);
      await close();
    });

    it(`a failed sale says why in Arabic and Somali, with a Somali date, at ${sizeName(viewport)}`, async () => {
      const SOMALI_MONTHS = ['Jannaayo', 'Febraayo', 'Maarso', 'Abriil', 'Maajo', 'Juun', 'Luuliyo', 'Ogost', 'Sebtembar', 'Oktoobar', 'Nofeembar', 'Desembar'];
      const parts = Object.fromEntries(
        new Intl.DateTimeFormat('en-GB', { timeZone: 'Africa/Mogadishu', day: 'numeric', month: 'numeric', year: 'numeric' })
          .formatToParts(new Date(ids.declinedCreatedAt))
          .map((p) => [p.type, p.value]),
      );
      const somaliDay = `${parts.day} ${SOMALI_MONTHS[Number(parts.month) - 1]} ${parts.year}`;
      const { page, errors, close } = await consoleAt(ADMIN, '/dashboard', viewport, 'ae');
      for (const [lng, reason, label] of [
        ['ae', 'رفض الدافع الدفع: لم يُؤخذ شيء', 'سبب الفشل'],
        ['so', 'Bixiyaha ayaa diiday lacag bixinta: waxba lagama qaadin', 'Sababta fashilka'],
      ] as const) {
        await setLanguage(page, lng, `/recharges/${ids.declined}`);
        const sale = page.getByRole('dialog');
        await sale.getByText(reason, { exact: true }).waitFor();
        await sale.getByText(label, { exact: true }).first().waitFor();
        const text = await sale.innerText();
        expect(text).not.toContain('Payment declined by the payer');
        if (lng === 'so') {
          expect(text).toContain(somaliDay);
          expect(text).not.toMatch(/\d{4} M\d{1,2} \d{1,2}|November|December/);
        }
        if (viewport === PHONE) await page.screenshot({ path: artifactPath(`console-words-failed-sale-390-${lng}.png`), fullPage: true });
      }
      expect(errors).toEqual([]);
      await close();
    });
  }
});

describe('menus in the reader’s language (item 9)', () => {
  /** The main menu's text (on a phone, in its drawer). */
  async function menuText(page: Page, viewport: { width: number }, open: string, name: string) {
    if (viewport === PHONE) await page.locator('header').getByRole('button', { name: open }).click();
    const nav = page.getByRole('navigation', { name });
    await nav.getByRole('link').first().waitFor();
    const text = await nav.innerText();
    if (viewport === PHONE) await page.keyboard.press('Escape');
    return text;
  }

  for (const viewport of SIZES) {
    it(`the Somali menu has no English, and Arabic says وكيل for a dealer in the menu and the dealers list, at ${sizeName(viewport)}`, async () => {
      const { page, errors, close } = await consoleAt(ADMIN, '/dashboard', viewport, 'so');
      const somali = await menuText(page, viewport, 'Fur/xir liiska dhinaca', 'Liiska ugu weyn');
      expect(somali).toContain('Shaashadda guud');
      expect(somali).not.toMatch(/\b(Dashboard|Recharges|Wallets|Dealers|Reports|Settings|Logs|Trash)\b/);
      await page.getByRole('heading', { level: 1, name: 'Shaashadda guud' }).waitFor();

      await setLanguage(page, 'ae', '/dealers');
      await page.getByRole('heading', { level: 1, name: 'الوكلاء' }).waitFor();
      await page.getByText('Demo Dealer').first().waitFor();
      const arabic = await menuText(page, viewport, 'إظهار/إخفاء القائمة الجانبية', 'القائمة الرئيسية');
      expect(arabic).toContain('الوكلاء');
      expect(arabic).not.toMatch(/موزع/);
      expect(await mainText(page)).not.toMatch(/موزع/);
      if (viewport === PHONE) await page.screenshot({ path: artifactPath('console-words-dealers-390-ae.png'), fullPage: true });
      expect(errors).toEqual([]);
      await close();
    });
  }
});

describe('catalogue names in the reader’s language (item 9)', () => {
  for (const viewport of SIZES) {
    it(`operators, categories and bundles read in Arabic and Somali where translated, as staff and as the dealer, at ${sizeName(viewport)}`, async () => {
      const [hormuud] = await api<{ id: number }[]>('/internet-providers?q=Hormuud', { token: rootToken });
      const [daily] = await api<{ id: number }[]>(`/internet-categories?provider_id=${hormuud.id}&q=Daily`, { token: rootToken });
      // Staff: the company's catalogue, in Arabic.
      const staff = await consoleAt(ADMIN, '/internet-providers', viewport, 'ae');
      await staff.page.getByText('هرمود', { exact: true }).first().waitFor();
      expect(await mainText(staff.page)).not.toContain('Hormuud');
      await staff.page.goto(`/internet-providers/${hormuud.id}/categories/${daily.id}/bundles`);
      await staff.page.getByRole('heading', { level: 1, name: /هرمود · يومي/ }).waitFor();
      await staff.page.getByText('1 جيجابايت يومي', { exact: true }).first().waitFor();
      // The name keeps its own direction inside the right-to-left row.
      await expect(staff.page.locator('main bdi').filter({ hasText: '1 جيجابايت يومي' }).count()).resolves.toBeGreaterThan(0);
      expect(await mainText(staff.page)).not.toContain('1 GB Daily');
      // Not translated into Somali: the operator as typed, the bundle in Somali.
      await setLanguage(staff.page, 'so', `/internet-providers/${hormuud.id}/categories/${daily.id}/bundles`);
      await staff.page.getByText('1 GB Maalinle', { exact: true }).first().waitFor();
      await staff.page.getByRole('heading', { level: 1, name: /Hormuud · Maalinle/ }).waitFor();
      expect(staff.errors).toEqual([]);
      await staff.close();

      // The dealer: its own catalogue, as its customers read it; the switcher asks again in the new language.
      const dealer = await consoleAt(DEALER, `/dealer-providers/${hormuud.id}/categories/${daily.id}/bundles`, viewport, 'ae');
      await dealer.page.getByText('1 جيجابايت يومي', { exact: true }).first().waitFor();
      await dealer.page.getByRole('heading', { level: 1, name: /هرمود · يومي/ }).waitFor();
      expect(await mainText(dealer.page)).not.toContain('1 GB Daily');
      if (viewport === PHONE) await dealer.page.screenshot({ path: artifactPath('console-words-dealer-bundles-390-ae.png'), fullPage: true });
      await dealer.page.getByTestId('language-switcher').click();
      await dealer.page.getByRole('menuitem', { name: /Soomaali/ }).click();
      await dealer.page.getByText('1 GB Maalinle', { exact: true }).first().waitFor();
      await expect.poll(() => mainText(dealer.page)).not.toContain('1 جيجابايت يومي');
      expect(dealer.errors).toEqual([]);
      await dealer.close();
    });
  }
});

describe('My wallet when the session ends (item 8)', () => {
  for (const viewport of SIZES) {
    it(`a dealer is taken to sign-in, never to the 500 page, at ${sizeName(viewport)}`, async () => {
      const { page, errors, close } = await consoleAt(DEALER, '/my-wallet', viewport, 'so');
      await page.getByRole('heading', { level: 1, name: 'Boorsadayda' }).waitFor();
      // Anything the page shows from now on is remembered: the error page must never flash.
      await page.evaluate(() => {
        const w = window as unknown as { sawError: boolean };
        w.sawError = false;
        new MutationObserver(() => {
          if (/Khalad Gudaha Server-ka ah|Internal Server Error/.test(document.body.innerText)) w.sawError = true;
        }).observe(document.body, { childList: true, subtree: true, characterData: true });
      });
      // The server ends the session (an expiry or a sign-out elsewhere); the page asks again when the window gets focus.
      const token = (await page.context().cookies()).find((c) => c.name === 'auth_token')!.value;
      await api('/auth/logout', { method: 'POST', token: decodeURIComponent(token) });
      await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
      await page.waitForURL(/\/auth\/login\?redirect=%2Fmy-wallet$/);
      await page.getByRole('status').filter({ hasText: 'Fadhigaagii' }).waitFor();
      expect(await page.evaluate(() => (window as unknown as { sawError?: boolean }).sawError)).toBe(false);
      expect(await page.getByText(/500|Khalad Gudaha Server-ka ah/).count()).toBe(0);
      expect(errors).toEqual([]);
      await close();
    });
  }
});

describe('access (item 7a)', () => {
  for (const viewport of SIZES) {
    it(`a role without "export reports" is offered no CSV, and the CSV address is refused in the browser, at ${sizeName(viewport)}`, async () => {
      const { page, errors, close } = await consoleAt(READER, '/reports', viewport, 'en');
      await page.getByRole('table', { name: 'Sales report' }).waitFor();
      await page.waitForLoadState('networkidle');
      expect(await page.getByRole('button', { name: /^Export/ }).count()).toBe(0);
      // The address the button would ask, with this session's own credentials.
      const answer = await page.evaluate(async () => {
        const token = decodeURIComponent(document.cookie.match(/(?:^|; )auth_token=([^;]*)/)![1]);
        const res = await fetch('/api/v1/reports/sales?format=csv', { headers: { Authorization: `Bearer ${token}`, Accept: 'text/csv' } });
        return { status: res.status, body: await res.text() };
      });
      expect(answer.status).toBe(403);
      expect(answer.body).not.toMatch(/^date|,revenue|,profit/i);
      expect(errors).toEqual([]);
      await close();
    });

    it(`the two-factor setup page keeps its secret over a reload and takes a code from the first load, at ${sizeName(viewport)}`, async () => {
      const who = ENROLLING[viewport.width];
      const { context, page, errors } = await newPage(env.browser, env.server.url);
      await page.setViewportSize(viewport);
      await signIn(page, who);
      await page.waitForURL(/\/auth\/two-factor-setup$/);
      const secretBox = page.getByTestId('two-factor-secret');
      const first = (await secretBox.innerText()).replace(/\s+/g, '');
      expect(first).toMatch(/^[A-Z2-7]{32}$/);
      const qr = await page.getByRole('img', { name: 'QR code for your authenticator app' }).getAttribute('src');
      await page.reload();
      await page.getByRole('heading', { name: 'Set up two-factor sign-in' }).waitFor();
      expect((await secretBox.innerText()).replace(/\s+/g, '')).toBe(first);
      expect(await page.getByRole('img', { name: 'QR code for your authenticator app' }).getAttribute('src')).toBe(qr);
      // The app scanned the first QR: its code is accepted.
      await page.getByLabel('Authentication code').fill(new TOTP({ secret: Secret.fromBase32(first) }).generate());
      await page.getByLabel('Your password', { exact: true }).fill(who.password);
      await page.getByRole('button', { name: 'Turn on' }).click();
      await page.getByTestId('recovery-codes').waitFor();
      expect(await page.getByText('The code is not correct').count()).toBe(0);
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});
