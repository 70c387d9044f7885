import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { serveRoutes } from '../test/fetchMock';
import { ok, renderScreen } from '../test/renderScreen';
import { clearSession } from '../providers/session';
import WalletStatementPage from './WalletStatementPage';
import { WalletStatement } from './WalletStatement';
import type { Statement } from './WalletStatement';

/**
 * A wallet's statement against the console's real dataProvider: the period's figures (opening,
 * credits, debits, closing), its lines with a sale linked, the totals per kind, paging, a new
 * period asked for, and a refused period's message under the dates.
 */
const STATEMENT = '/api/v1/wallets/5/statement';

const statement: Statement = {
  wallet: { id: 5, dealer: { id: 9, name: 'Hodan Shop', dealer_code: 'D-9' } },
  currency: 'USD',
  from: '2026-11-01',
  to: '2026-11-27',
  opening_balance: '10.00',
  closing_balance: '48.50',
  totals: {
    credits: '50.00',
    debits: '11.50',
    by_kind: [
      { kind: 'top_up', type: 'credit', count: 1, amount: '50.00' },
      { kind: 'sale', type: 'debit', count: 2, amount: '11.50' },
    ],
  },
  lines: [
    {
      id: 1,
      at: '2026-11-02T08:00:00.000Z',
      type: 'credit',
      kind: 'top_up',
      amount: '50.00',
      balance_after: '60.00',
      reference: 'TOP-1',
      recharge: null,
      note: 'Cash',
    },
    {
      id: 2,
      at: '2026-11-03T08:00:00.000Z',
      type: 'debit',
      kind: 'sale',
      amount: '1.50',
      balance_after: '58.50',
      reference: 'RC-1001',
      recharge: { id: 41, reference: 'RC-1001' },
      note: null,
    },
  ],
};

const answer = (total = 2) => ({ body: { success: true, data: statement, meta: { current_page: 1, per_page: 25, total, last_page: Math.ceil(total / 25) } } });

const renderPage = () => renderScreen(<WalletStatementPage />, { path: '/wallets/:id/statement', url: '/wallets/5/statement', permissions: ['view wallets'] });

