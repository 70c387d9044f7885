import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { serveRoutes } from '../test/fetchMock';
import { ok, page, renderScreen } from '../test/renderScreen';
import { clearSession } from '../providers/session';
import DailyClosePage from './DailyClosePage';
import DailyCloseListPage from './DailyCloseListPage';
import type { DailyClose, DailyCloseDay, Difference } from './types';

/**
 * The daily close screens against the console's real dataProvider, fetch answered by path: the
 * list of days, one day's figures, vendors, differences and corrections, what a reader without
 * 'manage daily close' sees, the close's confirmation and its 409, and a difference's actions
 * (the note required before anything is sent, the API's field errors on their fields).
 */
const VIEW = ['view daily close'];
const MANAGE = ['view daily close', 'manage daily close'];
const ALL = [...MANAGE, 'review recharges', 'adjust wallets', 'view wallets'];
const DAY = '/api/v1/daily-close/2026-11-26';
const AMOUNT_INVALID = 'Enter an amount greater than zero with at most two decimals, such as 12.50';

const difference = (over: Partial<Difference>): Difference => ({
  id: 7,
  kind: 'state',
  vendor: 'reloadly',
  source: 'aggregator',
  reference: 'RC-1001',
  recharge_id: 41,
  ours: { state: 'needs_review', amount: '1.50', payment_flow: 'purchase' },
  theirs: { state: 'SUCCESSFUL', amount: '1.50', vendor_id: 'T-99', charges: '0.05' },
  evidence: 'Reloadly reports the top-up as delivered at 10:02.',
  handled: false,
  action: null,
  note: null,
  handled_by: null,
  handled_at: null,
  ...over,
});

const day = (over: Partial<DailyClose> = {}): DailyClose => ({
  date: '2026-11-26',
  status: 'open',
  currency: 'USD',
  time_zone: 'Africa/Mogadishu',
  starts_at: '2026-11-25T21:00:00.000Z',
  ends_at: '2026-11-26T21:00:00.000Z',
  refreshed_at: '2026-11-27T06:00:00.000Z',
  closed_at: null,
  closed_by: null,
  cutoff_at: null,
  totals: {
    sales: { count: 12, amount: '84.00', cost: '70.00', profit: '14.00', gateway_charges: '1.26', aggregator_cost: '69.10', margin: '13.64' },
    by_status: { completed: 12, failed: 2, refunded: 1, needs_review: 1, in_flight: 0 },
    ledger: { credits: '100.00', debits: '72.50', net: '27.50' },
    vendors: [
      { vendor: 'waafipay', kind: 'gateway', records: 14, matched: 13, amount: '85.50' },
      { vendor: 'reloadly', kind: 'aggregator', records: 12, matched: 12, amount: '69.10' },
    ],
    corrections: { count: 1, amount: '-2.00', profit: '-0.40' },
    differences: { total: 2, unhandled: 1 },
  },
  differences: [
    difference({}),
    difference({
      id: 8,
      kind: 'only_theirs',
      vendor: 'waafipay',
      source: 'gateway',
      reference: 'WP-555',
      recharge_id: null,
      ours: null,
      theirs: { amount: '1.50', reference: 'WP-555' },
      evidence: 'A payment with no sale of ours.',
      handled: true,
      action: 'accept',
      note: 'Test payment by the vendor',
      handled_by: { id: 3, name: 'Hodan' },
      handled_at: '2026-11-27T07:00:00.000Z',
    }),
  ],
  corrections: [
    { id: 1, day: '2026-11-20', reference: 'RC-0900', what: 'Refunded after the close', amount: '-2.00', profit: '-0.40', at: '2026-11-26T09:00:00.000Z' },
  ],
  ...over,
});

const renderDay = (permissions: string[]) =>
  renderScreen(<DailyClosePage />, { path: '/reports/daily-close/:date', url: '/reports/daily-close/2026-11-26', permissions });

