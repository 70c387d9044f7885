import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { AdminContext, memoryStore, RecordContextProvider, testDataProvider } from 'react-admin';
import { dataProvider } from '../providers/dataProvider';
import { LocaleDateField } from './LocaleDateField';
import { testI18nProvider } from '../test/i18n';
import { mockFetch } from '../test/fetchMock';

const settings = (timezone: string) => ({ status: 200, body: { success: true, data: { company_name: 'X', currency: 'USD', timezone, footer_text: null } } });

async function show(record: Record<string, unknown>, source: string) {
  const i18nProvider = await testI18nProvider();
  render(
    <AdminContext dataProvider={testDataProvider({ publicSettings: dataProvider.publicSettings } as never)} i18nProvider={i18nProvider} store={memoryStore()}>
      <RecordContextProvider value={record}>
        <p data-testid="at">
          <LocaleDateField source={source} showTime />
        </p>
      </RecordContextProvider>
    </AdminContext>,
  );
}

describe('LocaleDateField: one clock, the company one', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("shows a time in the company's zone, not the browser's (the tests run in Africa/Mogadishu)", async () => {
    mockFetch([settings('Asia/Kolkata')]);
    await show({ id: 1, deleted_at: '2026-11-23T23:05:00.000Z' }, 'deleted_at');
    // 23:05 UTC is 04:35 the next day in Kolkata (02:05 in Mogadishu).
    expect(await screen.findByText(/Nov 24, 2026.*4:35/)).toBeTruthy();
  });

  it('shows nothing for a record without the date', async () => {
    mockFetch([settings('Africa/Mogadishu')]);
    await show({ id: 1, deleted_at: null }, 'deleted_at');
    expect(screen.getByTestId('at').textContent).toBe('');
  });
});
