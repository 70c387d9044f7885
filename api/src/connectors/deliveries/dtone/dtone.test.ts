import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createHarness, type Harness } from '../../../../../tests/api/harness.ts';
import { ledgerSum } from '../../../wallets/ledger.ts';
import { buy, makeShop, moneyKit, walletBalance, type MoneyKit, type Shop } from '../../../recharges/recharge-fixtures.ts';
import { databaseTrail } from '../../../recharges/remote-calls.ts';
import { startStandInServer, type RunningStandIn } from '../../stand-ins/stand-in-server.ts';
import { createDtOneStandIn, DTONE_STAND_IN_CREDENTIALS, type DtOneStandIn } from './dtone-stand-in.ts';
import { dtOneAdapter } from './dtone-adapter.ts';
import type { OperatorAdapter } from '../operator-adapter.ts';

/**
 * DT One, the second aggregator (issue 25, item 3): its adapter against its stand-in over HTTP with
 * the faults of its protocol (lost answers, 503, processing, operator declines, a used external_id,
 * bad credentials), then a sale delivered through a provider set to `dtone`, on SQLite and MariaDB.
 * The rule is Reloadly's: a lost answer is looked up by our reference, never sent twice.
 */
let h: Harness;
let root: string;
let server: RunningStandIn;
let standIn: DtOneStandIn;
let adapter: OperatorAdapter;
const forWhom = { rechargeId: null };

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
  standIn = createDtOneStandIn({ latencyMs: 20 });
  server = await startStandInServer(standIn.handle);
  adapter = dtOneAdapter({ apiUrl: `${server.url}/v1`, ...DTONE_STAND_IN_CREDENTIALS, timeoutMs: 2000 }, { trail: databaseTrail(h.knex) });
});
afterAll(async () => {
  await server.close();
  await h.close();
});

const request = (ref: string, phone = '615551001', productCode: string | null = '91001') => ({
  customIdentifier: ref,
  phone,
  externalOperatorId: null,
  productCode,
  cost: 40,
});
const settle = () => new Promise((r) => setTimeout(r, 80));

describe('the DT One adapter against its stand-in', () => {
  it('an async send is processing, then completed when polled; found by our reference', async () => {
    const sent = await adapter.send(request('DT-OK-1'), forWhom);
    expect(sent).toMatchObject({ status: 'processing' });
    await settle();
    const polled = await adapter.poll((sent as { deliveryId: string }).deliveryId, forWhom);
    expect(polled).toMatchObject({ status: 'delivered', operatorReference: expect.stringMatching(/^DT\d+$/) });
    expect(await adapter.lookup('DT-OK-1', forWhom)).toMatchObject({ status: 'delivered' });
    expect(await adapter.lookup('DT-NEVER', forWhom)).toEqual({ status: 'not_found' });
  });

  it('an operator decline (x02..x07) fails the delivery with its message', async () => {
    const sent = await adapter.send(request('DT-DECL-1', '615551004'), forWhom);
    await settle();
    const polled = await adapter.poll((sent as { deliveryId: string }).deliveryId, forWhom);
    expect(polled.status).toBe('failed');
    expect((polled as { reason: string }).reason).toContain('not active');
  });

  it('a lost answer is unknown, the lookup finds the top-up, and a second send is refused as a duplicate (never delivered twice)', async () => {
    const sent = await adapter.send(request('DT-LOST-1', '615551999'), forWhom);
    expect(sent.status).toBe('unknown');
    // Processing, or already completed on a busy machine: found either way.
    expect(['processing', 'delivered']).toContain((await adapter.lookup('DT-LOST-1', forWhom)).status);
    const again = await adapter.send(request('DT-LOST-1', '615551999'), forWhom);
    expect(again).toMatchObject({ status: 'unknown', error: expect.stringContaining('1007001') });
    expect(standIn.byExternalId('DT-LOST-1')?.sends).toBe(2);
    expect(standIn.books().entries.filter((e) => e.externalId === 'DT-LOST-1')).toHaveLength(1);
  });

  it('a 503 is unknown and not processed: the lookup finds nothing, so sending again is safe', async () => {
    standIn.injectFault({ path: '/v1/async/transactions' }, '503');
    expect((await adapter.send(request('DT-503-1'), forWhom)).status).toBe('unknown');
    expect(await adapter.lookup('DT-503-1', forWhom)).toEqual({ status: 'not_found' });
    expect((await adapter.send(request('DT-503-1'), forWhom)).status).toBe('processing');
  });

  it('refusals: a product DT One does not sell fails; a bundle without a product id is never sent; bad credentials are not sent', async () => {
    expect(await adapter.send(request('DT-NOPROD', '615551001', '12345'), forWhom)).toMatchObject({
      status: 'failed',
      reason: expect.stringContaining('1003001'),
    });
    expect(await adapter.send(request('DT-NOCODE', '615551001', null), forWhom)).toMatchObject({ status: 'failed', deliveryId: null });
    expect(standIn.byExternalId('DT-NOCODE')).toBeUndefined();
    const wrong = dtOneAdapter({ apiUrl: `${server.url}/v1`, apiKey: 'x', apiSecret: 'y', timeoutMs: 2000 }, { trail: databaseTrail(h.knex) });
    expect(await wrong.send(request('DT-AUTH'), forWhom)).toMatchObject({ status: 'not_sent' });
    expect(standIn.byExternalId('DT-AUTH')).toBeUndefined();
  });

  it('SUBMITTED for ever (998) stays processing', async () => {
    const sent = await adapter.send(request('DT-SUB-1', '615551998'), forWhom);
    await settle();
    expect(await adapter.poll((sent as { deliveryId: string }).deliveryId, forWhom)).toMatchObject({ status: 'processing' });
  });
});

