import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createHarness, FORBIDDEN, NOT_FOUND, VALIDATION, type Harness } from '../../../tests/api/harness.ts';
import { makeShop, walletBalance, type Shop } from '../recharges/recharge-fixtures.ts';
import { startOfZonedDay, toDbTime, zonedDay } from '../database/time.ts';

/**
 * Wallet statements (GET /wallets/{id}/statement, the reseller's GET /wallet/statement): balances at
 * either end of a period of company days, totals per kind, paged lines, CSV and PDF, who may read
 * which wallet, and the period's checks in two languages.
 */
let h: Harness;
let root: string;
let shop: Shop;
let other: Shop;
let key: string;
let saleId: number;
let saleReference: string;

const TZ = 'Africa/Mogadishu';
const DAY = 86_400_000;
const today = zonedDay(new Date(), TZ);
const daysAgo = (n: number) => zonedDay(new Date(startOfZonedDay(today, TZ).getTime() - n * DAY + 12 * 3_600_000), TZ);
const statement = (walletId: number, query: string, token = root) => h.http().get(`/api/v1/wallets/${walletId}/statement?${query}`).set(bearer(token));
const cents = (s: string) => Math.round(Number(s) * 100);

beforeAll(async () => {
  h = await createHarness({ env: { API_KEY_RATE_LIMIT_PER_MINUTE: '1000' } });
  root = await h.adminToken();
  shop = await makeShop(h, root, 'cost', { balance: '100.00' });
  other = await makeShop(h, root, 'cost', { balance: '7.00' });
  const made = await h
    .http()
    .post('/api/v1/dealer/api-keys')
    .set(bearer(shop.token))
    .send({ name: 'Till', scopes: ['recharges:write', 'wallet:read'] });
  expect(made.status).toBe(201);
  key = made.body.data.key;
  // A sale paid from the wallet: a recharge_debit line that names its sale.
  const sale = await h
    .http()
    .post('/api/reseller/v1/recharges')
    .set('Authorization', `Bearer ${key}`)
    .set('Idempotency-Key', 'till-000001')
    .send({ bundle_id: shop.bundleId, phone: '0615123456', payment: 'wallet' });
  expect(sale.status).toBe(201);
  saleId = sale.body.data.id;
  saleReference = sale.body.data.reference;
  const money = (path: string, body: object) => h.http().post(`/api/v1/wallets/${shop.walletId}/${path}`).set(bearer(root)).send(body);
  expect((await money('adjust', { type: 'debit', amount: '10.00', reference: 'FIX-1', note: 'Double top-up' })).status).toBe(200);
  expect((await money('top-up', { amount: '50.00', reference: 'BANK-2' })).status).toBe(200);
  expect((await money('adjust', { type: 'credit', amount: '5.00', reference: 'FIX-2', note: 'Goodwill' })).status).toBe(200);
  expect((await money('adjust', { type: 'debit', amount: '20.00', reference: 'FIX-3', note: 'Wrong credit' })).status).toBe(200);
  // Spread the ledger over company days, in its own order: top-up 40 days ago, the sale 3 days
  // ago, the debit of 10 2 days ago, the top-up of 50 and the credit of 5 yesterday, the last debit today.
  const rows = await h.knex('wallet_transactions').where({ wallet_id: shop.walletId }).orderBy('id');
  expect(rows.map((r) => r.kind)).toEqual(['top_up', 'recharge_debit', 'adjustment', 'top_up', 'adjustment', 'adjustment']);
  const when = [40, 3, 2, 1, 1, 0];
  for (const [i, r] of rows.entries()) {
    if (when[i] === 0) continue;
    const at = new Date(startOfZonedDay(daysAgo(when[i]), TZ).getTime() + (9 + i) * 3_600_000);
    await h
      .knex('wallet_transactions')
      .where({ id: r.id })
      .update({ created_at: toDbTime(at) });
  }
});
afterAll(() => h.close());

