import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createHarness, type Harness } from '../../../../../tests/api/harness.ts';
import { buy, makeShop, moneyKit, type MoneyKit, type Shop } from '../../../recharges/recharge-fixtures.ts';
import { moneyAdapters, readMoneyEnv, startStandIns } from '../../money-adapters.ts';
import { databaseTrail } from '../../../recharges/remote-calls.ts';
import { startStandInServer, type RunningStandIn } from '../../stand-ins/stand-in-server.ts';
import { createEdahabStandIn, EDAHAB_STAND_IN_CREDENTIALS, type EdahabStandIn } from './edahab-stand-in.ts';
import { WAAFIPAY_STAND_IN_CREDENTIALS } from '../waafipay/waafipay-stand-in.ts';
import { EDAHAB_LOST_INVOICE, edahabAdapter, type EdahabConfig } from './edahab-adapter.ts';
import { readEdahabAnswer } from './edahab-answers.ts';
import type { FetchLike } from '../../remote-call.ts';
import type { PaymentAdapter, PaymentRequest } from '../payment-adapter.ts';

/**
 * eDahab, Somtel's mobile money (a direct API): its adapter against its stand-in over HTTP with
 * every fault of its protocol (a payer who does not pay, too little balance, a lost answer, a 503,
 * an invoice pending for ever, a bad number, a bad hash, an open invoice for the number, the
 * duplicates eDahab does not refuse), its answer table, then sales paid through a method set to
 * `edahab`, on SQLite and MariaDB. The rule: eDahab cannot be asked by our reference, so a lost
 * answer is asked about by the invoice id when there is one, and otherwise goes to a person;
 * a charge is never sent twice.
 */
let h: Harness;
let server: RunningStandIn;
let standIn: EdahabStandIn;
let adapter: PaymentAdapter;
/** Every request the adapter sent: the URL and the exact body text. */
const sent: { url: string; body: string }[] = [];
const recording: FetchLike = (url, init) => {
  sent.push({ url, body: String(init?.body ?? '') });
  return fetch(url, init);
};
const forWhom = { rechargeId: null };
const config = (overrides: Partial<EdahabConfig> = {}): EdahabConfig => ({
  apiUrl: `${server.url}/api/api`,
  ...EDAHAB_STAND_IN_CREDENTIALS,
  chargeTimeoutMs: 3000,
  timeoutMs: 2000,
  ...overrides,
});

beforeAll(async () => {
  h = await createHarness();
  standIn = createEdahabStandIn({ approvalMs: 20 });
  server = await startStandInServer(standIn.handle);
  adapter = edahabAdapter(config(), { trail: databaseTrail(h.knex), fetch: recording });
});
afterAll(async () => {
  await server.close();
  await h.close();
});

const charge = (payerPhone: string, amount = 55, currency = 'USD'): PaymentRequest => ({
  referenceId: `RC${crypto.randomBytes(5).toString('hex').toUpperCase()}`,
  payerPhone,
  amount,
  currency,
  description: 'Somtel 1 GB',
});
const later = (ms: number) => new Promise((r) => setTimeout(r, ms));
const hashOf = (url: string) => new URL(url).searchParams.get('hash');

