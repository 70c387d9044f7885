import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import type { BatchPreview, RechargeBatchDetail, RechargeBatchResponse } from '@app/contracts';
import { serveRoutes } from '../test/fetchMock';
import { ok, page, renderScreen } from '../test/renderScreen';
import { clearSession } from '../providers/session';
import { parseBatchCsv } from './batchApi';
import NewRechargeBatchPage from './NewRechargeBatchPage';
import RechargeBatchPage from './RechargeBatchPage';
import RechargeBatchListPage from './RechargeBatchListPage';

/**
 * Bulk sales in the console against its real http client, fetch answered by path: the CSV read in
 * the browser (its columns and the 1,000-line limit), the preview's problems and total against the
 * balance shown before anything is sent, the confirmation with its Idempotency-Key, a batch
 * followed while it runs with its lines' sales and refusals, the list for a dealer and for staff,
 * and the screen in Arabic.
 */
const DEALER = ['view recharges', 'view own wallet'];

afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

const batch = (over: Partial<RechargeBatchResponse> = {}): RechargeBatchResponse => ({
  id: 'RB7K3M9Q2XPA',
  client_reference: null,
  mode: 'live',
  status: 'running',
  lines_total: 3,
  lines_pending: 1,
  lines_accepted: 1,
  lines_refused: 1,
  sales: { delivered: 0, failed: 0, in_progress: 1 },
  progress: 66,
  lines_url: '/api/v1/recharge-batches/RB7K3M9Q2XPA',
  created_at: '2026-11-27T09:15:00.000Z',
  started_at: '2026-11-27T09:15:01.000Z',
  completed_at: null,
  ...over,
});

const detail = (over: Partial<RechargeBatchDetail> = {}): RechargeBatchDetail => ({
  ...batch(),
  lines: [
    {
      line_no: 1,
      phone: '0615123456',
      bundle_id: 12,
      client_reference: null,
      status: 'accepted',
      recharge: { id: 41, reference: 'RC2222222222', status: 'processing' },
      error: null,
    },
    {
      line_no: 2,
      phone: '0905123456',
      bundle_id: 12,
      client_reference: null,
      status: 'refused',
      recharge: null,
      error: { code: 'phone.wrong_operator', message: 'This number is not a Hormuud number (it should start with 61, 77).' },
    },
    { line_no: 3, phone: '0615123457', bundle_id: 12, client_reference: null, status: 'pending', recharge: null, error: null },
  ],
  lines_meta: { current_page: 1, per_page: 50, total: 3, last_page: 1 },
  ...over,
});

const PREVIEW: BatchPreview = {
  lines: [
    { line_no: 1, ok: true, phone: '615123456', bundle_name: '1 GB Daily', cost: '0.40', problems: [] },
    {
      line_no: 2,
      ok: false,
      phone: '905123456',
      bundle_name: '1 GB Daily',
      cost: '0.40',
      problems: [
        { field: 'phone', code: 'phone.wrong_operator', message: 'This number is not a Hormuud number (it should start with 61, 77).', level: 'error' },
      ],
    },
    {
      line_no: 3,
      ok: false,
      phone: '615123457',
      bundle_name: '1 GB Daily',
      cost: '0.40',
      problems: [{ field: 'payment', code: 'validation.batch_line_beyond_balance', message: 'The wallet cannot pay this line.', level: 'error' }],
    },
  ],
  totals: { lines: 3, ok: 1, refused: 2, warnings: 0, total_cost: '0.40', balance: '0.50', beyond_balance: 1, currency: 'USD' },
};

const CSV = 'phone,bundle,client_reference\n0615123456,12,order-1\n0905123456,12,\n0615123457,QmZbTxYe,\n';

function upload(text: string) {
  const file = new File([text], 'sale.csv', { type: 'text/csv' });
  fireEvent.change(screen.getByTestId('batch-file'), { target: { files: [file] } });
}

describe('the CSV', () => {
  it('reads phone, bundle (an id or an h_id) and the optional client_reference, and refuses a file that cannot be a batch', () => {
    expect(parseBatchCsv(CSV)).toEqual({
      ok: true,
      lines: [
        { phone: '0615123456', bundle_id: 12, client_reference: 'order-1' },
        { phone: '0905123456', bundle_id: 12 },
        { phone: '0615123457', bundle_id: 'QmZbTxYe' },
      ],
    });
    expect(parseBatchCsv('number,bundle\n0615123456,12\n')).toEqual({ ok: false, error: 'recharge_batches.csv_columns' });
    expect(parseBatchCsv('phone,bundle\n')).toEqual({ ok: false, error: 'recharge_batches.csv_empty' });
    const many = `phone,bundle\n${'0615123456,12\n'.repeat(1001)}`;
    expect(parseBatchCsv(many)).toEqual({ ok: false, error: 'recharge_batches.csv_too_many', vars: { max: 1000, lines: 1001 } });
  });
});