describe('the daily close of a day', () => {
  afterEach(() => {
    cleanup();
    clearSession();
    vi.unstubAllGlobals();
  });

  it("shows the day's status, figures, vendors, differences and corrections", async () => {
    serveRoutes({ [`GET ${DAY}`]: () => ok(day()) });
    await renderDay(MANAGE);
    expect(await screen.findByRole('heading', { level: 1, name: 'Daily close · 2026-11-26' })).toBeTruthy();
    expect(await screen.findByText('Open')).toBeTruthy();
    expect(screen.getByText(/^Last refreshed/)).toBeTruthy();
    // Price-list profit beside the real margin.
    const margin = screen.getByRole('heading', { name: 'Real margin', level: 3 }).closest('.MuiCard-root') as HTMLElement;
    expect(within(margin).getByText('13.64 USD')).toBeTruthy();
    expect(within(margin).getByText('14.00 USD')).toBeTruthy();
    for (const text of ['84.00 USD', '1.26 USD', '69.10 USD', '100.00 USD', '72.50 USD', 'In review: 1', 'Failed: 2'])
      expect(screen.getAllByText(text).length).toBeGreaterThan(0);
    const vendors = screen.getByRole('table', { name: "Vendors' records" });
    const waafi = within(vendors).getByText('WaafiPay').closest('tr')!;
    expect(within(waafi).getByText('Payment gateway')).toBeTruthy();
    expect(within(waafi).getByText('14')).toBeTruthy();
    expect(within(waafi).getByText('85.50 USD')).toBeTruthy();

    const open = screen.getByRole('article', { name: 'Outcomes differ' });
    expect(within(open).getByRole('link', { name: 'RC-1001' }).getAttribute('href')).toBe('/recharges/41');
    expect(within(open).getByText('Our books')).toBeTruthy();
    expect(within(open).getByText("Reloadly (Aggregator)'s record")).toBeTruthy();
    expect(within(open).getByText('Aggregator')).toBeTruthy();
    expect(within(open).getByText('Needs review')).toBeTruthy();
    expect(within(open).getByText('T-99')).toBeTruthy();
    expect(within(open).getByText('Direct purchase')).toBeTruthy();
    expect(within(open).getByText('Charges')).toBeTruthy();
    expect(within(open).getByText('Reloadly reports the top-up as delivered at 10:02.')).toBeTruthy();
    expect(within(open).getByRole('button', { name: 'Handle' })).toBeTruthy();

    const handled = screen.getByRole('article', { name: "Only in the vendor's records" });
    expect(within(handled).queryByRole('link')).toBeNull();
    expect(within(handled).getByText('Payment gateway')).toBeTruthy();
    expect(within(handled).getByText("WaafiPay (Payment gateway)'s record")).toBeTruthy();
    expect(within(handled).getByText('No record')).toBeTruthy();
    expect(within(handled).getByText(/Accepted by Hodan on/)).toBeTruthy();
    expect(within(handled).getByText('Note: \u2068Test payment by the vendor\u2069')).toBeTruthy();
    expect(within(handled).queryByRole('button', { name: 'Handle' })).toBeNull();

    const corrections = screen.getByRole('table', { name: 'Corrections' });
    expect(within(corrections).getByText('Refunded after the close')).toBeTruthy();
    expect(within(corrections).getByRole('link', { name: '2026-11-20' }).getAttribute('href')).toBe('/reports/daily-close/2026-11-20');
    // The day before and after.
    expect(screen.getByRole('link', { name: 'Previous day' }).getAttribute('href')).toBe('/reports/daily-close/2026-11-25');
    expect(screen.getByRole('link', { name: 'Next day' }).getAttribute('href')).toBe('/reports/daily-close/2026-11-27');
  });

  it("has no Refresh, Close or Handle without 'manage daily close', only the exports", async () => {
    serveRoutes({ [`GET ${DAY}`]: () => ok(day()) });
    await renderDay([...VIEW, 'export reports']);
    await screen.findByText('Reloadly reports the top-up as delivered at 10:02.');
    expect(screen.queryByRole('button', { name: 'Refresh' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Close the day' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Handle' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Export PDF' })).toBeTruthy();
  });

  it("offers no export without 'export reports' (the API refuses the day's CSV and PDF)", async () => {
    serveRoutes({ [`GET ${DAY}`]: () => ok(day()) });
    await renderDay(MANAGE);
    await screen.findByText('Reloadly reports the top-up as delivered at 10:02.');
    expect(screen.getByRole('button', { name: 'Refresh' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Export CSV' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Export PDF' })).toBeNull();
  });

  it('a closed day says who closed it and offers only its exports', async () => {
    serveRoutes({
      [`GET ${DAY}`]: () =>
        ok(day({ status: 'closed', closed_at: '2026-11-27T08:00:00.000Z', closed_by: { id: 2, name: 'Faisal' }, cutoff_at: '2026-11-27T08:00:00.000Z' })),
    });
    await renderDay([...MANAGE, 'export reports']);
    expect(await screen.findByText(/Closed by Faisal on/)).toBeTruthy();
    expect(screen.getByText(/count on a later day/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Refresh' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Close the day' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Handle' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Export PDF' })).toBeTruthy();
  });

  it("asks before closing, saying the figures will be frozen, and shows a 409's message", async () => {
    const handledDay = day({
      totals: { ...day().totals, differences: { total: 2, unhandled: 0 } },
      differences: [difference({ handled: true, action: 'accept' })],
    });
    const calls = serveRoutes({
      [`GET ${DAY}`]: () => ok(handledDay),
      [`POST ${DAY}/close`]: () => ({ status: 409, body: { success: false, message: '2 sales of this day are still in flight.' } }),
    });
    await renderDay(MANAGE);
    fireEvent.click(await screen.findByRole('button', { name: 'Close the day' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('Close 2026-11-26?')).toBeTruthy();
    expect(within(dialog).getByText(/^The day's figures will be frozen/)).toBeTruthy();
    expect(within(dialog).queryByText(/still unhandled/)).toBeNull();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Close the day' }));
    expect(await screen.findByText('2 sales of this day are still in flight.')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual([`${DAY}/close`]);
  });

  it('refreshes the day and reads it again', async () => {
    const calls = serveRoutes({ [`GET ${DAY}`]: () => ok(day()), [`POST ${DAY}/refresh`]: () => ok(day(), 'Refreshed.') });
    await renderDay(MANAGE);
    fireEvent.click(await screen.findByRole('button', { name: 'Refresh' }));
    expect(await screen.findByText('Refreshed.')).toBeTruthy();
    expect(calls.filter((c) => c.path === DAY).length).toBe(2);
  });

  it('needs a note before handling a difference, then sends the action with it', async () => {
    const calls = serveRoutes({ [`GET ${DAY}`]: () => ok(day()), [`POST ${DAY}/differences/7/resolve`]: () => ok({}, 'Difference accepted.') });
    await renderDay(ALL);
    fireEvent.click(await screen.findByRole('button', { name: 'Handle' }));
    // The sale is in review: settling is offered.
    expect(screen.getByRole('menuitem', { name: 'Settle the sale' })).toBeTruthy();
    fireEvent.click(screen.getByRole('menuitem', { name: 'Accept' }));
    const dialog = await screen.findByRole('dialog', { name: 'Accept the difference' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Accept' }));
    expect(await within(dialog).findByText('Write down why')).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Note' }), { target: { value: ' Known vendor delay ' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Accept' }));
    expect(await screen.findByText('Difference accepted.')).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')).toMatchObject({
      path: `${DAY}/differences/7/resolve`,
      body: { action: 'accept', note: 'Known vendor delay' },
    });
  });

  it("writes an adjustment to a chosen dealer's wallet; the API's field errors land on their fields", async () => {
    const calls = serveRoutes({
      [`GET ${DAY}`]: () => ok(day({ differences: [difference({ ours: { state: 'completed' } })] })),
      'GET /api/v1/wallets': () =>
        page([{ id: 5, dealer_id: 9, dealer: { id: 9, h_id: 'x', name: 'Hodan Shop', dealer_code: 'D-9' }, balance: '40.00', currency: 'USD' }]),
      [`POST ${DAY}/differences/7/resolve`]: () => ({
        status: 422,
        body: { success: false, message: 'Validation failed.', errors: { amount: ['The debit would take the balance below zero.'] } },
      }),
    });
    await renderDay(ALL);
    fireEvent.click(await screen.findByRole('button', { name: 'Handle' }));
    // Not in review: no settling.
    expect(screen.queryByRole('menuitem', { name: 'Settle the sale' })).toBeNull();
    fireEvent.click(screen.getByRole('menuitem', { name: 'Write an adjustment' }));
    const dialog = await screen.findByRole('dialog', { name: "Write an adjustment to a dealer's wallet" });
    fireEvent.mouseDown(within(dialog).getByRole('combobox', { name: "Dealer's wallet" }));
    fireEvent.click(await screen.findByRole('option', { name: 'Hodan Shop (D-9) · 40.00 USD' }));
    fireEvent.click(within(dialog).getByLabelText('Debit'));
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Amount' }), { target: { value: '0' } });
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Note' }), { target: { value: 'Charged twice' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Write an adjustment' }));
    // The API's own schema refuses it in the browser: nothing is sent.
    expect(await within(dialog).findByText(AMOUNT_INVALID)).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Amount' }), { target: { value: '50' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Write an adjustment' }));
    expect(await within(dialog).findByText('The debit would take the balance below zero.')).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({ action: 'adjust', wallet_id: 5, type: 'debit', amount: '50', note: 'Charged twice' });
  });
});

