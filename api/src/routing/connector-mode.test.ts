import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createHarness, FORBIDDEN, type Harness } from '../../../tests/api/harness.ts';
import { makeShop } from '../recharges/recharge-fixtures.ts';
import { moneyAdapters, readMoneyEnv, startStandIns, type MoneyAdapters, type StandIns } from '../connectors/money-adapters.ts';
import { WAAFIPAY_STAND_IN_CREDENTIALS } from '../connectors/payments/waafipay/waafipay-stand-in.ts';
import { RELOADLY_STAND_IN_CREDENTIALS } from '../connectors/deliveries/reloadly/reloadly-stand-in.ts';
import { EDAHAB_STAND_IN_CREDENTIALS } from '../connectors/payments/edahab/edahab-stand-in.ts';
import { databaseTrail } from '../recharges/remote-calls.ts';
import { setSmsReceipts } from '../sms/sms-config.ts';
import type { RoutingDeps } from './routing.routes.ts';

/**
 * GET /connectors/mode (issue 28 item 12): whether this server's payments, deliveries and SMS
 * receipts are real, for the console's "Sandbox" chip. The adapters are built from the environment
 * as the server builds them: the default (every vendor its stand-in), then a "real" WaafiPay and
 * Reloadly (their URLs pointed at the stand-ins, as test-mode.test.ts plays the live vendors).
 */
let h: Harness;
let root: string;
let standIns: StandIns;
const built: MoneyAdapters[] = [];
const routing: RoutingDeps = {};

const WAAFIPAY = {
  WAAFIPAY_MERCHANT_UID: WAAFIPAY_STAND_IN_CREDENTIALS.merchantUid,
  WAAFIPAY_API_USER_ID: WAAFIPAY_STAND_IN_CREDENTIALS.apiUserId,
  WAAFIPAY_API_KEY: WAAFIPAY_STAND_IN_CREDENTIALS.apiKey,
  WAAFIPAY_STORE_ID: WAAFIPAY_STAND_IN_CREDENTIALS.storeId,
  WAAFIPAY_HPP_KEY: WAAFIPAY_STAND_IN_CREDENTIALS.hppKey,
};
const edahab = () => ({
  EDAHAB_API_URL: standIns.edahabUrl,
  EDAHAB_API_KEY: EDAHAB_STAND_IN_CREDENTIALS.apiKey,
  EDAHAB_API_SECRET: EDAHAB_STAND_IN_CREDENTIALS.apiSecret,
  EDAHAB_AGENT_CODE: EDAHAB_STAND_IN_CREDENTIALS.agentCode,
});
const reloadly = () => ({
  RELOADLY_API_URL: standIns.reloadlyUrl,
  RELOADLY_AUTH_URL: `${standIns.reloadlyUrl}/oauth/token`,
  RELOADLY_CLIENT_ID: RELOADLY_STAND_IN_CREDENTIALS.clientId,
  RELOADLY_CLIENT_SECRET: RELOADLY_STAND_IN_CREDENTIALS.clientSecret,
});

/** The server's adapters for this environment, handed to the app as server.ts hands them. */
async function configure(env: NodeJS.ProcessEnv) {
  const adapters = await moneyAdapters(readMoneyEnv(env), { trail: databaseTrail(h.knex), standIns });
  built.push(adapters);
  Object.assign(routing, { operators: adapters.operators, gateways: adapters.gateways, live: adapters.live, usableAggregator: adapters.usableAggregator });
  return adapters;
}
const mode = (token = root) => h.http().get('/api/v1/connectors/mode').set(bearer(token));

beforeAll(async () => {
  h = await createHarness({ routing });
  root = await h.adminToken();
  standIns = await startStandIns({ approvalMs: 5, latencyMs: 5, inProcess: true });
  setSmsReceipts(true);
});
afterAll(async () => {
  setSmsReceipts(false);
  delete process.env.AFRICASTALKING_API_URL;
  await Promise.all(built.map((a) => a.close()));
  await standIns?.close();
  await h.close();
});

describe('GET /connectors/mode', () => {
  it('the default configuration: everything is a stand-in, and nothing more is said', async () => {
    await configure({});
    const res = await mode();
    expect(res.status).toBe(200);
    // No names, URLs or settings: only the three modes.
    expect(res.body.data).toEqual({ payments: 'sandbox', deliveries: 'sandbox', sms: 'sandbox' });
  });

  it('a real WaafiPay and Reloadly: payments live, and deliveries live (only the real aggregator may deliver)', async () => {
    const adapters = await configure({ WAAFIPAY_URL: standIns.waafipayUrl, ...WAAFIPAY, ...reloadly() });
    expect(adapters.live).toEqual(expect.arrayContaining(['waafipay', 'reloadly']));
    expect((await mode()).body.data).toEqual({ payments: 'live', deliveries: 'live', sms: 'sandbox' });
  });

  it('a real Reloadly beside the stand-in gateway: payments sandbox, deliveries mixed (the stand-in aggregators still deliver)', async () => {
    await configure({ ...reloadly() });
    expect((await mode()).body.data).toEqual({ payments: 'sandbox', deliveries: 'mixed', sms: 'sandbox' });
  });

  it('a real eDahab beside the stand-in gateway: payments mixed (eDahab payers are charged, the others are not)', async () => {
    const adapters = await configure({ ...edahab() });
    expect(adapters.live).toEqual(['edahab']);
    expect((await mode()).body.data).toEqual({ payments: 'mixed', deliveries: 'sandbox', sms: 'sandbox' });
  });

  it('a real eDahab and WaafiPay with a real Reloadly: payments live', async () => {
    await configure({ WAAFIPAY_URL: standIns.waafipayUrl, ...WAAFIPAY, ...edahab(), ...reloadly() });
    expect((await mode()).body.data).toEqual({ payments: 'live', deliveries: 'live', sms: 'sandbox' });
  });

  it('a real WaafiPay beside the eDahab stand-in (which then takes no new charge): payments live; no real aggregator: deliveries none', async () => {
    const adapters = await configure({ WAAFIPAY_URL: standIns.waafipayUrl, ...WAAFIPAY });
    expect(adapters.live).toEqual(['waafipay']);
    // Only a real aggregator may deliver while payments are real, and there is none.
    expect((await mode()).body.data).toEqual({ payments: 'live', deliveries: 'none', sms: 'sandbox' });
  });

  it("SMS: live with Africa's Talking configured, off when no receipt is written", async () => {
    await configure({});
    process.env.AFRICASTALKING_API_URL = 'https://api.africastalking.com/version1/messaging';
    try {
      expect((await mode()).body.data.sms).toBe('live');
    } finally {
      delete process.env.AFRICASTALKING_API_URL;
    }
    setSmsReceipts(false);
    try {
      expect((await mode()).body.data.sms).toBe('off');
    } finally {
      setSmsReceipts(true);
    }
  });

  it("every dashboard reader may ask, a dealer too; without 'view dashboard' 403, signed out 401", async () => {
    await configure({});
    const reader = await h.userWith(['view dashboard']);
    expect((await mode(reader.token)).status).toBe(200);
    const shop = await makeShop(h, root, 'cost');
    const dealer = await mode(shop.token);
    expect(dealer.status).toBe(200);
    expect(dealer.body.data.payments).toBe('sandbox');
    const noDashboard = await h.userWith(['view delivery routes']);
    const refused = await mode(noDashboard.token);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject(FORBIDDEN);
    expect((await h.http().get('/api/v1/connectors/mode')).status).toBe(401);
  });
});
