import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { renderScreen, ok, page } from '../test/renderScreen';
import { serveRoutes } from '../test/fetchMock';
import LogList from './LogList';
import { humaniseField } from './logFields';

/**
 * A log entry's change reads in the user's words: field labels translated ("cost_price" is "Cost
 * price"), money stored in minor units (70) written in major units with the company's currency
 * ("0.70 USD"), status words translated, no internal action code; an unknown field gets a
 * humanised label.
 */
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const entry = {
  id: 5,
  actor: { id: 1, name: 'Amina' },
  action: 'updated',
  subject_type: 'bundle',
  subject_id: 9,
  subject: { type: 'bundle', id: 9, name: '1 GB Daily', provider_id: 1, category_id: 2 },
  description: null,
  before: { cost_price: 70, selling_price: 100, status: 'active', sort_order: 1, shiny_new_field: 'a' },
  after: { cost_price: 90, selling_price: 100, status: 'inactive', sort_order: 2, shiny_new_field: 'b' },
  ip: '127.0.0.1',
  user_agent: null,
  created_at: '2026-11-27T09:00:00.000Z',
};

describe('a log entry’s change', () => {
  it.each([
    ['en', ['Cost price', 'Status', 'Active', 'Inactive', 'Order', 'Shiny new field']],
    ['ae', ['سعر التكلفة', 'الحالة', 'نشط', 'غير نشط', 'الترتيب', 'Shiny new field']],
    ['so', ['Qiimaha kharashka', 'Xaalad', 'Firfircoon', 'Aan firfircoonayn', 'Kala horreyn', 'Shiny new field']],
  ])('names fields and writes money in major units (%s)', async (lng, words) => {
    serveRoutes({
      'GET /api/v1/logs': () => page([entry]),
      'GET /api/v1/logs/5': () => ok(entry),
      'GET /api/v1/user-options': () => page([]),
    });
    await renderScreen(<LogList />, { path: '/logs/*', url: '/logs/5', permissions: ['view logs'], lng });
    const dialog = await screen.findByRole('dialog');
    const table = await within(dialog).findByRole('table');
    await waitFor(() => expect(table.textContent).toContain('0.70 USD'));
    const text = table.textContent ?? '';
    expect(text).toContain('0.90 USD');
    for (const w of words) expect(text).toContain(w);
    // Unchanged fields are left out; no column names, no cents, no action code.
    expect(text).not.toMatch(/cost_price|sort_order|shiny_new_field/);
    const cells = within(table)
      .getAllByRole('cell')
      .map((c) => c.textContent);
    expect(cells).not.toContain('70');
    expect(cells).not.toContain('90');
    expect(within(dialog).queryByText('updated')).toBeNull();
    expect(text).not.toContain('1.00 USD');
  });

  it('humanises a field it does not know', () => {
    expect(humaniseField('low_balance_threshold')).toBe('Low balance threshold');
    expect(humaniseField('dealerCode')).toBe('Dealer code');
  });
});
