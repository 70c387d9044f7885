import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { serveRoutes } from '../test/fetchMock';
import { ok, renderScreen } from '../test/renderScreen';
import { clearSession } from '../providers/session';
import CompanySettingsPage from './CompanySettingsPage';

/**
 * The Company settings form's currency (docs/decisions.md, "One currency"): read-only with the
 * server's reason once money exists; before, a change is saved only after the admin confirms it.
 */
const PERMISSIONS = ['view company settings', 'update company settings'];
const REASON =
  'The currency cannot change once money exists: wallets or sales are in USD. Changing it needs every balance and price converted, which an operator does by hand.';

const settings = (over: Record<string, unknown> = {}) => ({
  company_name: 'Somali Data Co',
  logo: null,
  address: null,
  phone: null,
  email: null,
  currency: 'USD',
  timezone: 'Africa/Mogadishu',
  footer_text: null,
  currency_locked: false,
  currency_locked_reason: null,
  ...over,
});

afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

const renderPage = (lng = 'en') =>
  renderScreen(<CompanySettingsPage />, { path: '/settings/company', url: '/settings/company', permissions: PERMISSIONS, lng });

describe('the Company settings currency', () => {
  it('is read-only with the reason once money exists, and the rest of the form still saves', async () => {
    const calls = serveRoutes({
      'GET /api/v1/settings/company': () => ok(settings({ currency_locked: true, currency_locked_reason: REASON })),
      'PUT /api/v1/settings/company': (call) =>
        ok(settings({ ...(call.body as object), currency_locked: true, currency_locked_reason: REASON }), 'Company settings saved'),
    });
    await renderPage();
    const currency = (await screen.findByLabelText('Currency')) as HTMLInputElement;
    expect(currency.value).toBe('USD');
    expect(currency.readOnly).toBe(true);
    expect(screen.queryByRole('combobox', { name: 'Currency' })).toBeNull();
    expect(screen.getByText(REASON)).toBeTruthy();

    fireEvent.change(screen.getByLabelText('Footer text'), { target: { value: 'Somali Data Co' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'PUT')).toBe(true));
    // Nothing to confirm: the currency did not change.
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(calls.find((c) => c.method === 'PUT')!.body).toMatchObject({ currency: 'USD', footer_text: 'Somali Data Co' });
  });

  it('asks before a change while no money exists, saves only when confirmed, and shows a refusal on the field', async () => {
    let answer: () => { status?: number; body: unknown } = () => ok(settings({ currency: 'SOS' }), 'Company settings saved');
    const calls = serveRoutes({
      'GET /api/v1/settings/company': () => ok(settings()),
      'PUT /api/v1/settings/company': () => answer(),
    });
    await renderPage();
    expect(await screen.findByText('Every wallet, price and sale is in this currency. It can change only until the first money moves.')).toBeTruthy();
    const pick = async (currency: string) => {
      await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
      fireEvent.mouseDown(screen.getByRole('combobox', { name: 'Currency' }));
      fireEvent.click(await screen.findByRole('option', { name: currency }));
      // The field is validated again on change (after a refusal): Save waits for it.
      await waitFor(() => expect(screen.getByRole('button', { name: 'Save' })).toHaveProperty('disabled', false));
      fireEvent.click(screen.getByRole('button', { name: 'Save' }));
      return screen.findByRole('dialog');
    };
    const puts = () => calls.filter((c) => c.method === 'PUT');

    // Cancelled: nothing is sent.
    let dialog = await pick('SOS');
    expect(within(dialog).getByText('Change the currency to SOS?')).toBeTruthy();
    expect(within(dialog).getByText(/Amounts are not converted: a price of 1\.50 USD becomes 1\.50 SOS/)).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(puts()).toHaveLength(0);

    // Money appeared meanwhile: the server's refusal lands on the field.
    answer = () => ({
      status: 422,
      body: { success: false, code: 'validation.failed', message: 'Validation failed. Please check your inputs.', errors: { currency: [REASON] } },
    });
    dialog = await pick('SOS');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Change to SOS' }));
    expect(await screen.findByText(REASON)).toBeTruthy();
    expect(puts()).toHaveLength(1);

    // Confirmed: saved with the new currency.
    answer = () => ok(settings({ currency: 'SOS' }), 'Company settings saved');
    dialog = await pick('KES');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Change to KES' }));
    await waitFor(() => expect(puts()).toHaveLength(2));
    expect(puts()[1].body).toMatchObject({ currency: 'KES', company_name: 'Somali Data Co' });
    expect(await screen.findByText('Company settings saved')).toBeTruthy();
  });

  it('checks the form with the shared schema before sending: a name, a valid phone, each refusal on its field', async () => {
    const calls = serveRoutes({ 'GET /api/v1/settings/company': () => ok(settings()) });
    await renderPage();
    const name = (await screen.findByLabelText(/^Company name/)) as HTMLInputElement;
    await waitFor(() => expect(name.value).toBe('Somali Data Co'));
    fireEvent.change(name, { target: { value: '' } });
    const phone = screen.getByLabelText(/^Phone/);
    fireEvent.change(phone, { target: { value: 'call me' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    const helper = (input: HTMLElement) => input.closest('.MuiFormControl-root')?.textContent ?? '';
    await waitFor(() => expect(helper(name)).toContain('Company name is required'));
    expect(helper(phone)).toContain('Enter a phone number such as +252 61 5123456');
    expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(0);
  });

  it('says so in Somali and Arabic', async () => {
    for (const [lng, title] of [
      ['so', 'Nooca lacagta ma u beddeshaa SOS?'],
      ['ae', 'تغيير العملة إلى SOS؟'],
    ] as const) {
      serveRoutes({ 'GET /api/v1/settings/company': () => ok(settings()) });
      await renderPage(lng);
      const label = lng === 'so' ? 'Lacagta' : 'العملة';
      fireEvent.mouseDown(await screen.findByRole('combobox', { name: label }));
      fireEvent.click(await screen.findByRole('option', { name: 'SOS' }));
      fireEvent.click(screen.getByRole('button', { name: lng === 'so' ? /Kaydi/ : /حفظ/ }));
      expect(within(await screen.findByRole('dialog')).getByText(title)).toBeTruthy();
      cleanup();
      clearSession();
      vi.unstubAllGlobals();
    }
  });
});
