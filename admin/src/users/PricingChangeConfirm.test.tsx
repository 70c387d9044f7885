import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { AdminContext, ResourceContextProvider, memoryStore, testDataProvider } from 'react-admin';
import { UserFormDrawer } from './UserFormDrawer';
import { DealerDeleteQuestion } from './UserTrashButton';
import { testI18nProvider } from '../test/i18n';
import { clearSession, startSession } from '../providers/session';

const dealer = {
  id: 7,
  h_id: 'd7',
  name: 'Hodan Shop',
  email: 'h@x.so',
  user_type: 'dealer',
  status: 'active',
  dealer_code: 'HODAN',
  roles: [],
  permissions: [],
  dealer_details: { brand_color: '#000000', pricing_model: 'cost', translations: null },
};
const QUESTION = "This dealer's wallet holds 12.50 USD. Changing the pricing model changes who pays for its sales: confirm the change to go ahead.";

describe("a dealer's pricing model and its wallet", () => {
  afterEach(() => {
    cleanup();
    clearSession();
    vi.restoreAllMocks();
  });

  it("asks with the server's words (the balance) before switching, and sends the switch again confirmed", async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const update = vi
      .fn()
      .mockRejectedValueOnce(
        Object.assign(new Error(QUESTION), { status: 409, body: { success: false, code: 'users.pricing_change_needs_confirmation', message: QUESTION } }),
      )
      .mockResolvedValueOnce({ data: { ...dealer, dealer_details: { ...dealer.dealer_details, pricing_model: 'profit' } } });
    const onClose = vi.fn();
    startSession('t', { id: 1, name: 'A', email: 'a@x.so', permissions: [{ name: 'update users' }] }, false);
    render(
      <AdminContext
        dataProvider={testDataProvider({ update, getOne: async () => ({ data: dealer }) as never, getList: async () => ({ data: [], total: 0 }) as never })}
        i18nProvider={await testI18nProvider()}
        store={memoryStore()}
      >
        <UserFormDrawer open userType="dealer" record={dealer as never} onClose={onClose} />
      </AdminContext>,
    );
    fireEvent.mouseDown(await screen.findByRole('combobox', { name: /Pricing model/ }));
    fireEvent.click(await screen.findByRole('option', { name: 'Profit Only' }));
    fireEvent.click(screen.getByRole('button', { name: 'Update' }));
    const dialog = await screen.findByRole('dialog', { name: 'Change the pricing model?' });
    expect(within(dialog).getByText(QUESTION)).toBeTruthy();
    expect(update).toHaveBeenCalledTimes(1);
    expect(update.mock.calls[0][1].data).not.toHaveProperty('confirm_pricing_change');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Change the pricing model' }));
    await waitFor(() => expect(update).toHaveBeenCalledTimes(2));
    expect(update.mock.calls[1][1].data).toMatchObject({ pricing_model: 'profit', confirm_pricing_change: true });
    await waitFor(() => expect(onClose).toHaveBeenCalled());
  });

  it('names the balance when a dealer whose wallet holds money is moved to the trash', async () => {
    startSession('t', { id: 1, name: 'A', email: 'a@x.so', permissions: [{ name: 'view wallets' }] }, false);
    const getList = vi.fn(async () => ({
      data: [
        { id: 3, h_id: 'w3', dealer_id: 70, dealer: { id: 70, name: 'Hodan Shop 2' }, balance: '99.00', currency: 'USD' },
        { id: 2, h_id: 'w2', dealer_id: 7, dealer: { id: 7, name: 'Hodan Shop' }, balance: '12.50', currency: 'USD' },
      ],
      total: 2,
    }));
    render(
      <AdminContext
        dataProvider={testDataProvider({ getList: getList as never })}
        authProvider={{
          login: async () => undefined,
          logout: async () => undefined,
          checkAuth: async () => undefined,
          checkError: async () => undefined,
          getPermissions: async () => ['view wallets'],
        }}
        i18nProvider={await testI18nProvider()}
        store={memoryStore()}
      >
        <ResourceContextProvider value="dealers">
          <DealerDeleteQuestion dealer={dealer as never} />
        </ResourceContextProvider>
      </AdminContext>,
    );
    expect((await screen.findByTestId('dealer-balance-warning')).textContent?.replace(/[\u2066\u2069]/g, '')).toBe(
      'The wallet of Hodan Shop holds 12.50 USD. The money stays in the wallet while the dealer is in the trash, and the dealer cannot sell or use it.',
    );
    expect(getList.mock.calls[0]).toMatchObject(['wallets', { filter: { q: 'HODAN' } }]);
    // The question names the kind of record: no raw {{name}} placeholder.
    expect(screen.getByText('Are you sure you want to delete this dealer?')).toBeTruthy();
    expect(document.body.textContent).not.toContain('{{');
  });
});
