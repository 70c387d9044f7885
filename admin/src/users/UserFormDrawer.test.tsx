import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { AdminContext, memoryStore, testDataProvider } from 'react-admin';
import { UserFormDrawer } from './UserFormDrawer';
import { testI18nProvider } from '../test/i18n';
import { clearSession, startSession } from '../providers/session';
// The console's own: it answers permissions and identity from the session the tests start.
import { authProvider } from '../providers/authProvider';

async function renderForm(
  userType: 'admin' | 'dealer',
  dataProvider = testDataProvider({ getList: async () => ({ data: [], total: 0 }) as never }),
  lng = 'en',
) {
  const i18nProvider = await testI18nProvider(lng);
  startSession('t', { id: 1, name: 'A', email: 'a@x.so', permissions: [{ name: 'create users' }] }, false);
  return render(
    <AdminContext authProvider={authProvider} dataProvider={dataProvider} i18nProvider={i18nProvider} store={memoryStore()}>
      <UserFormDrawer open userType={userType} record={null} onClose={() => undefined} />
    </AdminContext>,
  );
}

describe('user slide-over form', () => {
  afterEach(() => {
    cleanup();
    clearSession();
    vi.restoreAllMocks();
  });

  it('titles New Dealer and shows the field messages and the logo message on Save', async () => {
    await renderForm('dealer');
    expect(await screen.findByRole('heading', { name: 'New Dealer' })).toBeTruthy();
    expect(screen.getByText('JPG, PNG, GIF (Max 5MB)')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Name is required')).toBeTruthy();
    expect(screen.getByText('Email is required')).toBeTruthy();
    expect(screen.getByText('Password is required')).toBeTruthy();
    expect(screen.getByText('Dealer code is required for dealer users')).toBeTruthy();
    expect(screen.getByText('Dealer logo is required for new dealer accounts')).toBeTruthy();
  });

  it.each([
    ['en', 'Password is required', 'Generate password', 'Save'],
    ['ae', 'كلمة المرور مطلوبة', 'توليد كلمة مرور', 'حفظ'],
    ['so', 'Furaha sirta ah waa loo baahan yahay', 'Samee furaha', 'Kaydi'],
  ])('a generated password clears "password is required" under both fields (%s)', async (lng, required, generate, save) => {
    await renderForm('admin', undefined, lng);
    fireEvent.click(await screen.findByRole('button', { name: save }));
    expect(await screen.findByText(required)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: generate }));
    await waitFor(() => expect(screen.queryByText(required)).toBeNull());
  });

  it('puts server field errors on their fields and unknown ones in the Error banner', async () => {
    // react-admin logs a failed dataProvider call; expected here.
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const create = vi.fn().mockRejectedValue(
      Object.assign(new Error('The given data was invalid.'), {
        status: 422,
        body: { message: 'The given data was invalid.', errors: { email: 'The email has already been taken.', odd: 'Something odd' } },
      }),
    );
    await renderForm('admin', testDataProvider({ create, getList: async () => ({ data: [{ id: 2, name: 'ops' }], total: 1 }) as never }));
    expect(await screen.findByRole('heading', { name: 'New Admin' })).toBeTruthy();
    fireEvent.change(screen.getByLabelText(/^Name/), { target: { value: 'Ali' } });
    fireEvent.change(screen.getByLabelText(/^Email/), { target: { value: 'ali@x.so' } });
    fireEvent.change(screen.getByLabelText(/^Password/), { target: { value: 'Abcdef!1' } });
    fireEvent.change(screen.getByLabelText(/^Confirm password/), { target: { value: 'Abcdef!1' } });
    const role = screen.getByRole('combobox', { name: /Role/ });
    fireEvent.mouseDown(role);
    fireEvent.click(await screen.findByRole('option', { name: 'ops' }));
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(create).toHaveBeenCalled());
    expect(create.mock.calls[0][1].data).toMatchObject({ name: 'Ali', email: 'ali@x.so', role_id: 2, user_type: 'admin', status: 'active' });
    expect(await screen.findByText('The email has already been taken.')).toBeTruthy();
    expect(screen.getByText('Error')).toBeTruthy();
    expect(screen.getByText('Something odd')).toBeTruthy();
  });

  it('edits the dealer’s description per language, and puts a translation’s server error on its input, not in the banner', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const record = {
      id: 7,
      name: 'Shop',
      email: 's@x.so',
      user_type: 'dealer',
      status: 'active',
      dealer_code: 'SHOP',
      roles: [],
      permissions: [],
      dealer_details: {
        brand_color: '#000000',
        company_name: 'Shop Ltd',
        description: 'Bundles',
        pricing_model: 'cost',
        translations: { ae: { description: 'باقات' } },
      },
    };
    const update = vi.fn().mockRejectedValue(
      Object.assign(new Error('Validation failed.'), {
        status: 422,
        body: { message: 'Validation failed.', errors: { 'translations.so.company_name': 'This value is too long' } },
      }),
    );
    const i18nProvider = await testI18nProvider();
    startSession('t', { id: 1, name: 'A', email: 'a@x.so', permissions: [{ name: 'update users' }] }, false);
    render(
      <AdminContext
        authProvider={authProvider}
        dataProvider={testDataProvider({ update, getOne: async () => ({ data: record }) as never, getList: async () => ({ data: [], total: 0 }) as never })}
        i18nProvider={i18nProvider}
        store={memoryStore()}
      >
        <UserFormDrawer open userType="dealer" record={record as never} onClose={() => undefined} />
      </AdminContext>,
    );
    expect(((await screen.findByLabelText('Description in Arabic')) as HTMLInputElement).value).toBe('باقات');
    expect(screen.getByRole('button', { name: 'Translations of Company name' }).getAttribute('aria-expanded')).toBe('false');
    fireEvent.change(screen.getByLabelText('Description in Somali'), { target: { value: 'Xirmooyin' } });
    fireEvent.click(screen.getByRole('button', { name: 'Update' }));
    await waitFor(() => expect(update).toHaveBeenCalled());
    expect(update.mock.calls[0][1].data.translations).toMatchObject({ ae: { description: 'باقات' }, so: { description: 'Xirmooyin' } });
    expect(await screen.findByText('This value is too long')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Translations of Company name' }).getAttribute('aria-expanded')).toBe('true');
    expect(screen.queryByText('Error')).toBeNull();
  });

  it("starts a Cost + Profit dealer from the company's payment methods with its own numbers, and shows a refused number on its field", async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const create = vi.fn().mockRejectedValue(
      Object.assign(new Error('Validation failed.'), {
        status: 422,
        body: {
          message: 'Validation failed.',
          errors: { 'starter_payment_methods.m3': "Enter this shop's own number: customers of a Cost + Profit shop pay the shop, not the company." },
        },
      }),
    );
    const getList = vi.fn(
      async (resource: string, _params?: unknown) =>
        (resource === 'payment-methods'
          ? {
              data: [
                { id: 3, h_id: 'm3', name: 'EVC Plus', type: 'evc_plus' },
                { id: 4, h_id: 'm4', name: 'Cash', type: 'cash' },
              ],
              total: 2,
            }
          : { data: [], total: 0 }) as never,
    );
    const i18nProvider = await testI18nProvider();
    startSession('t', { id: 1, name: 'A', email: 'a@x.so', permissions: [{ name: 'create users' }, { name: 'view payment methods' }] }, false);
    const { container } = render(
      <AdminContext authProvider={authProvider} dataProvider={testDataProvider({ create, getList })} i18nProvider={i18nProvider} store={memoryStore()}>
        <UserFormDrawer open userType="dealer" record={null} onClose={() => undefined} />
      </AdminContext>,
    );
    fireEvent.click(await screen.findByRole('checkbox', { name: 'EVC Plus' }));
    expect(getList.mock.calls.find((c) => c[0] === 'payment-methods')?.[1]).toMatchObject({ filter: { dealer_id: 'global', status: 'active' } });
    fireEvent.change(screen.getByLabelText(/^This shop's number for EVC Plus/), { target: { value: '615000000' } });
    fireEvent.change(screen.getByLabelText(/^Name/), { target: { value: 'Shop' } });
    fireEvent.change(screen.getByLabelText(/^Email/), { target: { value: 'shop@x.so' } });
    fireEvent.change(screen.getByLabelText(/^Password/), { target: { value: 'Abcdef!1' } });
    fireEvent.change(screen.getByLabelText(/^Confirm password/), { target: { value: 'Abcdef!1' } });
    fireEvent.change(screen.getByLabelText(/^Dealer code/), { target: { value: 'SHOP' } });
    const file = new File([new Uint8Array([137, 80, 78, 71])], 'logo.png', { type: 'image/png' });
    fireEvent.change(container.ownerDocument.querySelector('input[type=file]')!, { target: { files: [file] } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(create).toHaveBeenCalled());
    expect(create.mock.calls[0][1].data.starter_payment_methods).toEqual({ m3: '615000000' });
    expect(await screen.findByText("Enter this shop's own number: customers of a Cost + Profit shop pay the shop, not the company.")).toBeTruthy();
    expect(screen.queryByText('Error')).toBeNull();
  });

  it('tells a Profit Only dealer that its customers pay the company', async () => {
    const i18nProvider = await testI18nProvider();
    startSession('t', { id: 1, name: 'A', email: 'a@x.so', permissions: [{ name: 'create users' }, { name: 'view payment methods' }] }, false);
    render(
      <AdminContext
        authProvider={authProvider}
        dataProvider={testDataProvider({ getList: async () => ({ data: [{ id: 3, h_id: 'm3', name: 'EVC Plus', type: 'evc_plus' }], total: 1 }) as never })}
        i18nProvider={i18nProvider}
        store={memoryStore()}
      >
        <UserFormDrawer open userType="dealer" record={null} onClose={() => undefined} />
      </AdminContext>,
    );
    fireEvent.mouseDown(await screen.findByRole('combobox', { name: /Pricing model/ }));
    fireEvent.click(await screen.findByRole('option', { name: 'Profit Only' }));
    expect(await screen.findByText("Customers of a Profit Only shop pay through the company's payment methods: nothing to set up.")).toBeTruthy();
    expect(screen.queryByRole('checkbox', { name: 'EVC Plus' })).toBeNull();
  });
});