describe('the daily close: what can be done', () => {
  afterEach(() => {
    cleanup();
    clearSession();
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it("offers Settle only with 'review recharges', and an adjustment only with 'adjust wallets' and 'view wallets'", async () => {
    serveRoutes({ [`GET ${DAY}`]: () => ok(day()) });
    await renderDay([...MANAGE, 'adjust wallets']);
    fireEvent.click(await screen.findByRole('button', { name: 'Handle' }));
    expect(screen.getByRole('menuitem', { name: 'Re-ask the vendor' })).toBeTruthy();
    expect(screen.getByRole('menuitem', { name: 'Accept' })).toBeTruthy();
    // In review, but no 'review recharges'; 'adjust wallets' without 'view wallets' (the picker lists wallets).
    expect(screen.queryByRole('menuitem', { name: 'Settle the sale' })).toBeNull();
    expect(screen.queryByRole('menuitem', { name: 'Write an adjustment' })).toBeNull();
    cleanup();
    clearSession();
    serveRoutes({ [`GET ${DAY}`]: () => ok(day()) });
    await renderDay(ALL);
    fireEvent.click(await screen.findByRole('button', { name: 'Handle' }));
    expect(screen.getByRole('menuitem', { name: 'Settle the sale' })).toBeTruthy();
    expect(screen.getByRole('menuitem', { name: 'Write an adjustment' })).toBeTruthy();
  });

  it('cannot close a day with differences to handle, and says why', async () => {
    serveRoutes({ [`GET ${DAY}`]: () => ok(day()) });
    await renderDay(MANAGE);
    const close = await screen.findByRole('button', { name: 'Close the day' });
    expect((close as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText('Handle every difference before closing the day.')).toBeTruthy();
  });

  it('cannot close a day never refreshed, and says why', async () => {
    serveRoutes({
      [`GET ${DAY}`]: () => ok(day({ refreshed_at: null, totals: { ...day().totals, differences: { total: 0, unhandled: 0 } }, differences: [] })),
    });
    await renderDay(MANAGE);
    const close = await screen.findByRole('button', { name: 'Close the day' });
    expect((close as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText('Refresh the day before closing it.')).toBeTruthy();
  });

  it("a re-ask whose vendor still differs warns with the server's message", async () => {
    serveRoutes({
      [`GET ${DAY}`]: () => ok(day()),
      [`POST ${DAY}/differences/7/resolve`]: () => ok({ ...difference({}), handled: false }, 'Reloadly still reports the top-up as delivered.'),
    });
    await renderDay(MANAGE);
    fireEvent.click(await screen.findByRole('button', { name: 'Handle' }));
    fireEvent.click(screen.getByRole('menuitem', { name: 'Re-ask the vendor' }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Note' }), { target: { value: 'Asked again' } });
    fireEvent.click(within(dialog).getAllByRole('button').at(-1)!);
    const message = await screen.findByText('Reloadly still reports the top-up as delivered.');
    expect(message.closest('.RaNotification-warning')).toBeTruthy();
  });

  it("leaves out the corrections' profit for a reader without prices, and explains sales of unknown cost", async () => {
    const noPrices = day();
    noPrices.totals = {
      ...noPrices.totals,
      sales: { ...noPrices.totals.sales, cost: null, profit: null, gateway_charges: null, aggregator_cost: null, margin: null },
      corrections: { ...noPrices.totals.corrections, profit: null },
    };
    noPrices.corrections = noPrices.corrections.map((c) => ({ ...c, profit: null }));
    serveRoutes({ [`GET ${DAY}`]: () => ok(noPrices) });
    await renderDay(VIEW);
    const corrections = await screen.findByRole('table', { name: 'Corrections' });
    expect(within(corrections).queryByText('Profit')).toBeNull();
    expect(within(corrections).queryByText('—')).toBeNull();
    cleanup();
    clearSession();
    serveRoutes({ [`GET ${DAY}`]: () => ok(day({ totals: { ...day().totals, sales: { ...day().totals.sales, unknown_cost: 2 } } })) });
    await renderDay(VIEW);
    const margin = (await screen.findByRole('heading', { name: 'Real margin', level: 3 })).closest('.MuiCard-root') as HTMLElement;
    expect(within(margin).getByText('2 sales whose aggregator cost is not known are left out of the margin.')).toBeTruthy();
  });

  it("does not go past the company's today", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-26T12:00:00.000Z'));
    serveRoutes({ [`GET ${DAY}`]: () => ok(day()) });
    await renderDay(VIEW);
    await screen.findByText('Reloadly reports the top-up as delivered at 10:02.');
    expect(screen.queryByRole('link', { name: 'Next day' })).toBeNull();
    expect((screen.getByRole('button', { name: 'Next day' }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByLabelText('Day').getAttribute('max')).toBe('2026-11-26');
  });
});

describe('the daily close in Arabic', () => {
  afterEach(() => {
    cleanup();
    clearSession();
    vi.unstubAllGlobals();
  });

  it('keeps amounts and references left to right', async () => {
    serveRoutes({ [`GET ${DAY}`]: () => ok(day()) });
    await renderScreen(<DailyClosePage />, { path: '/reports/daily-close/:date', url: '/reports/daily-close/2026-11-26', permissions: VIEW, lng: 'ae' });
    expect(await screen.findByText('مفتوح')).toBeTruthy();
    const reference = screen.getByRole('link', { name: 'RC-1001' });
    expect(reference.querySelector('bdi')!.getAttribute('dir')).toBe('ltr');
    expect(screen.getAllByText('84.00 USD')[0].closest('bdi')!.getAttribute('dir')).toBe('ltr');
    expect(screen.getByText('النتائج مختلفة')).toBeTruthy();
  });
});

describe('the list of days', () => {
  afterEach(() => {
    cleanup();
    clearSession();
    vi.unstubAllGlobals();
  });

  it('lists the days, each opening its close', async () => {
    const rows: Omit<DailyCloseDay, 'id'>[] = [
      {
        date: '2026-11-26',
        status: 'open',
        sales_count: 12,
        amount: '84.00',
        margin: '13.64',
        differences_total: 2,
        differences_unhandled: 1,
        refreshed_at: '2026-11-27T06:00:00.000Z',
        closed_at: null,
      },
      {
        date: '2026-11-25',
        status: 'closed',
        sales_count: 9,
        amount: '60.00',
        margin: '9.10',
        differences_total: 0,
        differences_unhandled: 0,
        refreshed_at: '2026-11-26T06:00:00.000Z',
        closed_at: '2026-11-26T08:00:00.000Z',
      },
    ];
    const calls = serveRoutes({ 'GET /api/v1/daily-close': () => page(rows, { per_page: 31 }) });
    await renderScreen(<DailyCloseListPage />, { path: '/reports/daily-close', url: '/reports/daily-close', permissions: VIEW });
    const first = (await screen.findByText('2026-11-26')).closest('tr')!;
    for (const text of ['Open', '12', '84.00 USD', '13.64 USD', '2 differences, 1 to handle']) expect(within(first).getByText(text)).toBeTruthy();
    const second = screen.getByRole('link', { name: '2026-11-25' }).closest('tr')!;
    expect(within(second).getByText('Closed')).toBeTruthy();
    expect(within(second).getByText('No differences')).toBeTruthy();
    const query = calls.find((c) => c.path === '/api/v1/daily-close')!.query;
    expect(query.get('page')).toBe('1');
    expect(query.get('per_page')).toBe('31');
    fireEvent.click(within(second).getByRole('link', { name: '2026-11-25' }));
    expect((await screen.findByTestId('location')).textContent).toBe('/reports/daily-close/2026-11-25');
  });

  it('has no Real margin column for a reader without prices (margins null); one difference in the singular', async () => {
    const rows: Omit<DailyCloseDay, 'id'>[] = [
      {
        date: '2026-11-26',
        status: 'open',
        sales_count: 12,
        amount: '84.00',
        margin: null,
        differences_total: 1,
        differences_unhandled: 1,
        refreshed_at: '2026-11-27T06:00:00.000Z',
        closed_at: null,
      },
    ];
    serveRoutes({ 'GET /api/v1/daily-close': () => page(rows, { per_page: 31 }) });
    await renderScreen(<DailyCloseListPage />, { path: '/reports/daily-close', url: '/reports/daily-close', permissions: VIEW });
    const first = (await screen.findByText('2026-11-26')).closest('tr')!;
    expect(within(first).getByText('1 difference, 1 to handle')).toBeTruthy();
    expect(screen.queryByText('Real margin')).toBeNull();
    expect(within(first).queryByText('—')).toBeNull();
  });
});
