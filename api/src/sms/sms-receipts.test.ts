import { toDbTime } from '../database/time.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, createHarness, type Harness } from '../../../tests/api/harness.ts';
import { buy, makeShop, moneyKit, type MoneyKit, type Shop } from '../recharges/recharge-fixtures.ts';
import type { RechargeMoney } from '../recharges/recharge.routes.ts';
import { databaseTrail } from '../recharges/remote-calls.ts';
import { vendorFetch } from '../connectors/vendor-http.ts';
import { africasTalkingAdapter } from '../connectors/sms/africastalking/africastalking-adapter.ts';
import { readSmsEnv, setSmsReceipts } from './sms-config.ts';
import { SmsDispatcher } from './sms-dispatcher.ts';

/**
 * SMS receipts end to end (docs/integrations.md, "SMS receipts"): real sales through the stand-ins
 * (WaafiPay, the aggregator), the receipt written with the sale's change, sent by the dispatcher to
 * the Africa's Talking stand-in over HTTP, its delivery report and the customer's "not received"
 * reply posted to the callbacks as Africa's Talking posts them (form bodies, `secret` in the URL).
 */
let h: Harness;
let root: string;
let kit: MoneyKit;
let shop: Shop;
let dispatcher: SmsDispatcher;
const money: RechargeMoney = {};
const SECRET = 'cb-secret-0123456789';
const APP_URL = 'https://shop.example.so';
const saved = { APP_URL: process.env.APP_URL, SMS_CALLBACK_SECRET: process.env.SMS_CALLBACK_SECRET };

beforeAll(async () => {
  process.env.APP_URL = APP_URL;
  process.env.SMS_CALLBACK_SECRET = SECRET;
  h = await createHarness({ rechargeMoney: money, env: { API_KEY_RATE_LIMIT_PER_MINUTE: '10000', API_RATE_LIMIT_PER_MINUTE: '100000' } });
  root = await h.adminToken();
  kit = await moneyKit(h, { money });
  const config = readSmsEnv({ NODE_ENV: 'test' }, kit.standIns.africastalkingUrl);
  expect(config).toMatchObject({ enabled: true, live: false });
  // Through undici's request on a pool, as the server sends to Africa's Talking (server.ts, vendor-http.ts).
  dispatcher = new SmsDispatcher({
    db: h.knex,
    adapter: africasTalkingAdapter({ ...config.settings, timeoutMs: 500 }, { trail: databaseTrail(h.knex), fetch: vendorFetch({ connections: 4 }) }),
  });
  setSmsReceipts(true);
  shop = await makeShop(h, root, 'cost', { balance: '50.00' });
});
afterAll(async () => {
  setSmsReceipts(false);
  process.env.APP_URL = saved.APP_URL;
  process.env.SMS_CALLBACK_SECRET = saved.SMS_CALLBACK_SECRET;
  if (saved.APP_URL === undefined) delete process.env.APP_URL;
  if (saved.SMS_CALLBACK_SECRET === undefined) delete process.env.SMS_CALLBACK_SECRET;
  await kit.close();
  await h.close();
});
beforeEach(() => {
  kit.standIns.africastalking.clearFaults();
});

const messagesOf = (rechargeId: number) => h.knex('sms_messages').where({ recharge_id: rechargeId }).orderBy('id');
const sentTo = (number: string) => kit.standIns.africastalking.sent().filter((s) => s.number === number);
const report = (fields: Record<string, string>, secret: string | null = SECRET) =>
  h
    .http()
    .post(`/api/v1/sms/delivery-reports${secret === null ? '' : `?secret=${encodeURIComponent(secret)}`}`)
    .type('form')
    .send(fields);
const inbound = (fields: Record<string, string>, secret: string | null = SECRET) =>
  h
    .http()
    .post(`/api/v1/sms/inbound${secret === null ? '' : `?secret=${encodeURIComponent(secret)}`}`)
    .type('form')
    .send(fields);

/** A storefront sale in a language, run to its end by the worker. */
async function sale(opts: { phone: string; payer?: string; lng?: string; shop?: Shop }) {
  const res = await buy(h, opts.shop ?? shop, { phone: opts.phone, payer_phone: opts.payer ?? '+252 61 7000021' }).set('Accept-Language', opts.lng ?? 'en');
  expect(res.status).toBe(201);
  await kit.worker.drain();
  const row = await h.knex('recharges').where({ reference: res.body.data.reference }).first();
  return row as { id: number; reference: string; status: string; payment_state: string; operator_reference: string | null; language: string | null };
}