describe('the eDahab adapter against its stand-in', () => {
  it('a payer who approves: approved, its transactionId the invoice id; the lookup by that id finds it approved', async () => {
    const result = await adapter.charge(charge('625551001'), forWhom);
    expect(result.status).toBe('approved');
    const invoiceId = (result as { transactionId: string }).transactionId;
    expect(standIn.byInvoiceId(invoiceId)).toMatchObject({ edahabNumber: '625551001', amount: 0.55, currency: 'USD', status: 'Paid' });
    expect(await adapter.lookup('ignored', forWhom, { transactionId: invoiceId })).toEqual({ status: 'found', state: 'approved', transactionId: invoiceId });
    expect(adapter).toMatchObject({
      name: 'edahab',
      system: 'edahab',
      flow: 'purchase',
      capabilities: { promptsPayer: true, refundAfterCapture: false, lookupByOwnReference: false, preauthorize: false },
    });
  });

  it('the hash is the SHA-256 of the exact body sent and the secret; the amount is dollars, truncated, never rounded up', async () => {
    sent.length = 0;
    await adapter.charge(charge('625551002', 199.7), forWhom);
    const [issued] = sent;
    expect(issued.url).toMatch(/\/api\/api\/IssueInvoice\?hash=[0-9a-f]{64}$/);
    expect(hashOf(issued.url)).toBe(
      crypto
        .createHash('sha256')
        .update(issued.body + EDAHAB_STAND_IN_CREDENTIALS.apiSecret)
        .digest('hex'),
    );
    expect(JSON.parse(issued.body)).toEqual({
      apiKey: EDAHAB_STAND_IN_CREDENTIALS.apiKey,
      edahabNumber: '625551002',
      amount: 1.99,
      agentCode: EDAHAB_STAND_IN_CREDENTIALS.agentCode,
      currency: 'USD',
    });
    // The lookup is signed the same way.
    sent.length = 0;
    await adapter.lookup('ignored', forWhom, { transactionId: String(standIn.byNumber('625551002')[0].invoiceId) });
    expect(sent[0].url).toContain('/api/api/CheckInvoiceStatus?hash=');
    expect(hashOf(sent[0].url)).toBe(edahabHashOf(sent[0].body));
    expect(JSON.parse(sent[0].body)).toEqual({ apiKey: EDAHAB_STAND_IN_CREDENTIALS.apiKey, invoiceId: standIn.byNumber('625551002')[0].invoiceId });
  });

  it('a payer who does not approve (0000): declined, nothing taken; the invoice is Unpaid, and a lookup says declined', async () => {
    const result = await adapter.charge(charge('625550000'), forWhom);
    expect(result).toMatchObject({ status: 'declined', code: 'unpaid', message: expect.stringContaining('did not approve') });
    const [invoice] = standIn.byNumber('625550000');
    expect(invoice).toMatchObject({ status: 'Unpaid', paidAt: null });
    expect(await adapter.lookup('ignored', forWhom, { transactionId: String(invoice.invoiceId) })).toMatchObject({ status: 'found', state: 'declined' });
  });

  it("the payer's balance is not enough (0001): declined with StatusCode 5", async () => {
    expect(await adapter.charge(charge('625550001'), forWhom)).toMatchObject({
      status: 'declined',
      code: 'insufficient_balance',
      raw: expect.stringContaining('StatusCode 5'),
    });
  });

  it('an answer lost after the invoice was paid (0002): unknown, never charged again; without the invoice id a person looks, with it the lookup finds it paid', async () => {
    const result = await adapter.charge(charge('625550002'), forWhom);
    expect(result).toMatchObject({ status: 'unknown', error: expect.stringContaining('reset') });
    expect((result as { transactionId?: string }).transactionId).toBeUndefined();
    expect((result as { error: string }).error).toContain('a person checks the eDahab portal');
    // Our reference means nothing to eDahab: the lookup cannot ask.
    expect(await adapter.lookup('ignored', forWhom)).toEqual({ status: 'unknown', error: EDAHAB_LOST_INVOICE });
    expect(await adapter.lookup('ignored', forWhom, { transactionId: null })).toEqual({ status: 'unknown', error: EDAHAB_LOST_INVOICE });
    // A person finds the invoice (here in the stand-in's books): asked by its id, it is paid.
    const entry = standIn.books().entries.find((e) => e.edahabNumber === '625550002')!;
    expect(entry).toMatchObject({ status: 'Paid', paidAt: expect.any(Number) });
    expect(await adapter.lookup('ignored', forWhom, { transactionId: String(entry.invoiceId) })).toEqual({
      status: 'found',
      state: 'approved',
      transactionId: String(entry.invoiceId),
    });
    expect(standIn.byNumber('625550002')).toHaveLength(1);
  });

  it('a 503 before processing (0003): unknown (the adapter cannot tell), and eDahab made no invoice', async () => {
    const result = await adapter.charge(charge('625550003'), forWhom);
    expect(result).toMatchObject({ status: 'unknown', error: expect.stringContaining('HTTP 503') });
    expect((result as { transactionId?: string }).transactionId).toBeUndefined();
    expect(standIn.byNumber('625550003')).toHaveLength(0);
    expect(standIn.books().entries.filter((e) => e.edahabNumber === '625550003')).toMatchObject([{ status: 'NotProcessed', invoiceId: null }]);
  });

  it('an invoice pending for ever (0004): unknown with its invoice id, looked up as pending; a second invoice for the number is refused with 409 (declined, nothing made)', async () => {
    const first = await adapter.charge(charge('625550004'), forWhom);
    expect(first).toMatchObject({ status: 'unknown', transactionId: expect.stringMatching(/^\d+$/), error: expect.stringContaining('not answered') });
    const invoiceId = (first as { transactionId: string }).transactionId;
    expect(await adapter.lookup('ignored', forWhom, { transactionId: invoiceId })).toEqual({ status: 'found', state: 'pending', transactionId: invoiceId });
    const second = await adapter.charge(charge('625550004'), forWhom);
    expect(second).toMatchObject({ status: 'declined', code: 'open_invoice', message: expect.stringContaining(invoiceId) });
    expect(standIn.byNumber('625550004')).toHaveLength(1);
  });

  it('pending, then paid (0005): unknown with its invoice id, and the lookup by it finds it approved once the payer answered', async () => {
    const result = await adapter.charge(charge('625550005'), forWhom);
    expect(result).toMatchObject({ status: 'unknown', transactionId: expect.stringMatching(/^\d+$/) });
    const invoiceId = (result as { transactionId: string }).transactionId;
    await later(80);
    expect(await adapter.lookup('ignored', forWhom, { transactionId: invoiceId })).toEqual({ status: 'found', state: 'approved', transactionId: invoiceId });
  });

  it('not an eDahab number (0006): declined with StatusCode 3; a sale in another currency is declined before any call', async () => {
    expect(await adapter.charge(charge('625550006'), forWhom)).toMatchObject({
      status: 'declined',
      code: 'validation',
      message: expect.stringContaining('eDahab'),
    });
    sent.length = 0;
    expect(await adapter.charge(charge('625551003', 55, 'SOS'), forWhom)).toMatchObject({ status: 'declined', code: 'currency' });
    expect(sent).toHaveLength(0);
  });

  it('a bad hash (the wrong secret): the charge is declined as bad credentials and makes no invoice; a lookup refused so is unknown', async () => {
    const tampered = edahabAdapter(config({ apiSecret: 'not-the-secret' }), { trail: databaseTrail(h.knex) });
    expect(await tampered.charge(charge('625551004'), forWhom)).toMatchObject({
      status: 'declined',
      code: 'bad_credentials',
      message: expect.stringContaining('hash'),
    });
    expect(standIn.byNumber('625551004')).toHaveLength(0);
    const paid = await adapter.charge(charge('625551005'), forWhom);
    const invoiceId = (paid as { transactionId: string }).transactionId;
    expect(await tampered.lookup('ignored', forWhom, { transactionId: invoiceId })).toMatchObject({
      status: 'unknown',
      error: expect.stringContaining('StatusCode 4'),
    });
  });

  it('eDahab refuses no duplicate: the same number and amount sent twice is two invoices and two payments (why a charge is never sent again)', async () => {
    const a = await adapter.charge(charge('625551006', 100), forWhom);
    const b = await adapter.charge(charge('625551006', 100), forWhom);
    expect([a.status, b.status]).toEqual(['approved', 'approved']);
    expect(standIn.byNumber('625551006').map((i) => i.status)).toEqual(['Paid', 'Paid']);
    // Lookups never issue an invoice.
    await adapter.lookup('ignored', forWhom, { transactionId: (a as { transactionId: string }).transactionId });
    expect(standIn.byNumber('625551006')).toHaveLength(2);
  });

  it('commit has nothing to do (a purchase); release is refused: eDahab has no refund', async () => {
    expect(await adapter.commit({ referenceId: 'X', transactionId: '1' }, forWhom)).toEqual({ status: 'done' });
    expect(await adapter.release({ referenceId: 'X', transactionId: '1', flow: 'purchase', captured: true, amount: 55 }, forWhom)).toEqual({
      status: 'refused',
      code: 'no_refund',
      message: 'eDahab has no refund: the money is paid back by hand',
    });
  });

  it('the trail shows every call, never the API key, the secret or the hash', async () => {
    const rows = await h.knex('remote_calls').where({ system: 'edahab' }).orderBy('id');
    expect(rows.length).toBeGreaterThan(10);
    expect(new Set(rows.map((r) => r.operation))).toEqual(new Set(['IssueInvoice', 'CheckInvoiceStatus']));
    for (const r of rows) {
      const line = JSON.stringify(r);
      expect(line).not.toContain(EDAHAB_STAND_IN_CREDENTIALS.apiKey);
      expect(line).not.toContain(EDAHAB_STAND_IN_CREDENTIALS.apiSecret);
      expect(line).not.toContain('not-the-secret');
      expect(r.url).not.toContain('hash');
    }
    expect(rows.find((r) => r.operation === 'IssueInvoice' && r.outcome === 'ok')?.request).toContain('"apiKey":"[redacted]"');
    expect(rows.map((r) => r.outcome)).toEqual(expect.arrayContaining(['ok', 'refused', 'unknown']));
  });
});