describe('a new bulk sale', () => {
  it('shows every line’s problem and the total against the balance before paying, then sends it once with an Idempotency-Key', async () => {
    const calls = serveRoutes({
      'POST /api/v1/recharge-batches/preview': () => ok(PREVIEW),
      'POST /api/v1/recharge-batches': () => ({ status: 202, ...ok(batch({ status: 'queued' })) }),
    });
    await renderScreen(<NewRechargeBatchPage />, { path: '/recharge-batches/new', url: '/recharge-batches/new', permissions: DEALER, userType: 'dealer' });
    upload(CSV);
    expect(await screen.findByText('Total cost 0.40 USD, against your balance of 0.50 USD.')).toBeTruthy();
    // Nothing is sold by the preview: only it was called, with the file's lines.
    expect(calls.filter((c) => c.path.startsWith('/api/v1/recharge-batches')).map((c) => c.path)).toEqual(['/api/v1/recharge-batches/preview']);
    expect((calls.find((c) => c.path === '/api/v1/recharge-batches/preview')!.body as { lines: unknown[] }).lines).toHaveLength(3);
    expect(screen.getByText('This number is not a Hormuud number (it should start with 61, 77).')).toBeTruthy();
    expect(screen.getByText(/Lines your balance cannot pay: 1/)).toBeTruthy();
    // Only the lines with a problem are listed at first; every line with the switch off.
    const table = screen.getByRole('table', { name: 'Check before paying' });
    expect(within(table).getAllByRole('row')).toHaveLength(3);
    fireEvent.click(screen.getByLabelText('Only lines with a problem'));
    expect(within(table).getAllByRole('row')).toHaveLength(4);

    fireEvent.click(screen.getByRole('button', { name: 'Confirm and sell (1)' }));
    expect(await screen.findByTestId('location')).toHaveProperty('textContent', '/recharge-batches/RB7K3M9Q2XPA');
    const sent = vi.mocked(fetch).mock.calls.find(([url, init]) => String(url).endsWith('/api/v1/recharge-batches') && init?.method === 'POST');
    expect(new Headers(sent![1]!.headers).get('Idempotency-Key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(String(sent![1]!.body)).lines).toHaveLength(3);
  });

  it('says why a file cannot be a batch, and sends nothing', async () => {
    const calls = serveRoutes({});
    await renderScreen(<NewRechargeBatchPage />, { path: '/recharge-batches/new', url: '/recharge-batches/new', permissions: DEALER, userType: 'dealer' });
    upload('number,bundle\n0615123456,12\n');
    expect((await screen.findByRole('alert')).textContent).toMatch(/needs the columns phone and bundle/);
    expect(calls.filter((c) => c.path.startsWith('/api/v1/recharge-batches'))).toHaveLength(0);
  });
});

describe('a bulk sale followed', () => {
  it('refreshes while it runs, with each line’s sale (a link) or its refusal', async () => {
    let reads = 0;
    serveRoutes({
      'GET /api/v1/recharge-batches/RB7K3M9Q2XPA': () => {
        reads += 1;
        return ok(
          reads === 1
            ? detail()
            : detail({
                ...batch({ status: 'completed', lines_pending: 0, lines_accepted: 2, progress: 100, sales: { delivered: 2, failed: 0, in_progress: 0 } }),
              }),
        );
      },
    });
    await renderScreen(<RechargeBatchPage />, {
      path: '/recharge-batches/:id',
      url: '/recharge-batches/RB7K3M9Q2XPA',
      permissions: DEALER,
      userType: 'dealer',
    });
    expect(await screen.findByText('66% handled')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'RC2222222222' }).getAttribute('href')).toBe('/recharges/41');
    expect(screen.getByText('This number is not a Hormuud number (it should start with 61, 77).')).toBeTruthy();
    expect(await screen.findByText('100% handled', undefined, { timeout: 4_000 })).toBeTruthy();
    expect(screen.getByText('Completed')).toBeTruthy();
  });

  it('in Arabic', async () => {
    serveRoutes({ 'GET /api/v1/recharge-batches/RB7K3M9Q2XPA': () => ok(detail({ status: 'completed', sales: { delivered: 1, failed: 0, in_progress: 0 } })) });
    await renderScreen(<RechargeBatchPage />, {
      path: '/recharge-batches/:id',
      url: '/recharge-batches/RB7K3M9Q2XPA',
      permissions: DEALER,
      userType: 'dealer',
      lng: 'ae',
    });
    expect(await screen.findByText('تمت معالجة 66%')).toBeTruthy();
    expect(screen.getByText('مرفوض')).toBeTruthy();
  });
});