describe("receipts on the customer's phone", () => {
  it("a delivered sale: one receipt in the language the customer bought in, with the reference, the bundle and the order link, in the sale's trail", async () => {
    // The names the customer saw on the storefront: the shop's company name and the bundle's Somali name.
    await h
      .knex('bundles')
      .where({ name: `1 GB ${shop.code}` })
      .update({ translations: JSON.stringify({ so: { name: `1 GB Maalinle ${shop.code}` } }) });
    const details = await h.knex('dealer_details').where({ user_id: shop.dealerId }).first('company_name', 'translations');
    await h
      .knex('dealer_details')
      .where({ user_id: shop.dealerId })
      .update({ company_name: 'Hodan Data', translations: JSON.stringify({ so: { company_name: 'Hodan Xog' } }) });
    const r = await sale({ phone: '0615120001', payer: '+252 61 7000121', lng: 'so' });
    await h.knex('dealer_details').where({ user_id: shop.dealerId }).update(details);
    expect(r.status).toBe('completed');
    expect(r.language).toBe('so');
    const [written] = await messagesOf(r.id);
    expect(written).toMatchObject({ kind: 'delivered', status: 'pending', language: 'so', phone: '+252617000121' });
    expect(await dispatcher.runUntilDone()).toBeGreaterThanOrEqual(1);
    const [msg] = await messagesOf(r.id);
    expect(msg).toMatchObject({ status: 'accepted', status_code: 101, provider_status: 'Success' });
    expect(msg.provider_message_id).toMatch(/^ATXid_/);
    const [got] = sentTo('+252617000121');
    expect(got.message).toContain(r.reference);
    expect(got.message).toContain(`1 GB Maalinle ${shop.code}`);
    expect(got.message).toContain('Hodan Xog');
    expect(got.message).toContain(`${APP_URL}/dealer/${shop.code}/order/${r.reference}`);
    expect(got.message).toContain('waxaa la gaarsiiyay');
    // The send is a line of the sale's trail, as staff read it.
    const detail = await h.http().get(`/api/v1/recharges/${r.id}`).set(bearer(root));
    expect(detail.status).toBe(200);
    expect(detail.body.data.remote_calls.filter((c: { system: string }) => c.system === 'africastalking')).toEqual([
      expect.objectContaining({ operation: 'send SMS receipt', outcome: 'ok', http_status: 201 }),
    ]);
    // Sent once: another round sends nothing more.
    expect(await dispatcher.runUntilDone()).toBe(0);
    expect(sentTo('+252617000121')).toHaveLength(1);
  });

  it('a failed sale (payment declined): the receipt says no money was taken, in Arabic', async () => {
    const r = await sale({ phone: '0615120002', payer: '+252 61 7000000', lng: 'ar' });
    // Nothing was taken: Failed, never Refunded.
    expect(r.status).toBe('failed');
    await dispatcher.runUntilDone();
    const msgs = await messagesOf(r.id);
    expect(msgs).toHaveLength(1);
    expect(msgs[0]).toMatchObject({ kind: 'failed', language: 'ae', status: 'accepted' });
    const [got] = sentTo('+252617000000');
    expect(got.message).toContain(r.reference);
    expect(got.message).toContain('تعذّر تسليم');
    expect(got.message).toContain('لم يُخصم أي مبلغ');
  });

  it('money taken for a failed sale and paid back later: a second receipt says it was returned, once', async () => {
    // The operator refuses ...9999; the payment, taken, is owed back by hand (as when a gateway will not reverse it).
    const r = await sale({ phone: '0615129999', payer: '+252 61 7000131', lng: 'so' });
    await h.knex('recharges').where({ id: r.id }).update({ payment_state: 'refund_due', next_check_at: null });
    expect((await h.knex('recharges').where({ id: r.id }).first()).status).toBe('failed');
    const paid = () => h.http().post(`/api/v1/recharges/${r.id}/paid-back`).set(bearer(root)).send({ note: 'Sent back by EVC Plus' });
    const answers = await Promise.all([paid(), paid(), paid()]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    expect(answers.find((a) => a.status === 200)!.body.data.status).toBe('refunded');
    await dispatcher.runUntilDone();
    const msgs = await messagesOf(r.id);
    expect(msgs.map((m: { kind: string }) => m.kind)).toEqual(['failed', 'returned']);
    expect(msgs[1]).toMatchObject({ language: 'so', status: 'accepted' });
    expect(msgs[1].message).toContain('waa laguu celiyay');
    expect(msgs[1].message).toContain(r.reference);
  });

  it("a failed delivery report is recorded and shown in the sale's trail; a wrong or missing secret changes nothing (401)", async () => {
    const r = await sale({ phone: '0615120003', payer: '+252 61 7000131' });
    await dispatcher.runUntilDone();
    const [msg] = await messagesOf(r.id);
    const fields = { id: msg.provider_message_id, status: 'Failed', phoneNumber: msg.phone, failureReason: 'AbsentSubscriber' };
    expect((await report(fields, 'wrong')).status).toBe(401);
    expect((await report(fields, null)).status).toBe(401);
    expect((await inbound({ from: '+252617000131', to: '12345', text: 'not received', date: '2026-11-28', id: 'in-x' }, 'nope')).status).toBe(401);
    expect((await messagesOf(r.id))[0]).toMatchObject({ status: 'accepted', reported_at: null });
    expect(await h.knex('sms_inbound').where({ provider_id: 'in-x' }).first()).toBeUndefined();
    // Without SMS_CALLBACK_SECRET the callbacks are not there at all.
    delete process.env.SMS_CALLBACK_SECRET;
    try {
      expect((await report(fields)).status).toBe(404);
    } finally {
      process.env.SMS_CALLBACK_SECRET = SECRET;
    }

    const sent = await report({ ...fields, status: 'Sent', failureReason: '' });
    expect(sent.status).toBe(200);
    const failed = await report(fields);
    expect(failed.status).toBe(200);
    // A late "on the way" never replaces the final word.
    await report({ ...fields, status: 'Buffered', failureReason: '' });
    expect((await messagesOf(r.id))[0]).toMatchObject({ status: 'failed', provider_status: 'Failed', failure_reason: 'AbsentSubscriber' });
    const detail = await h.http().get(`/api/v1/recharges/${r.id}`).set(bearer(root));
    const lines = detail.body.data.remote_calls.filter((c: { system: string }) => c.system === 'africastalking');
    expect(lines.map((c: { operation: string; outcome: string }) => [c.operation, c.outcome])).toEqual([
      ['send SMS receipt', 'ok'],
      ['SMS delivery report: Sent', 'unknown'],
      ['SMS delivery report: Failed', 'refused'],
      ['SMS delivery report: Buffered', 'unknown'],
    ]);
    expect(lines[2].error).toBe('AbsentSubscriber');
    // A report about no message of ours is acknowledged, nothing else.
    expect((await report({ id: 'ATXid_none', status: 'Success' })).body.data.outcome).toBe('unknown_message');
  });

  it('a "not received" reply opens a case on the sale in the review queue, with its evidence; staff close it', async () => {
    const r = await sale({ phone: '0615120004', payer: '+252 61 7000141' });
    await dispatcher.runUntilDone();
    const [msg] = await messagesOf(r.id);
    await report({ id: msg.provider_message_id, status: 'Success', phoneNumber: msg.phone });
    // Unmatched and unrelated replies are stored, never a 500.
    const stray = await inbound({ from: '+252619999999', to: '12345', text: 'lama helin', date: '2026-11-28 10:00:00', id: 'in-stray' });
    expect(stray.status).toBe(200);
    expect(stray.body.data).toEqual({ outcome: 'no_sale', case_id: null });
    expect((await inbound({ from: '+252617000141', to: '12345', text: 'thanks!', id: 'in-thanks' })).body.data.outcome).toBe('not_a_claim');
    expect((await inbound({ from: 'garbage', text: '' })).status).toBe(200);

    const opened = await inbound({ from: '+252617000141', to: '12345', text: `Bundle lama helin ${r.reference}`, date: '2026-11-28 10:01:00', id: 'in-1' });
    expect(opened.status).toBe(200);
    expect(opened.body.data.outcome).toBe('case_opened');
    // The same message again (Africa's Talking retries) opens nothing more.
    expect((await inbound({ from: '+252617000141', to: '12345', text: `Bundle lama helin ${r.reference}`, id: 'in-1' })).body.data.case_id).toBe(
      opened.body.data.case_id,
    );
    expect((await inbound({ from: '+252617000141', text: 'لم يصل', id: 'in-2' })).body.data.outcome).toBe('case_exists');
    expect(await h.knex('sms_inbound').whereIn('provider_id', ['in-stray', 'in-thanks', 'in-1', 'in-2']).count({ n: '*' }).first()).toMatchObject({ n: 4 });

    const queue = await h.http().get('/api/v1/sms/cases').set(bearer(root));
    expect(queue.status).toBe(200);
    const mine = queue.body.data.filter((c: { recharge: { id: number } }) => c.recharge.id === r.id);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ kind: 'not_received', status: 'open', recharge: { reference: r.reference, status: 'completed' } });
    expect(mine[0].evidence).toMatchObject({
      reply: { from: '+252617000141', text: `Bundle lama helin ${r.reference}`, id: 'in-1' },
      receipt: { status: 'delivered', provider_status: 'Success', message_id: msg.provider_message_id },
      operator_reference: r.operator_reference,
    });
    expect(r.operator_reference).toBeTruthy();
    // A dealer without review rights does not read the queue.
    expect((await h.http().get('/api/v1/sms/cases').set(bearer(shop.token))).status).toBe(403);
    const bad = await h.http().post(`/api/v1/sms/cases/${mine[0].id}/close`).set(bearer(root)).send({ resolution: 'maybe' });
    expect(bad.status).toBe(422);
    const closed = await h
      .http()
      .post(`/api/v1/sms/cases/${mine[0].id}/close`)
      .set(bearer(root))
      .send({ resolution: 'delivered_confirmed', note: 'Operator confirms' });
    expect(closed.status).toBe(200);
    expect(closed.body.data).toMatchObject({ status: 'closed', resolution: 'delivered_confirmed' });
    expect((await h.http().post(`/api/v1/sms/cases/${mine[0].id}/close`).set(bearer(root)).send({ resolution: 'refunded' })).status).toBe(409);
  });

  it("a dealer with receipts off sends none; the switch is the dealer's own and logged", async () => {
    const other = await makeShop(h, root, 'cost', { balance: '10.00' });
    const off = await h.http().put('/api/v1/sms/settings').set(bearer(other.token)).send({ sms_receipts: false });
    expect(off.status).toBe(200);
    expect(off.body.data).toEqual({ sms_receipts: false, available: true });
    // Another dealer's switch is not this dealer's to read: a dealer is always itself.
    expect((await h.http().get(`/api/v1/sms/settings?dealer_id=${shop.dealerId}`).set(bearer(other.token))).body.data.sms_receipts).toBe(false);
    expect((await h.http().put('/api/v1/sms/settings').set(bearer(other.token)).send({ sms_receipts: 'no' })).status).toBe(422);
    const log = await h.knex('activity_log').where({ subject_type: 'user', subject_id: other.dealerId, action: 'updated' }).orderBy('id', 'desc').first();
    expect(JSON.parse(log.after)).toEqual({ sms_receipts: false });
    const r = await sale({ phone: '0615120005', payer: '+252 61 7000151', shop: other });
    expect(r.status).toBe('completed');
    await dispatcher.runUntilDone();
    expect(await messagesOf(r.id)).toHaveLength(0);
    // Staff turn it back on for the dealer.
    const on = await h.http().put(`/api/v1/sms/settings?dealer_id=${other.dealerId}`).set(bearer(root)).send({ sms_receipts: true });
    expect(on.body.data.sms_receipts).toBe(true);
  });

  it('a test-mode sale sends none', async () => {
    const made = await h
      .http()
      .post('/api/v1/dealer/api-keys')
      .set(bearer(shop.token))
      .send({ name: 'POS test', scopes: ['recharges:write'], mode: 'test' });
    expect(made.status).toBe(201);
    const sold = await h
      .http()
      .post('/api/reseller/v1/recharges')
      .set('Authorization', `Bearer ${made.body.data.key}`)
      .set('Idempotency-Key', `k-${Date.now()}`)
      .send({ bundle_id: shop.bundleId, phone: '0615120006', payment: 'wallet' });
    expect(sold.status).toBe(201);
    await kit.worker.drain();
    const r = await h.knex('recharges').where({ reference: sold.body.data.reference }).first();
    expect(r).toMatchObject({ mode: 'test', status: 'completed' });
    expect(await messagesOf(r.id)).toHaveLength(0);
  });

  it('a refused number is recorded refused with its reason; a 5xx or no answer is unknown and not sent again', async () => {
    const refused = await sale({ phone: '0615120007', payer: '+252 61 0000403' });
    kit.standIns.africastalking.injectFault('+252617000171', 'unavailable');
    const lost = await sale({ phone: '0615120008', payer: '+252 61 7000171' });
    kit.standIns.africastalking.injectFault('+252617000181', 'slow');
    const slow = await sale({ phone: '0615120009', payer: '+252 61 7000181' });
    await dispatcher.runUntilDone();
    expect((await messagesOf(slow.id))[0]).toMatchObject({ status: 'unknown', failure_reason: 'No answer in time (timeout)' });
    expect((await messagesOf(refused.id))[0]).toMatchObject({ status: 'refused', status_code: 403, failure_reason: 'InvalidPhoneNumber' });
    expect((await messagesOf(lost.id))[0]).toMatchObject({ status: 'unknown', failure_reason: expect.stringContaining('HTTP 500') });
    expect(await dispatcher.runUntilDone()).toBe(0);
  });

  it('a receipt a stopped process left mid-send is marked unknown once its lease ran out, and never sent again', async () => {
    const left = await sale({ phone: '0615120010', payer: '+252 61 7000191' });
    const sentBefore = kit.standIns.africastalking.sent().length;
    // As a process that claimed it and stopped before the answer: `sending`, its lease over.
    await h
      .knex('sms_messages')
      .where({ recharge_id: left.id })
      .update({ status: 'sending', claim_token: 'gone', claimed_until: toDbTime(new Date(Date.now() - 1000)) });
    const fresh = new SmsDispatcher({
      db: h.knex,
      adapter: africasTalkingAdapter({ ...readSmsEnv({ NODE_ENV: 'test' }, kit.standIns.africastalkingUrl).settings }, { trail: databaseTrail(h.knex) }),
    });
    expect(await fresh.runUntilDone()).toBe(0);
    expect((await messagesOf(left.id))[0]).toMatchObject({
      status: 'unknown',
      failure_reason: 'The sender stopped before the answer was recorded',
      claim_token: null,
    });
    expect(kit.standIns.africastalking.sent()).toHaveLength(sentBefore);
  });

  it('twenty sales delivered at once: exactly twenty receipts, none twice, no 5xx', async () => {
    const busy = await makeShop(h, root, 'cost', { balance: '50.00' });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => buy(h, busy, { phone: `06152${String(10000 + i)}`, payer_phone: `0617${String(300100 + i)}` })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    // Two workers and two dispatchers at once, as two processes would.
    const second = kit.newWorker();
    await Promise.all([kit.worker.drain(), second.drain()]);
    const ids = (await h.knex('recharges').where({ dealer_id: busy.dealerId }).select('id', 'status')) as { id: number; status: string }[];
    expect(ids.filter((r) => r.status === 'completed')).toHaveLength(20);
    const other = new SmsDispatcher({
      db: h.knex,
      adapter: africasTalkingAdapter({ ...readSmsEnv({}, kit.standIns.africastalkingUrl).settings }, { trail: databaseTrail(h.knex) }),
    });
    await Promise.all([dispatcher.runUntilDone(), other.runUntilDone()]);
    const rows = await h.knex('sms_messages').where({ dealer_id: busy.dealerId });
    expect(rows).toHaveLength(20);
    expect(new Set(rows.map((m) => m.recharge_id)).size).toBe(20);
    expect(rows.every((m) => m.status === 'accepted')).toBe(true);
    const numbers = new Set(rows.map((m) => m.phone));
    expect(kit.standIns.africastalking.sent().filter((s) => numbers.has(s.number))).toHaveLength(20);
  });
});
