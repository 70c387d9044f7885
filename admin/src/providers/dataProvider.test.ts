import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { dataProvider } from './dataProvider';
import { clearSession, getToken, startSession } from './session';
import { mockFetch } from '../test/fetchMock';

const list = (data: unknown[], total = data.length) => ({
  status: 200,
  body: { success: true, data, meta: { current_page: 1, per_page: 10, total, last_page: 1 } },
});
const one = (data: unknown) => ({ status: 200, body: { success: true, data } });

describe('dataProvider request shapes', () => {
  beforeEach(() => startSession('tok-1', { id: 1, name: 'A', email: 'a@x.so' }, false));
  afterEach(() => {
    clearSession();
    vi.unstubAllGlobals();
    document.head.innerHTML = '';
  });

  it('leaves a 401 to react-admin (checkError shows the message, then logs out)', async () => {
    mockFetch([{ status: 401, body: { success: false, message: 'Unauthenticated.' } }]);
    await expect(dataProvider.getOne('users', { id: 1 })).rejects.toMatchObject({ status: 401, message: 'Your session has expired. Please login again.' });
    expect(getToken()).toBe('tok-1');
  });

  it('getList sends page, per_page, sort, order, q and one param per filter, and reads meta.total', async () => {
    const calls = mockFetch([list([{ id: 1 }], 42)]);
    const res = await dataProvider.getList('users', {
      pagination: { page: 2, perPage: 25 },
      sort: { field: 'name', order: 'DESC' },
      filter: { q: 'ali', user_type: 'dealer', status: 'active', role_id: '' },
    });
    const url = new URL(calls[0].url, 'http://x');
    expect(url.pathname).toBe('/api/v1/users');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      page: '2',
      per_page: '25',
      sort: 'name',
      order: 'desc',
      q: 'ali',
      user_type: 'dealer',
      status: 'active',
    });
    expect(res).toMatchObject({ data: [{ id: 1 }], total: 42 });
  });

  it('caps per_page at 100 and lists the trash with meta.trashed', async () => {
    const calls = mockFetch([list([])]);
    await dataProvider.getList('roles', { pagination: { page: 1, perPage: 500 }, sort: { field: 'id', order: 'ASC' }, filter: {}, meta: { trashed: true } });
    expect(calls[0].url).toBe('/api/v1/roles/trashed/list?page=1&per_page=100&sort=id&order=asc');
  });

  it('sends the bearer token, the AJAX marker, JSON and the CSRF token when present', async () => {
    document.head.innerHTML = '<meta name="csrf-token" content="csrf-9">';
    const calls = mockFetch([one({ id: 3 })]);
    await dataProvider.getOne('users', { id: 3 });
    expect(calls[0].url).toBe('/api/v1/users/3');
    expect(calls[0].headers.get('Authorization')).toBe('Bearer tok-1');
    expect(calls[0].headers.get('X-Requested-With')).toBe('XMLHttpRequest');
    expect(calls[0].headers.get('Accept')).toBe('application/json');
    expect(calls[0].headers.get('X-CSRF-TOKEN')).toBe('csrf-9');
  });

  it('getOne of a trashed record uses /{id}/trashed', async () => {
    const calls = mockFetch([one({ id: 3 })]);
    await dataProvider.getOne('users', { id: 3, meta: { trashed: true } });
    expect(calls[0].url).toBe('/api/v1/users/3/trashed');
  });

  it('creates with JSON, or multipart when a file is present (new dealer with dealer_logo)', async () => {
    const calls = mockFetch([one({ id: 5 }), one({ id: 6 })]);
    await dataProvider.create('users', { data: { name: 'Ali', user_type: 'admin', role_id: 2 } });
    expect(calls[0]).toMatchObject({ method: 'POST', url: '/api/v1/users', body: { name: 'Ali', user_type: 'admin', role_id: 2 } });
    expect(calls[0].headers.get('Content-Type')).toBe('application/json');

    const logo = new File(['png'], 'logo.png', { type: 'image/png' });
    await dataProvider.create('users', { data: { name: 'Dealer', user_type: 'dealer', dealer_logo: logo, brand_color: '#000000' } });
    const fd = calls[1].body as FormData;
    expect(fd).toBeInstanceOf(FormData);
    expect(fd.get('name')).toBe('Dealer');
    expect((fd.get('dealer_logo') as File).name).toBe('logo.png');
    // The browser sets the multipart boundary itself.
    expect(calls[1].headers.get('Content-Type')).toBeNull();
  });

  it('updates with PATCH on the hashed id when the record is known', async () => {
    const calls = mockFetch([one({ id: 7 })]);
    await dataProvider.update('users', { id: 7, data: { status: 'inactive' }, previousData: { id: 7, h_id: 'xYz' } });
    expect(calls[0]).toMatchObject({ method: 'PATCH', url: '/api/v1/users/xYz', body: { status: 'inactive' } });
  });

  it('changes the status of many users with PATCH /users/bulk/status', async () => {
    const calls = mockFetch([one(null)]);
    const res = await dataProvider.updateMany('users', { ids: [1, 2], data: { status: 'active' } });
    expect(calls[0]).toMatchObject({ method: 'PATCH', url: '/api/v1/users/bulk/status', body: { ids: [1, 2], status: 'active' } });
    expect(res.data).toEqual([1, 2]);
  });

  it('soft deletes one and many, restores and force deletes, single and bulk', async () => {
    const calls = mockFetch([one({ id: 1 }), one(null), one({ id: 1 }), one(null), one({ id: 1 }), one(null)]);
    await dataProvider.delete('users', { id: 1, previousData: { id: 1, h_id: 'h1' } });
    await dataProvider.deleteMany('users', { ids: [1, 2] });
    await dataProvider.restore('users', { id: 1, previousData: { id: 1, h_id: 'h1' } });
    await dataProvider.restoreMany('users', { ids: [1, 2] });
    await dataProvider.forceDelete('roles', { id: 4 });
    await dataProvider.forceDeleteMany('roles', { ids: [4, 5] });
    expect(calls.map((c) => `${c.method} ${c.url} ${c.body ? JSON.stringify(c.body) : ''}`.trim())).toEqual([
      'DELETE /api/v1/users/h1',
      'DELETE /api/v1/users/bulk/delete {"ids":[1,2]}',
      'POST /api/v1/users/h1/restore',
      'POST /api/v1/users/bulk/restore {"ids":[1,2]}',
      'DELETE /api/v1/roles/4/force',
      'DELETE /api/v1/roles/bulk/force-delete {"ids":[4,5]}',
    ]);
  });

  it('searches, bulk creates, reads the permission catalogue and assigns permissions', async () => {
    const calls = mockFetch([one([{ id: 1, name: 'ops' }]), one([{ id: 9 }]), one([{ id: 1, name: 'view users', group: 'users' }]), one({ id: 2 })]);
    expect((await dataProvider.search('roles', { q: 'op' })).data).toEqual([{ id: 1, name: 'ops' }]);
    await dataProvider.createMany('roles', { data: [{ name: 'a' }] });
    await dataProvider.getAvailablePermissions();
    await dataProvider.assignPermissions({ id: 2, permissions: ['view users'] });
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      'GET /api/v1/roles/search?q=op',
      'POST /api/v1/roles/bulk',
      'GET /api/v1/roles/permissions/available',
      'POST /api/v1/roles/2/assign-permissions',
    ]);
    expect(calls[1].body).toEqual([{ name: 'a' }]);
    expect(calls[3].body).toEqual({ permissions: ['view users'] });
  });

  it('uploads and removes a dealer logo (multipart field logo), also for the signed-in dealer', async () => {
    const calls = mockFetch([one({}), one({}), one({})]);
    const file = new File(['x'], 'l.png', { type: 'image/png' });
    await dataProvider.uploadDealerLogo({ id: 'h9', file });
    await dataProvider.deleteDealerLogo({ id: 'h9' });
    await dataProvider.uploadDealerLogo({ id: 'me', file });
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      'POST /api/v1/users/h9/dealer-logo',
      'DELETE /api/v1/users/h9/dealer-logo',
      'POST /api/v1/users/dealer/logo',
    ]);
    expect(((calls[0].body as FormData).get('logo') as File).name).toBe('l.png');
  });

  it('getManyReference filters the list by the target', async () => {
    const calls = mockFetch([list([])]);
    await dataProvider.getManyReference('users', {
      target: 'role_id',
      id: 3,
      pagination: { page: 1, perPage: 10 },
      sort: { field: 'id', order: 'ASC' },
      filter: {},
    });
    expect(calls[0].url).toContain('role_id=3');
  });
  it('getMany asks for every id in one list call (ids, no call per record), 100 ids a call, each id once', async () => {
    const calls = mockFetch([list([{ id: 1 }, { id: 2 }])]);
    const res = await dataProvider.getMany('user-options', { ids: [1, 2, 2] });
    expect(calls).toHaveLength(1);
    const url = new URL(calls[0].url, 'http://x');
    expect(url.pathname).toBe('/api/v1/user-options');
    expect(Object.fromEntries(url.searchParams)).toEqual({ ids: '1,2', page: '1', per_page: '100' });
    expect(res.data).toEqual([{ id: 1 }, { id: 2 }]);

    const many = mockFetch([list([]), list([])]);
    await dataProvider.getMany('roles', { ids: Array.from({ length: 150 }, (_, i) => i + 1) });
    expect(many.map((c) => new URL(c.url, 'http://x').searchParams.get('ids')!.split(',').length)).toEqual([100, 50]);
  });

  it("a resource's own reading goes through getManyReference too (the daily close is known by its date)", async () => {
    const calls = mockFetch([list([{ id: 7, date: '2026-11-27' }])]);
    const res = await dataProvider.getManyReference('daily-close', {
      target: 'status',
      id: 'open',
      pagination: { page: 1, perPage: 10 },
      sort: { field: 'date', order: 'DESC' },
      filter: {},
    });
    expect(calls[0].url).toContain('status=open');
    expect(res.data).toEqual([{ id: '2026-11-27', date: '2026-11-27' }]);
  });

  it('reorders a page in one call: POST /{resource}/reorder with the ids in order and the first position', async () => {
    const calls = mockFetch([{ status: 200, body: { success: true, message: 'New order saved', data: { affected: 2 } } }]);
    const res = await dataProvider.reorder('internet-providers', { ids: ['h3', 'h1', 'h2'], start: 25 });
    expect(calls[0]).toMatchObject({ url: '/api/v1/internet-providers/reorder', method: 'POST', body: { ids: ['h3', 'h1', 'h2'], start: 25 } });
    expect(res).toEqual({ data: { affected: 2 }, message: 'New order saved' });
  });

  it("the console's own calls: wallets, top-up requests, recharges, reports, search, settings", async () => {
    const calls = mockFetch([]);
    await dataProvider.myWallet();
    await dataProvider.setLowBalanceAlert({ id: 'me', threshold: '5.00' });
    await dataProvider.setLowBalanceAlert({ id: 7, threshold: null });
    await dataProvider.topUp({ id: 7, data: { amount: '1' }, idempotencyKey: 'k-1' });
    await dataProvider.adjustWallet({ id: 7, data: { type: 'debit' }, idempotencyKey: 'k-2' });
    await dataProvider.requestTopUp({ data: { amount: '3', receipt: new File(['x'], 'r.png', { type: 'image/png' }) } });
    await dataProvider.approveTopUp({ id: 4 });
    await dataProvider.rejectTopUp({ id: 4, data: { reason: 'No' } });
    await dataProvider.rechargeAction({ id: 9, action: 'settle', data: { outcome: 'delivered', note: 'ok' } });
    await dataProvider.reviewCount();
    await dataProvider.report('sales', { filter: { from: '2026-01-01', group_by: 'day' } });
    await dataProvider.dashboard();
    await dataProvider.globalSearch({ q: 'ali' });
    await dataProvider.publicSettings();
    await dataProvider.getSettings('mail');
    await dataProvider.saveSettings('mail', { data: { host: 'smtp' } });
    await dataProvider.testMail({ to: 'a@x.so' });
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      'GET /api/v1/my-wallet',
      'PUT /api/v1/my-wallet/low-balance-alert',
      'PUT /api/v1/wallets/7/low-balance-alert',
      'POST /api/v1/wallets/7/top-up',
      'POST /api/v1/wallets/7/adjust',
      'POST /api/v1/wallet-top-up-requests',
      'POST /api/v1/wallet-top-up-requests/4/approve',
      'POST /api/v1/wallet-top-up-requests/4/reject',
      'POST /api/v1/recharges/9/settle',
      'GET /api/v1/recharges/review-count',
      'GET /api/v1/reports/sales?from=2026-01-01&group_by=day',
      'GET /api/v1/dashboard',
      'GET /api/v1/search?q=ali',
      'GET /api/v1/settings/public',
      'GET /api/v1/settings/mail',
      'PUT /api/v1/settings/mail',
      'POST /api/v1/settings/mail/test',
    ]);
    expect(calls[2].body).toEqual({ threshold: null });
    expect(calls[3].headers.get('Idempotency-Key')).toBe('k-1');
    expect(calls[5].body).toBeInstanceOf(FormData);
    expect(calls[8].body).toEqual({ outcome: 'delivered', note: 'ok' });
  });

  it('reads a recharge as one record: the sale with its timeline, transactions and remote calls', async () => {
    mockFetch([one({ recharge: { id: 9, reference: 'RC9' }, timeline: [], transactions: [], remote_calls: [] })]);
    expect((await dataProvider.getOne('recharges', { id: 9 })).data).toEqual({ id: 9, reference: 'RC9', timeline: [], transactions: [], remote_calls: [] });
  });

  it('the daily close, the floats, a statement and a file download (issue 26)', async () => {
    const calls = mockFetch([
      list([{ date: '2026-11-26', status: 'open' }]),
      one({ date: '2026-11-26' }),
      one({}),
      one({}),
      one({}),
      one([]),
      one({}),
      one({}),
      { status: 200, body: { success: true, data: { lines: [] }, meta: { current_page: 2, per_page: 25, total: 60, last_page: 3 } } },
      { status: 200, body: 'a,b' },
    ]);
    // A day is known by its date.
    expect((await dataProvider.getList('daily-close', { pagination: { page: 1, perPage: 31 } })).data[0]).toMatchObject({ id: '2026-11-26' });
    await dataProvider.dailyClose({ date: '2026-11-26' });
    await dataProvider.dailyCloseAction({ date: '2026-11-26', action: 'refresh' });
    await dataProvider.dailyCloseAction({ date: '2026-11-26', action: 'close' });
    await dataProvider.resolveDifference({ date: '2026-11-26', id: 7, data: { action: 'accept', note: 'ok' } });
    await dataProvider.aggregatorFloats();
    await dataProvider.setAggregatorThreshold({ name: 'reloadly', threshold: '50.00' });
    await dataProvider.checkAggregator({ name: 'reloadly' });
    expect((await dataProvider.walletStatement({ id: 5, query: { from: '2026-11-01', to: '2026-11-27', page: 2 } })).total).toBe(60);
    await dataProvider.exportFile({ path: '/daily-close/2026-11-26/export', query: { format: 'pdf' }, accept: 'application/pdf' });
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      'GET /api/v1/daily-close?page=1&per_page=31',
      'GET /api/v1/daily-close/2026-11-26',
      'POST /api/v1/daily-close/2026-11-26/refresh',
      'POST /api/v1/daily-close/2026-11-26/close',
      'POST /api/v1/daily-close/2026-11-26/differences/7/resolve',
      'GET /api/v1/aggregators',
      'PUT /api/v1/aggregators/reloadly',
      'POST /api/v1/aggregators/reloadly/check',
      'GET /api/v1/wallets/5/statement?from=2026-11-01&to=2026-11-27&page=2&format=json',
      'GET /api/v1/daily-close/2026-11-26/export?format=pdf',
    ]);
    expect(calls[4].body).toEqual({ action: 'accept', note: 'ok' });
    expect(calls[6].body).toEqual({ threshold: '50.00' });
    expect(calls[9].headers.get('Accept')).toBe('application/pdf');
    expect(calls[9].headers.get('Authorization')).toBe('Bearer tok-1');
  });
});