describe("the eDahab stand-in's field conditions and transports", () => {
  it('lost answers strike IssueInvoice requests (every one is a first request), written in the books', async () => {
    const lossy = createEdahabStandIn({ approvalMs: 1, lostAnswerRate: 1 });
    const lossyServer = await startStandInServer(lossy.handle);
    try {
      const a = edahabAdapter(config({ apiUrl: `${lossyServer.url}/api/api` }), { trail: databaseTrail(h.knex) });
      expect((await a.charge(charge('625551007'), forWhom)).status).toBe('unknown');
      expect(lossy.books().entries).toMatchObject([{ edahabNumber: '625551007', status: 'Paid', fault: 'lost' }]);
      lossy.injectFault({ operation: 'IssueInvoice' }, '503');
      expect((await a.charge(charge('625551008'), forWhom)).status).toBe('unknown');
      expect(lossy.books().entries[1]).toMatchObject({ status: 'NotProcessed', fault: null });
      lossy.reset();
      expect(lossy.books().entries).toEqual([]);
    } finally {
      await lossyServer.close();
    }
  });

  it('the in-process transport routes http://edahab.local to the stand-in', async () => {
    const standIns = await startStandIns({ approvalMs: 1, latencyMs: 1, inProcess: true });
    const a = edahabAdapter(config({ apiUrl: standIns.edahabUrl }), { trail: databaseTrail(h.knex), fetch: standIns.fetch! });
    expect(standIns.edahabUrl).toBe('http://edahab.local/api/api');
    expect((await a.charge(charge('625551009'), forWhom)).status).toBe('approved');
    expect(standIns.edahab.byNumber('625551009')).toHaveLength(1);
  });
});