describe('a sale delivered through DT One', () => {
  let kit: MoneyKit;
  let shop: Shop;
  beforeAll(async () => {
    kit = await moneyKit(h);
    shop = await makeShop(h, root, 'cost', { balance: '5' });
    const bundle = await h.knex('bundles').where({ id: shop.bundleId }).first();
    const category = await h.knex('categories').where({ id: bundle.category_id }).first();
    expect((await h.http().patch(`/api/v1/internet-providers/${category.provider_id}`).set(bearer(root)).send({ adapter_key: 'dtone' })).status).toBe(200);
    expect((await h.http().patch(`/api/v1/bundles/${shop.bundleId}`).set(bearer(root)).send({ operator_product_code: '91001' })).status).toBe(200);
  });
  afterAll(async () => {
    await kit.close();
  });

  it('completes, recorded with its route, once at DT One, the ledger exact; a lost answer is looked up, not sent twice; a decline is refunded', async () => {
    const ok = await buy(h, shop);
    const lost = await buy(h, shop, { phone: '0615551999' });
    const declined = await buy(h, shop, { phone: '0615551205' });
    await kit.worker.drain();
    const rows = await h.knex('recharges').whereIn('id', [ok.body.data.id, lost.body.data.id, declined.body.data.id]).orderBy('id');
    expect(rows.map((r) => [r.status, r.operator_adapter])).toEqual([
      ['completed', 'dtone'],
      ['completed', 'dtone'],
      // Declined by the operator: the reserve let go, nothing taken (Failed); the dealer's debit back.
      ['failed', 'dtone'],
    ]);
    for (const r of rows) expect(kit.standIns.dtone.byExternalId(r.reference)).toBeDefined();
    expect(kit.standIns.dtone.byExternalId(rows[1].reference)?.sends).toBe(1);
    expect(kit.standIns.waafipay.byReference(rows[2].reference)?.state).toBe('Cancelled');
    const shown = await h.http().get(`/api/v1/recharges/${rows[0].id}`).set(bearer(root));
    expect(shown.body.data.recharge).toMatchObject({ route: 'dtone', operator_reference: expect.stringMatching(/^DT\d+$/) });
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(await walletBalance(h, shop.walletId));
    expect(await walletBalance(h, shop.walletId)).toBe(500 - 2 * 40);
  });
});
