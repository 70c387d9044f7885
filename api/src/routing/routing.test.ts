import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, createHarness, type Harness } from '../../../tests/api/harness.ts';
import { ledgerSum } from '../wallets/ledger.ts';
import { buy, makeShop, moneyKit, walletBalance, type MoneyKit, type Shop } from '../recharges/recharge-fixtures.ts';
import type { RechargeMoney } from '../recharges/recharge.routes.ts';
import type { RoutingDeps } from './routing.routes.ts';

/**
 * Routes with safe failover and the catalogue in step with the aggregators (issue 25, items 4-5),
 * through the real adapters and their stand-ins over loopback HTTP, on SQLite and MariaDB.
 *
 * The operator (Hormuud) has two routes: DT One first (operator 2701, product 91001), then the
 * Reloadly stand-in as `sandbox` (operator 1650, amount 0.40). DT One's sandbox numbers decide by
 * their last three digits: x02 is declined by the operator, 999 loses the first answer, 998 stays
 * submitted; any other number is delivered.
 */
let h: Harness;
let root: string;
let shop: Shop;
let kit: MoneyKit;
let providerId: number;
const money: RechargeMoney = {};
const routing: RoutingDeps = {};

const row = async (id: number) => h.knex('recharges').where({ id }).first();
const routingLines = async (id: number) => h.knex('remote_calls').where({ recharge_id: id, system: 'routing' }).orderBy('id');
const bothRoutes = () => ({
  routes: [
    { aggregator: 'dtone', operator_id: '2701', products: { [String(shop.bundleId)]: '91001' } },
    { aggregator: 'sandbox', operator_id: '1650', products: { [String(shop.bundleId)]: '0.40' } },
  ],
});
const putRoutes = (body: object, token = root) => h.http().put(`/api/v1/internet-providers/${providerId}/routes`).set(bearer(token)).send(body);

beforeAll(async () => {
  h = await createHarness({ rechargeMoney: money, routing });
  root = await h.adminToken();
  shop = await makeShop(h, root, 'cost', { balance: '50' });
  kit = await moneyKit(h, { money, worker: { routeHealth: { threshold: 1000 } } });
  routing.operators = kit.operators;
  providerId = Number((await h.knex('providers').where({ code: 'HORSHOP' }).first()).id);
});
afterAll(async () => {
  await kit.close();
  await h.close();
});
beforeEach(async () => {
  kit.standIns.dtone.resetCatalogue();
  kit.standIns.dtone.clearFaults();
  routing.usableAggregator = undefined;
  await h.knex('route_health').delete();
  await h.knex('vendor_health').delete();
  await h.knex('aggregator_products').delete();
  expect((await putRoutes(bothRoutes())).status).toBe(200);
});