describe("eDahab's answer table", () => {
  const read = readEdahabAnswer;
  it('reads a refusal by its StatusCode whatever its 4xx status; a lookup refused is unknown', () => {
    expect(read('charge', 401, { StatusCode: 4, StatusDescription: 'Invalid hash' })).toMatchObject({ meaning: 'declined', code: 'bad_credentials' });
    expect(read('charge', 200, { StatusCode: '2' })).toMatchObject({ meaning: 'declined', code: 'invalid_json' });
    expect(read('lookup', 200, { StatusCode: 4 })).toMatchObject({ meaning: 'unknown' });
    expect(read('lookup', 200, { StatusCode: 5 })).toMatchObject({ meaning: 'unknown' });
  });

  it('an invoice not found (6) is never "never made": unknown to a charge and to a lookup', () => {
    expect(read('charge', 200, { StatusCode: 6 }).meaning).toBe('unknown');
    expect(read('lookup', 200, { StatusCode: 6, InvoiceId: 0 }).meaning).toBe('unknown');
  });

  it('anything nobody classified, or that contradicts itself, is unknown with its raw text', () => {
    expect(read('charge', 200, { StatusCode: 9, StatusDescription: 'Something new' })).toMatchObject({
      meaning: 'unknown',
      why: 'unclassified',
      raw: expect.stringContaining('Something new'),
    });
    expect(read('charge', 200, { StatusCode: 0, InvoiceId: 5 })).toMatchObject({ meaning: 'unknown', why: 'unclassified', invoiceId: '5' });
    expect(read('charge', 200, { StatusCode: 0, InvoiceStatus: 'Invalid', InvoiceId: 5 }).meaning).toBe('unknown');
    expect(read('charge', 200, { StatusCode: 0, InvoiceStatus: 'Refunded', InvoiceId: 5 }).meaning).toBe('unknown');
    expect(read('charge', 200, { StatusCode: 5, InvoiceStatus: 'Paid', InvoiceId: 5 })).toMatchObject({ meaning: 'unknown', why: 'conflicting' });
    expect(read('charge', 400, { StatusCode: 0, InvoiceStatus: 'Paid', InvoiceId: 5 }).meaning).toBe('unknown');
    // An API error naming an invoice: the invoice exists, ask by it.
    expect(read('charge', 200, { StatusCode: 1, InvoiceId: 5 }).meaning).toBe('unknown');
    expect(read('charge', 200, { StatusCode: 1 }).meaning).toBe('declined');
    // Not eDahab's answer (a proxy's page), and a 409 without an invoice or to a lookup.
    expect(read('charge', 404, { message: 'Not Found' }).meaning).toBe('unknown');
    expect(read('charge', 409, { message: 'Conflict' }).meaning).toBe('unknown');
    expect(read('lookup', 409, { StatusCode: 1, InvoiceId: 7, InvoiceStatus: 'Pending' }).meaning).toBe('unknown');
  });

  it('paid, unpaid and pending, with StatusCode 0', () => {
    expect(read('charge', 200, { StatusCode: 0, InvoiceStatus: 'Paid', InvoiceId: 7, TransactionId: 'MP7' })).toMatchObject({
      meaning: 'paid',
      invoiceId: '7',
      transactionId: 'MP7',
    });
    expect(read('lookup', 200, { StatusCode: 0, InvoiceStatus: 'unpaid' })).toMatchObject({ meaning: 'declined' });
    expect(read('lookup', 200, { StatusCode: 0, InvoiceStatus: 'Pending', InvoiceId: 0 })).toMatchObject({ meaning: 'pending', invoiceId: null });
  });
});