describe("a wallet's statement", () => {
  // The first period shown is this month of the company's calendar: pin the day so the expected
  // dates hold whenever the suite runs (late at night UTC is already tomorrow in Mogadishu).
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-27T09:00:00.000Z'));
  });
  afterEach(() => {
    vi.useRealTimers();
    cleanup();
    clearSession();
    vi.unstubAllGlobals();
  });

  it("shows this month's opening and closing balances, the lines and the totals per kind", async () => {
    const calls = serveRoutes({
      [`GET ${STATEMENT}`]: () => answer(60),
      'GET /api/v1/wallets/5': () => ok({ id: 5, dealer_id: 9, dealer: { id: 9, name: 'Hodan Shop', dealer_code: 'D-9' }, balance: '48.50', currency: 'USD' }),
    });
    await renderPage();
    expect(await screen.findByRole('heading', { level: 1, name: 'Statement · Hodan Shop (D-9)' })).toBeTruthy();
    const figure = (name: string) => screen.getByRole('heading', { level: 3, name }).closest('.MuiCard-root') as HTMLElement;
    await screen.findByText('Hodan Shop (D-9) · from 2026-11-01 to 2026-11-27');
    expect(within(figure('Opening balance')).getByText('10.00 USD')).toBeTruthy();
    expect(within(figure('Credits')).getByText('50.00 USD')).toBeTruthy();
    expect(within(figure('Debits')).getByText('11.50 USD')).toBeTruthy();
    expect(within(figure('Closing balance')).getByText('48.50 USD')).toBeTruthy();
    const lines = screen.getByRole('table', { name: 'Movements' });
    const sale = within(lines).getByRole('link', { name: 'RC-1001' });
    expect(sale.getAttribute('href')).toBe('/recharges/41');
    expect(within(sale.closest('tr')!).getByText('−1.50')).toBeTruthy();
    expect(within(sale.closest('tr')!).getByText('58.50')).toBeTruthy();
    expect(within(lines).getByText('TOP-1')).toBeTruthy();
    const kinds = screen.getByRole('table', { name: 'Totals per kind' });
    expect(within(kinds).getByText('+50.00')).toBeTruthy();
    expect(within(kinds).getByText('−11.50')).toBeTruthy();
    // This month of the company's calendar, first page.
    const first = calls.find((c) => c.path === STATEMENT)!.query;
    expect(first.get('from')).toMatch(/^\d{4}-\d{2}-01$/);
    expect(first.get('format')).toBe('json');
    expect(first.get('page')).toBe('1');
    // 60 lines: three pages.
    fireEvent.click(screen.getByRole('button', { name: 'Go to page 2' }));
    await waitFor(() =>
      expect(
        calls
          .filter((c) => c.path === STATEMENT)
          .at(-1)!
          .query.get('page'),
      ).toBe('2'),
    );
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Export PDF' })).toBeTruthy();
  });

  it('reads the period asked for, and shows a refused period under the dates', async () => {
    const calls = serveRoutes({
      [`GET ${STATEMENT}`]: (c) =>
        c.query.get('from') === '2026-12-01'
          ? { status: 422, body: { success: false, message: 'Validation failed.', errors: { from: ['The period must end after it starts.'] } } }
          : answer(),
    });
    await renderPage();
    await screen.findByText('Hodan Shop (D-9) · from 2026-11-01 to 2026-11-27');
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-12-01' } });
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2026-11-02' } });
    fireEvent.click(screen.getByRole('button', { name: 'View statement' }));
    expect(await screen.findByText('The period must end after it starts.')).toBeTruthy();
    expect(
      calls
        .filter((c) => c.path === STATEMENT)
        .at(-1)!
        .query.get('to'),
    ).toBe('2026-11-02');
  });

  it('exports the period on screen, not the dates being typed, and shows why an export is refused', async () => {
    const calls = serveRoutes({
      [`GET ${STATEMENT}`]: (c) =>
        c.query.get('format') === 'csv' ? { status: 422, body: { success: false, message: 'A statement covers at most a year.' } } : answer(),
    });
    await renderPage();
    await screen.findByText('Hodan Shop (D-9) · from 2026-11-01 to 2026-11-27');
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2025-01-01' } });
    fireEvent.click(screen.getByRole('button', { name: 'Export CSV' }));
    expect(await screen.findByText('A statement covers at most a year.')).toBeTruthy();
    const exported = calls.find((c) => c.path === STATEMENT && c.query.get('format') === 'csv')!.query;
    expect(exported.get('from')).toBe('2026-11-01');
    expect(exported.get('to')).toBe('2026-11-27');
  });

  it("links a sale with no reference by the line's reference, else its number", async () => {
    const lines = [
      { ...statement.lines[1], id: 3, reference: 'WP-77', recharge: { id: 42, reference: null } },
      { ...statement.lines[1], id: 4, reference: null, recharge: { id: 43, reference: null } },
    ];
    serveRoutes({ [`GET ${STATEMENT}`]: () => ({ body: { ...answer().body, data: { ...statement, lines } } }) });
    await renderPage();
    const table = await screen.findByRole('table', { name: 'Movements' });
    expect(within(table).getByRole('link', { name: 'WP-77' }).getAttribute('href')).toBe('/recharges/42');
    expect(within(table).getByRole('link', { name: '#43' }).getAttribute('href')).toBe('/recharges/43');
  });

  it("on a dealer's My wallet, is read only when asked for", async () => {
    const calls = serveRoutes({ [`GET ${STATEMENT}`]: () => answer() });
    await renderScreen(<WalletStatement walletId={5} autoLoad={false} />, {
      path: '/my-wallet',
      url: '/my-wallet',
      permissions: ['view own wallet'],
      userType: 'dealer',
    });
    fireEvent.click(await screen.findByRole('button', { name: 'View statement' }));
    expect(await screen.findByText('Hodan Shop (D-9) · from 2026-11-01 to 2026-11-27')).toBeTruthy();
    expect(calls.filter((c) => c.path === STATEMENT)).toHaveLength(1);
  });
});