describe('GET /wallets/{id}/statement (JSON)', () => {
  it('answers the balances, totals per kind and lines of a whole history: closing is the balance, lines sum to closing - opening', async () => {
    const res = await statement(shop.walletId, `from=${daysAgo(60)}&to=${today}`);
    expect(res.status).toBe(200);
    const s = res.body.data;
    expect(s).toMatchObject({
      wallet: { id: shop.walletId, dealer: { id: shop.dealerId, dealer_code: shop.code } },
      currency: 'USD',
      from: daysAgo(60),
      to: today,
      opening_balance: '0.00',
      closing_balance: '124.60',
    });
    expect(cents(s.closing_balance)).toBe(await walletBalance(h, shop.walletId));
    const sum = s.lines.reduce((acc: number, l: { type: string; amount: string }) => acc + (l.type === 'credit' ? 1 : -1) * cents(l.amount), 0);
    expect(sum).toBe(cents(s.closing_balance) - cents(s.opening_balance));
    expect(s.totals).toEqual({
      credits: '155.00',
      debits: '30.40',
      by_kind: [
        { kind: 'top_up', type: 'credit', count: 2, amount: '150.00' },
        { kind: 'adjustment', type: 'credit', count: 1, amount: '5.00' },
        { kind: 'adjustment', type: 'debit', count: 2, amount: '30.00' },
        { kind: 'recharge_debit', type: 'debit', count: 1, amount: '0.40' },
      ],
    });
    expect(s.lines[1]).toMatchObject({
      type: 'debit',
      kind: 'recharge_debit',
      amount: '0.40',
      balance_after: '99.60',
      recharge: { id: saleId, reference: saleReference },
    });
    expect(s.lines[0]).toMatchObject({ kind: 'top_up', reference: 'seed', recharge: null, note: null });
    expect(s.lines.map((l: { balance_after: string }) => l.balance_after)).toEqual(['100.00', '99.60', '89.60', '139.60', '144.60', '124.60']);
    expect(res.body.meta).toEqual({ current_page: 1, per_page: 100, total: 6, last_page: 1 });
  });

  it('opens with the balance before the period and closes with the last line in it', async () => {
    const res = await statement(shop.walletId, `from=${daysAgo(2)}&to=${daysAgo(1)}`);
    expect(res.body.data).toMatchObject({ opening_balance: '99.60', closing_balance: '144.60', totals: { credits: '55.00', debits: '10.00' } });
    expect(res.body.data.lines.map((l: { reference: string }) => l.reference)).toEqual(['FIX-1', 'BANK-2', 'FIX-2']);
    // A period without lines: both ends are the balance before it.
    const quiet = await statement(shop.walletId, `from=${daysAgo(20)}&to=${daysAgo(10)}`);
    expect(quiet.body.data).toMatchObject({
      opening_balance: '100.00',
      closing_balance: '100.00',
      totals: { credits: '0.00', debits: '0.00', by_kind: [] },
      lines: [],
    });
    expect(quiet.body.meta).toEqual({ current_page: 1, per_page: 100, total: 0, last_page: 1 });
  });

  it('pages the lines (totals always of the whole period), per_page at most 500, this month by default', async () => {
    const page2 = await statement(shop.walletId, `from=${daysAgo(60)}&to=${today}&per_page=4&page=2`);
    expect(page2.body.meta).toEqual({ current_page: 2, per_page: 4, total: 6, last_page: 2 });
    expect(page2.body.data.lines.map((l: { balance_after: string }) => l.balance_after)).toEqual(['144.60', '124.60']);
    expect(page2.body.data.totals.credits).toBe('155.00');
    expect((await statement(shop.walletId, `from=${daysAgo(60)}&to=${today}&per_page=5000`)).body.meta.per_page).toBe(500);
    const beyond = await statement(shop.walletId, `from=${daysAgo(60)}&to=${today}&per_page=4&page=9`);
    expect(beyond.body.data.lines).toEqual([]);
    const month = await statement(shop.walletId, '');
    expect(month.status).toBe(200);
    expect(month.body.data).toMatchObject({ from: `${today.slice(0, 8)}01`, to: today, closing_balance: '124.60' });
  });

  it('refuses a bad day, from after to and a period over 366 days, translated', async () => {
    const bad = await statement(shop.walletId, 'from=2026-02-30&to=2026-03-01');
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      success: false,
      code: 'validation.failed',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: { from: ['Enter a real date as YYYY-MM-DD (e.g. 2026-02-28)'] },
    });
    const backwards = await statement(shop.walletId, 'from=2026-03-02&to=2026-03-01');
    expect(backwards.status).toBe(422);
    expect(backwards.body.errors).toEqual({ from: ['The first day must not be after the last day.'] });
    const long = await statement(shop.walletId, 'from=2025-01-01&to=2026-01-02');
    expect(long.body.errors).toEqual({ to: ['A statement covers at most 366 days: choose a shorter period.'] });
    // 366 days (a leap year) is allowed.
    expect((await statement(shop.walletId, 'from=2024-01-01&to=2024-12-31')).status).toBe(200);
    const arabic = await statement(shop.walletId, 'from=2026-03-02&to=2026-03-01&lng=ae');
    expect(arabic.status).toBe(422);
    expect(arabic.body.errors).toEqual({ from: ['يجب ألا يكون اليوم الأول بعد اليوم الأخير.'] });
    const somali = await h
      .http()
      .get(`/api/v1/wallets/${shop.walletId}/statement?from=2025-01-01&to=2026-01-02`)
      .set(bearer(root))
      .set('Accept-Language', 'so');
    expect(somali.body.errors).toEqual({ to: ['Warbixintu waxay qaadataa ugu badnaan 366 maalmood: dooro muddo ka gaaban.'] });
    expect((await statement(shop.walletId, 'format=xml')).status).toBe(422);
  });

  it('lets staff with "view wallets" read any wallet, a dealer only its own (another is a 404), nobody else', async () => {
    const viewer = await h.userWith(['view wallets']);
    expect((await statement(other.walletId, '', viewer.token)).body.data.closing_balance).toBe('7.00');
    const own = await statement(shop.walletId, `from=${daysAgo(60)}&to=${today}`, shop.token);
    expect(own.status).toBe(200);
    expect(own.body.data.closing_balance).toBe('124.60');
    const foreign = await statement(other.walletId, '', shop.token);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(NOT_FOUND);
    expect((await statement(999_999, '', shop.token)).status).toBe(404);
    expect((await statement(999_999, '', root)).status).toBe(404);
    for (const format of ['csv', 'pdf']) expect((await statement(other.walletId, `format=${format}`, shop.token)).status).toBe(404);
    const stranger = await h.userWith(['view recharges']);
    expect((await statement(shop.walletId, '', stranger.token)).body).toEqual(FORBIDDEN);
    expect((await h.http().get(`/api/v1/wallets/${shop.walletId}/statement`)).status).toBe(401);
  });
});