describe('sales paid through a method set to `edahab`', () => {
  let kit: MoneyKit;
  let shop: Shop;
  let root: string;
  let methodId: number;
  beforeAll(async () => {
    root = await h.adminToken();
    kit = await moneyKit(h);
    shop = await makeShop(h, root, 'cost', { balance: '5' });
    const m = await h.http().post('/api/v1/payment-methods').set(bearer(shop.token)).send({ name: 'eDahab', type: 'edahab', account_number: '625000000' });
    expect(m.status).toBe(201);
    // A wallet of type eDahab goes to eDahab's own API unless told otherwise.
    expect(m.body.data.gateway).toBe('edahab');
    methodId = m.body.data.id;
  });
  afterAll(async () => {
    await kit.close();
  });

  it('completes once charged (recorded as `edahab`, charged once); a payer who does not pay fails the sale; a lost answer waits for a person, never charged twice', async () => {
    const paid = await buy(h, shop, { payment_method_id: methodId, payer_phone: '+252 62 5552001' });
    const unpaid = await buy(h, shop, { payment_method_id: methodId, payer_phone: '+252 62 5550000' });
    const lost = await buy(h, shop, { payment_method_id: methodId, payer_phone: '+252 62 5550002' });
    expect([paid.status, unpaid.status, lost.status]).toEqual([201, 201, 201]);
    await kit.worker.drain();
    await later(1300);
    await kit.worker.drain();
    const rows = await h.knex('recharges').whereIn('id', [paid.body.data.id, unpaid.body.data.id, lost.body.data.id]).orderBy('id');
    expect(rows.map((r) => [r.payment_adapter, r.payment_state])).toEqual([
      ['edahab', 'collected'],
      ['edahab', 'declined'],
      ['edahab', 'sent'],
    ]);
    expect(rows[0].status).toBe('completed');
    expect(rows[0].payment_reference).toBe(String(kit.standIns.edahab.byNumber('625552001')[0].invoiceId));
    // Declined: nothing taken, so Failed (the dealer's debit back all the same).
    expect(rows[1].status).toBe('failed');
    expect(rows[2].status).toBe('needs_review');
    expect(rows[2].review_reason).toContain('eDahab');
    for (const n of ['625552001', '625550000', '625550002']) expect(kit.standIns.edahab.byNumber(n)).toHaveLength(1);
  });

  it('an invoice answered Pending is asked about by its invoice id (the sale keeps it), and completes once paid', async () => {
    const pending = await buy(h, shop, { payment_method_id: methodId, payer_phone: '+252 62 5550005' });
    expect(pending.status).toBe(201);
    await kit.worker.drain();
    const row = await h.knex('recharges').where({ id: pending.body.data.id }).first();
    const [invoice] = kit.standIns.edahab.byNumber('625550005');
    expect(row).toMatchObject({ status: 'completed', payment_adapter: 'edahab', payment_state: 'collected', payment_reference: String(invoice.invoiceId) });
    expect(kit.standIns.edahab.byNumber('625550005')).toHaveLength(1);
  });

  it('with a real gateway configured and no EDAHAB_API_URL, the eDahab stand-in takes no new payment (declined, nothing sent)', async () => {
    const env = readMoneyEnv({ WAAFIPAY_URL: kit.standIns.waafipayUrl, ...waafiEnv(), PAYMENT_CALL_TIMEOUT_MS: '400', PAYMENT_TIMEOUT_MS: '1500' });
    const live = await moneyAdapters(env, { trail: databaseTrail(h.knex), standIns: kit.standIns });
    const edahab = live.gateways.of({ payment_adapter: 'edahab', payment_state: 'none' })!;
    expect(edahab.name).toBe('edahab');
    expect(await edahab.charge(charge('625552002'), forWhom)).toMatchObject({ status: 'declined', code: 'not_configured' });
    expect(kit.standIns.edahab.byNumber('625552002')).toHaveLength(0);
    // The sales it took are still asked about.
    const invoiceId = String(kit.standIns.edahab.byNumber('625552001')[0].invoiceId);
    expect(await edahab.lookup('ignored', forWhom, { transactionId: invoiceId })).toMatchObject({ status: 'found', state: 'approved' });
    expect(live.describe).toContain('eDahab stand-in, no new charges');
  });
});

const waafiEnv = () => ({
  WAAFIPAY_MERCHANT_UID: WAAFIPAY_STAND_IN_CREDENTIALS.merchantUid,
  WAAFIPAY_API_USER_ID: WAAFIPAY_STAND_IN_CREDENTIALS.apiUserId,
  WAAFIPAY_API_KEY: WAAFIPAY_STAND_IN_CREDENTIALS.apiKey,
  WAAFIPAY_STORE_ID: WAAFIPAY_STAND_IN_CREDENTIALS.storeId,
  WAAFIPAY_HPP_KEY: WAAFIPAY_STAND_IN_CREDENTIALS.hppKey,
});
const edahabHashOf = (body: string) =>
  crypto
    .createHash('sha256')
    .update(body + EDAHAB_STAND_IN_CREDENTIALS.apiSecret)
    .digest('hex');