describe('cancelling a bulk sale', () => {
  it('the dealer cancels a running batch after a confirmation; a completed batch and staff show no Cancel', async () => {
    let cancelled = false;
    const calls = serveRoutes({
      'GET /api/v1/recharge-batches/RB7K3M9Q2XPA': () =>
        ok(cancelled ? detail({ ...batch({ status: 'completed', lines_pending: 0, lines_refused: 2, progress: 100 }) }) : detail()),
      'POST /api/v1/recharge-batches/RB7K3M9Q2XPA/cancel': () => {
        cancelled = true;
        return {
          body: { success: true, message: 'Batch cancelled: its lines not yet sold will not be sold.', data: batch({ lines_pending: 0, lines_refused: 2 }) },
        };
      },
    });
    await renderScreen(<RechargeBatchPage />, {
      path: '/recharge-batches/:id',
      url: '/recharge-batches/RB7K3M9Q2XPA',
      permissions: DEALER,
      userType: 'dealer',
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Cancel batch' }));
    // Nothing is sent before the confirmation.
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('Cancel bulk sale RB7K3M9Q2XPA?')).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    expect(within(dialog).getByRole('button', { name: 'Keep selling' })).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel batch' }));
    expect(await screen.findByText('Completed', undefined, { timeout: 4_000 })).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST' && c.path === '/api/v1/recharge-batches/RB7K3M9Q2XPA/cancel')).toHaveLength(1);
    expect(screen.queryByRole('button', { name: 'Cancel batch' })).toBeNull();
    cleanup();
    clearSession();
    serveRoutes({ 'GET /api/v1/recharge-batches/RB7K3M9Q2XPA': () => ok(detail()) });
    await renderScreen(<RechargeBatchPage />, { path: '/recharge-batches/:id', url: '/recharge-batches/RB7K3M9Q2XPA', permissions: ['view recharges'] });
    expect(await screen.findByText('66% handled')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Cancel batch' })).toBeNull();
  });
});

describe('the list', () => {
  it('a dealer sees its batches and can start one; staff see the dealer of each and start none', async () => {
    serveRoutes({ 'GET /api/v1/recharge-batches': () => page([batch({ status: 'completed', progress: 100 })]) });
    await renderScreen(<RechargeBatchListPage />, { path: '/recharge-batches', url: '/recharge-batches', permissions: DEALER, userType: 'dealer' });
    expect(await screen.findByRole('link', { name: 'RB7K3M9Q2XPA' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'New bulk sale' }).getAttribute('href')).toBe('/recharge-batches/new');
    cleanup();
    clearSession();
    serveRoutes({
      'GET /api/v1/recharge-batches': () =>
        page([batch({ status: 'completed', dealer: { id: 2, h_id: 'yNbzHLPR', name: 'Hodan Telecom', dealer_code: 'HODAN' } })]),
    });
    await renderScreen(<RechargeBatchListPage />, { path: '/recharge-batches', url: '/recharge-batches', permissions: ['view recharges'] });
    expect(await screen.findByText('Hodan Telecom')).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'New bulk sale' })).toBeNull();
  });
});

describe('a test key’s bulk sale', () => {
  it('is marked Test in the list (beside its status) and on its page; a live one is not', async () => {
    const sandbox = batch({ id: 'RBTESTBATCH1', mode: 'test', status: 'completed', progress: 100 });
    serveRoutes({ 'GET /api/v1/recharge-batches': () => page([sandbox, batch({ status: 'completed', progress: 100 })]) });
    await renderScreen(<RechargeBatchListPage />, { path: '/recharge-batches', url: '/recharge-batches', permissions: DEALER, userType: 'dealer' });
    const testRow = (await screen.findByRole('link', { name: 'RBTESTBATCH1' })).closest('tr')!;
    expect(within(testRow).getByText('Test').closest('.MuiChip-root')!.className).toContain('MuiChip-colorWarning');
    expect(within(testRow).getByText('Completed')).toBeTruthy();
    expect(within(screen.getByRole('link', { name: 'RB7K3M9Q2XPA' }).closest('tr')!).queryByText('Test')).toBeNull();
    cleanup();
    clearSession();

    serveRoutes({
      'GET /api/v1/recharge-batches/RBTESTBATCH1': () => ok(detail({ ...sandbox, lines_pending: 0, sales: { delivered: 1, failed: 0, in_progress: 0 } })),
    });
    await renderScreen(<RechargeBatchPage />, {
      path: '/recharge-batches/:id',
      url: '/recharge-batches/RBTESTBATCH1',
      permissions: DEALER,
      userType: 'dealer',
    });
    expect(await screen.findByText('100% handled')).toBeTruthy();
    expect(screen.getByText('Test').closest('.MuiChip-root')!.className).toContain('MuiChip-colorWarning');
  });
});