describe('GET/PUT /internet-providers/{id}/routes', () => {
  it('answers the routes in order with their health and which bundles they can deliver', async () => {
    const res = await h.http().get(`/api/v1/internet-providers/${providerId}/routes`).set(bearer(root));
    expect(res.status).toBe(200);
    expect(res.body.data.configured).toBe(true);
    expect(res.body.data.routes.map((r: { aggregator: string }) => r.aggregator)).toEqual(['dtone', 'sandbox']);
    expect(res.body.data.routes[0]).toMatchObject({
      position: 1,
      operator_id: '2701',
      products: { [String(shop.bundleId)]: '91001' },
      health: { state: 'healthy' },
    });
    expect(res.body.data.bundles.find((b: { id: number }) => b.id === shop.bundleId)).toMatchObject({ deliverable: true, reason: null });
  });

  it('an empty list goes back to the implicit route (the operator adapter and the bundle code)', async () => {
    const res = await putRoutes({ routes: [] });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ configured: false, routes: [{ aggregator: 'sandbox', operator_id: null, products: {} }] });
  });

  it('refuses bad routes with a message per field and changes nothing', async () => {
    const bad = await putRoutes({
      routes: [
        { aggregator: 'paypal', products: {} },
        { aggregator: 'dtone', operator_id: 'x', products: { abc: '$$' } },
      ],
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(expect.arrayContaining(['routes.0.aggregator', 'routes.1.operator_id']));
    const twice = await putRoutes({
      routes: [
        { aggregator: 'dtone', products: {} },
        { aggregator: 'dtone', products: {} },
      ],
    });
    expect(twice.status).toBe(422);
    expect(twice.body.errors['routes.1.aggregator'][0]).toMatch(/one route only/);
    const other = await h.knex('bundles').whereNot({ id: shop.bundleId }).first('id');
    if (other) {
      const stranger = await h
        .knex('bundles')
        .join('categories', 'categories.id', 'bundles.category_id')
        .whereNot('categories.provider_id', providerId)
        .first('bundles.id');
      if (stranger) {
        const res = await putRoutes({ routes: [{ aggregator: 'dtone', products: { [String(stranger.id)]: '91001' } }] });
        expect(res.status).toBe(422);
        expect(res.body.errors['routes.0.products'][0]).toMatch(/is not one of/);
      }
    }
    const after = await h.http().get(`/api/v1/internet-providers/${providerId}/routes`).set(bearer(root));
    expect(after.body.data.routes.map((r: { aggregator: string }) => r.aggregator)).toEqual(['dtone', 'sandbox']);
    expect((await putRoutes({ routes: [] }, shop.token)).status).toBe(403);
    expect((await h.http().get(`/api/v1/internet-providers/${providerId}/routes`).set(bearer(shop.token))).status).toBe(403);
    expect((await h.http().get('/api/v1/internet-providers/999999/routes').set(bearer(root))).status).toBe(404);
  });

  it('ten replacements at once: no 5xx, and the routes are one of them, whole', async () => {
    const bodies = Array.from({ length: 10 }, (_, i) =>
      i % 2 ? bothRoutes() : { routes: [{ aggregator: 'sandbox', operator_id: '1650', products: { [String(shop.bundleId)]: `0.4${i % 10}` } }] },
    );
    const answers = await Promise.all(bodies.map((b) => putRoutes(b)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    const rows = await h.knex('provider_routes').where({ provider_id: providerId }).orderBy('position');
    expect([1, 2]).toContain(rows.length);
    expect(rows.map((r: { position: number }) => Number(r.position))).toEqual(rows.map((_: unknown, i: number) => i + 1));
    const logged = await h.knex('activity_log').where({ action: 'routes_changed', subject_id: providerId }).count({ n: '*' }).first();
    expect(Number((logged as { n: number }).n)).toBeGreaterThanOrEqual(10);
  });
});

describe('failover', () => {
  it('the first route refuses: the sale is delivered once, by the second, and charged once', async () => {
    const before = await walletBalance(h, shop.walletId);
    const sale = await buy(h, shop, { phone: '0615100002' });
    expect(sale.status).toBe(201);
    await kit.worker.drain();
    const r = await row(sale.body.data.id);
    expect(r).toMatchObject({ status: 'completed', operator_adapter: 'sandbox', routes_refused: 'dtone', payment_state: 'collected' });
    expect(kit.standIns.reloadly.sends(r.reference)).toBe(1);
    expect(kit.standIns.dtone.books().entries.filter((e: { externalId: string }) => e.externalId === r.reference)).toHaveLength(1);
    expect(kit.standIns.waafipay.byReference(r.reference)?.state).toBe('Committed');
    const lines = await routingLines(r.id);
    expect(lines.map((l: { outcome: string }) => l.outcome)).toEqual(expect.arrayContaining(['refused', 'skipped', 'ok']));
    expect(lines.find((l: { outcome: string }) => l.outcome === 'refused').error).toMatch(/next route: sandbox/);
    // The dealer paid the cost once; the ledger agrees with the wallet.
    expect(await walletBalance(h, shop.walletId)).toBe(before - 40);
    expect(await ledgerSum(h.knex, shop.walletId)).toBe(await walletBalance(h, shop.walletId));
    const answer = await h.http().get(`/api/v1/recharges/${r.id}`).set(bearer(root));
    expect(answer.body.data.recharge).toMatchObject({ route: 'sandbox', payment_gateway: 'sandbox' });
    expect(answer.body.data.remote_calls.some((c: { system: string; outcome: string }) => c.system === 'routing' && c.outcome === 'refused')).toBe(true);
  });

  it('the first route loses its answer: the sale is looked up there and never sent to the second', async () => {
    const sale = await buy(h, shop, { phone: '0615100999' });
    await kit.worker.drain();
    const r = await row(sale.body.data.id);
    expect(r).toMatchObject({ status: 'completed', operator_adapter: 'dtone', routes_refused: null });
    expect(kit.standIns.reloadly.sends(r.reference)).toBe(0);
    const lookups = await h.knex('remote_calls').where({ recharge_id: r.id, system: 'dtone' }).where('method', 'GET');
    expect(lookups.length).toBeGreaterThan(0);
  });

  it('a sale whose top-up is in flight keeps its route when the routes change', async () => {
    const sale = await buy(h, shop, { phone: '0615100998' });
    const worker = kit.newWorker({ reviewAfterMs: 300 });
    await worker.drain();
    expect((await row(sale.body.data.id)).status).toBe('needs_review');
    expect((await putRoutes({ routes: [{ aggregator: 'sandbox', operator_id: '1650', products: { [String(shop.bundleId)]: '0.40' } }] })).status).toBe(200);
    const r = await row(sale.body.data.id);
    expect(r).toMatchObject({ operator_adapter: 'dtone', delivery_state: 'processing' });
    await worker.reconcile();
    expect(kit.standIns.reloadly.sends(r.reference)).toBe(0);
  });

  it('a top-up that may have reached a route is sent there again, with its product, even after the routes changed', async () => {
    // The first send is lost before DT One processed it, and DT One cannot be asked for a while.
    const sale = await buy(h, shop, { phone: '0615123452' });
    const reference = (await row(sale.body.data.id)).reference as string;
    kit.standIns.dtone.injectFault({ path: '/v1/async/transactions', externalId: reference }, 'reset-before', 1);
    kit.standIns.dtone.injectFault({ path: '/v1/transactions' }, '503', 15);
    const worker = kit.newWorker({ reviewAfterMs: 20_000, downVendorLookupsPerMinute: 1000 });
    const drained = worker.drain({ timeoutMs: 30_000 });
    for (let i = 0; i < 200 && !(await h.knex('remote_calls').where({ recharge_id: sale.body.data.id, system: 'dtone', outcome: 'unknown' }).first()); i++)
      await new Promise((r) => setTimeout(r, 10));
    // Meanwhile the operator's routes no longer have DT One.
    expect((await putRoutes({ routes: [bothRoutes().routes[1]] })).status).toBe(200);
    await drained;
    const r = await row(sale.body.data.id);
    expect(r).toMatchObject({ status: 'completed', operator_adapter: 'dtone', route_product: '91001', route_operator_id: '2701' });
    expect(kit.standIns.reloadly.sends(reference)).toBe(0);
    expect(kit.standIns.dtone.books().entries.find((e: { externalId: string }) => e.externalId === reference)).toMatchObject({ status: 'COMPLETED' });
  });

  it('while payments are real, a stand-in aggregator is never a route: refused in the routes, passed over by a sale', async () => {
    routing.usableAggregator = (name) => name !== 'sandbox';
    const refused = await putRoutes(bothRoutes());
    expect(refused.status).toBe(422);
    expect(refused.body.errors['routes.1.aggregator'][0]).toMatch(/not configured on this server/);
    routing.usableAggregator = undefined;
    // A sale DT One refuses has nowhere else to go: not delivered, its money returned.
    const worker = kit.newWorker({ usableAggregator: (name) => name !== 'sandbox' });
    const sale = await buy(h, shop, { phone: '0615300002' });
    await worker.drain();
    const r = await row(sale.body.data.id);
    expect(r).toMatchObject({ status: 'failed', delivery_state: 'failed', payment_state: 'released', routes_refused: 'dtone' });
    expect(kit.standIns.reloadly.sends(r.reference)).toBe(0);
  });

  it('a route that keeps failing rests (skipped, in the trail) and is tried again after its rest', async () => {
    const worker = kit.newWorker({ routeHealth: { threshold: 2, windowMs: 60_000, skipMs: 1_500 } });
    for (const phone of ['0615100002', '0615200002']) {
      await buy(h, shop, { phone });
      await worker.drain();
    }
    const health = await h.knex('route_health').where({ provider_id: providerId, aggregator: 'dtone' }).first();
    expect(health.skipped_until).not.toBeNull();
    const routes = await h.http().get(`/api/v1/internet-providers/${providerId}/routes`).set(bearer(root));
    expect(routes.body.data.routes[0].health.state).toBe('skipped');

    const rested = await buy(h, shop, { phone: '0615123450' });
    await worker.drain();
    const r = await row(rested.body.data.id);
    expect(r).toMatchObject({ status: 'completed', operator_adapter: 'sandbox', routes_refused: null });
    expect(kit.standIns.dtone.books().entries.some((e: { externalId: string }) => e.externalId === r.reference)).toBe(false);
    const skipped = (await routingLines(r.id)).find((l: { outcome: string }) => l.outcome === 'skipped');
    expect(skipped).toMatchObject({ operation: 'route dtone' });
    expect(skipped.error).toMatch(/Resting/);

    await new Promise((resolve) => setTimeout(resolve, 1_600));
    const again = await buy(h, shop, { phone: '0615123451' });
    await worker.drain();
    expect(await row(again.body.data.id)).toMatchObject({ status: 'completed', operator_adapter: 'dtone' });
    const cleared = await h.knex('route_health').where({ provider_id: providerId, aggregator: 'dtone' }).first();
    expect(cleared).toMatchObject({ failures: 0, skipped_until: null });
  });
});

describe('the catalogue in step with the aggregators', () => {
  const sync = () => h.http().post('/api/v1/aggregators/sync').set(bearer(root)).send({});

  it('a sync lists the products; a withdrawn product stops the sale before the prompt; its return brings it back', async () => {
    expect((await putRoutes({ routes: [bothRoutes().routes[0]] })).status).toBe(200);
    const first = await sync();
    expect(first.status).toBe(200);
    const dtone = first.body.data.aggregators.find((a: { aggregator: string }) => a.aggregator === 'dtone');
    expect(dtone).toMatchObject({ status: 'ok' });
    expect(dtone.products).toBeGreaterThan(0);
    const listed = await h.http().get('/api/v1/aggregators/dtone/products?operator_id=2701').set(bearer(root));
    expect(listed.status).toBe(200);
    expect(listed.body.data.find((p: { product_id: string }) => p.product_id === '91001')).toMatchObject({ status: 'active', currency: 'USD' });
    expect(listed.body.meta.total).toBe(listed.body.data.length);

    kit.standIns.dtone.withdrawProduct(91001);
    const second = await sync();
    expect(second.body.data.aggregators.find((a: { aggregator: string }) => a.aggregator === 'dtone').withdrawn).toBe(1);
    const gone = await h.http().get('/api/v1/aggregators/dtone/products?operator_id=2701&status=withdrawn').set(bearer(root));
    expect(gone.body.data.map((p: { product_id: string; change: string }) => [p.product_id, p.change])).toEqual([['91001', 'withdrawn']]);

    const charges = (await kit.standIns.waafipay.books()).entries.length;
    const refused = await buy(h, shop);
    expect(refused.status).toBe(422);
    expect(refused.body.errors.bundle_id[0]).toMatch(/cannot be delivered right now/);
    expect((await kit.standIns.waafipay.books()).entries.length).toBe(charges);
    const routes = await h.http().get(`/api/v1/internet-providers/${providerId}/routes`).set(bearer(root));
    expect(routes.body.data.bundles.find((b: { id: number }) => b.id === shop.bundleId)).toMatchObject({ deliverable: false });
    expect(routes.body.data.bundles.find((b: { id: number }) => b.id === shop.bundleId).reason).toMatch(/withdrew product 91001/);
    const shopPage = await h.http().get('/api/v1/client/dealer/providers').set('dealer_code', shop.code);
    expect(JSON.stringify(shopPage.body)).not.toContain(`"id":${shop.bundleId},`);

    kit.standIns.dtone.resetCatalogue();
    const third = await sync();
    expect(third.body.data.aggregators.find((a: { aggregator: string }) => a.aggregator === 'dtone').changed).toBe(1);
    expect((await buy(h, shop)).status).toBe(201);
    await kit.worker.drain();
  });

  it('five syncs at once: no 5xx and one row per product', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => sync()));
    expect(answers.map((a) => a.status)).toEqual(Array(5).fill(200));
    const dupes = await h
      .knex('aggregator_products')
      .select('aggregator', 'operator_id', 'product_id')
      .count({ n: '*' })
      .groupBy('aggregator', 'operator_id', 'product_id')
      .having(h.knex.raw('count(*) > 1'));
    expect(dupes).toEqual([]);
  });

  it('lists connectors with their capabilities, staff only', async () => {
    const res = await h.http().get('/api/v1/connectors').set(bearer(root));
    expect(res.status).toBe(200);
    const names = res.body.data.map((c: { name: string; kind: string }) => `${c.kind}:${c.name}`);
    expect(names).toEqual(expect.arrayContaining(['payment:sandbox', 'delivery:reloadly', 'delivery:dtone', 'delivery:sandbox']));
    expect(res.body.data.find((c: { name: string }) => c.name === 'dtone').capabilities).toMatchObject({ lookupByOwnReference: true, productList: true });
    expect((await h.http().get('/api/v1/connectors').set(bearer(shop.token))).status).toBe(403);
    expect((await h.http().get('/api/v1/aggregators/paypal/products').set(bearer(root))).status).toBe(422);
  });
});
