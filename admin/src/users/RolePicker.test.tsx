import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { AdminContext, memoryStore, testDataProvider } from 'react-admin';
import { RolePicker } from './RolePicker';
import { testI18nProvider } from '../test/i18n';

describe('role picker (docs/product.md section 5)', () => {
  afterEach(cleanup);

  it('searches the server only from 2 characters and never offers the dealer role', async () => {
    const search = vi.fn().mockResolvedValue({
      data: [
        { id: 3, name: 'operations' },
        { id: 2, name: 'dealer' },
      ],
    });
    const getList = vi.fn().mockResolvedValue({
      data: [
        { id: 1, name: 'super-admin' },
        { id: 2, name: 'dealer' },
      ],
      total: 2,
    });
    const dataProvider = { ...testDataProvider({ getList }), search };
    render(
      <AdminContext dataProvider={dataProvider} i18nProvider={await testI18nProvider()} store={memoryStore()}>
        <RolePicker value={null} onChange={() => undefined} />
      </AdminContext>,
    );
    const input = screen.getByRole('combobox', { name: /Role/ });
    input.focus();
    fireEvent.mouseDown(input);
    expect(await screen.findByRole('option', { name: 'super-admin' })).toBeTruthy();
    expect(screen.queryByRole('option', { name: 'dealer' })).toBeNull();

    fireEvent.change(input, { target: { value: 'o' } });
    await new Promise((r) => setTimeout(r, 50));
    expect(search).not.toHaveBeenCalled();
    fireEvent.change(input, { target: { value: 'op' } });
    await waitFor(() => expect(search).toHaveBeenCalledWith('roles', { q: 'op' }));
    await waitFor(() => expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual(['operations']));
    expect(screen.queryByRole('option', { name: 'dealer' })).toBeNull();
  });
});