describe('GET /wallets/{id}/statement?format=csv|pdf', () => {
  it('downloads every line as CSV with the header block, kinds in the reader’s language and the totals', async () => {
    const res = await statement(shop.walletId, `from=${daysAgo(60)}&to=${today}&format=csv&per_page=1`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="statement-${shop.code}-${daysAgo(60)}-${today}.csv"`);
    const lines = res.text
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('Wallet statement');
    expect(lines).toContain(`Dealer,Shop ${shop.code},${shop.code}`);
    expect(lines).toContain(`Period,${daysAgo(60)},${today}`);
    expect(lines).toContain('Opening balance,0.00');
    expect(lines).toContain('Entry,Date,Credit/debit,Kind,Amount,Balance,Reference,Sale,Note');
    // Every line of the period, whatever per_page says: not paginated.
    const entries = lines.filter((l) => /^\d+,\d{4}-\d\d-\d\dT/.test(l));
    expect(entries).toHaveLength(6);
    expect(entries[1]).toMatch(new RegExp(`,Debit,Sale \\(cost\\),-0\\.40,99\\.60,${saleReference},${saleReference},$`));
    expect(entries[0]).toMatch(/\+03:00,Credit,Top-up,100\.00,100\.00,seed,,$/);
    expect(lines).toContain('Top-up,Credit,2,150.00');
    expect(lines).toContain('Credits,155.00');
    expect(lines).toContain('Debits,30.40');
    expect(lines.at(-1)).toBe('Closing balance,124.60');

    const arabic = await statement(shop.walletId, `from=${daysAgo(60)}&to=${today}&format=csv&lng=ae`);
    expect(arabic.text).toContain('كشف حساب المحفظة');
    expect(arabic.text).toContain('شحن,دائن,2,150.00');
    expect(arabic.text).toContain('القيد,التاريخ,دائن/مدين,النوع,المبلغ,الرصيد,المرجع,عملية البيع,ملاحظة');
    const somali = await statement(shop.walletId, `from=${daysAgo(60)}&to=${today}&format=csv&lng=so`);
    expect(somali.text.startsWith('\uFEFFWarbixinta boorsada')).toBe(true);
    expect(somali.text).toContain('Kordhin,Ku dar,2,150.00');
    expect(somali.text).toMatch(/\+03:00,Ku dar,Kordhin,100\.00,100\.00,seed,,/);
  });

  it('renders a PDF to keep, in any language', async () => {
    for (const lng of ['en', 'ae', 'so']) {
      const res = await statement(shop.walletId, `from=${daysAgo(60)}&to=${today}&format=pdf&lng=${lng}`)
        .buffer(true)
        .parse((r, done) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => done(null, Buffer.concat(chunks)));
        });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/pdf');
      expect(res.headers['content-disposition']).toBe(`attachment; filename="statement-${shop.code}-${daysAgo(60)}-${today}.pdf"`);
      const pdf = res.body as Buffer;
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
      expect(pdf.toString('latin1')).toMatch(/\/Type \/Pages\s*\/Count 1\b/);
      if (lng === 'ae') expect(pdf.toString('latin1')).toMatch(/NotoSansArabic/);
    }
    const bad = await statement(shop.walletId, 'format=pdf&from=2026-03-02&to=2026-03-01');
    expect(bad.status).toBe(422);
  });
});

describe('GET /api/reseller/v1/wallet/statement', () => {
  const get = (query: string, withKey = key) => h.http().get(`/api/reseller/v1/wallet/statement?${query}`).set('Authorization', `Bearer ${withKey}`);

  it("answers the key's own wallet with the same JSON", async () => {
    const res = await get(`from=${daysAgo(2)}&to=${daysAgo(1)}&per_page=2`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ wallet: { id: shop.walletId }, opening_balance: '99.60', closing_balance: '144.60' });
    expect(res.body.data.lines).toHaveLength(2);
    expect(res.body.meta).toEqual({ current_page: 1, per_page: 2, total: 3, last_page: 2 });
    const console = await statement(shop.walletId, `from=${daysAgo(2)}&to=${daysAgo(1)}&per_page=2`);
    expect(res.body.data).toEqual(console.body.data);
  });

  it('needs the wallet:read scope and checks the period', async () => {
    const made = await h
      .http()
      .post('/api/v1/dealer/api-keys')
      .set(bearer(shop.token))
      .send({ name: 'Sales only', scopes: ['recharges:read'] });
    const res = await get('', made.body.data.key);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('This API key lacks the scope wallet:read, which this call needs.');
    expect((await get('from=2026-13-01')).status).toBe(422);
    expect((await get('from=2026-03-02&to=2026-03-01')).body.errors).toEqual({ from: ['The first day must not be after the last day.'] });
    expect((await h.http().get('/api/reseller/v1/wallet/statement')).status).toBe(401);
  });
});

describe('a statement read while money moves', () => {
  it('is one consistent ledger (lines sum to closing - opening) mid-way, and its closing balance is the wallet once all is posted', async () => {
    const money = (i: number) =>
      h
        .http()
        .post(`/api/v1/wallets/${other.walletId}/${i % 3 === 0 ? 'top-up' : 'adjust'}`)
        .set(bearer(root))
        .send(i % 3 === 0 ? { amount: '1.00', reference: `RACE-${i}` } : { type: 'debit', amount: '0.10', reference: `RACE-${i}`, note: 'Race' });
    const read = () => statement(other.walletId, `from=${today}&to=${today}&per_page=500`);
    const consistent = (s: { opening_balance: string; closing_balance: string; lines: { type: string; amount: string }[] }) =>
      cents(s.closing_balance) - cents(s.opening_balance) === s.lines.reduce((sum, l) => sum + (l.type === 'credit' ? 1 : -1) * cents(l.amount), 0);
    const answers = await Promise.all([...Array.from({ length: 24 }, (_, i) => money(i)), read(), read(), read()]);
    expect(answers.every((r) => r.status === 200)).toBe(true);
    for (const r of answers.slice(24)) expect(consistent(r.body.data)).toBe(true);
    const after = (await read()).body.data;
    expect(consistent(after)).toBe(true);
    expect(cents(after.closing_balance)).toBe(await walletBalance(h, other.walletId));
    // Lines in the ledger's own order: each line's balance follows the one before.
    const lines = after.lines as { type: string; amount: string; balance_after: string }[];
    for (let i = 1; i < lines.length; i++) {
      expect(cents(lines[i].balance_after)).toBe(cents(lines[i - 1].balance_after) + (lines[i].type === 'credit' ? 1 : -1) * cents(lines[i].amount));
    }
  });
});
