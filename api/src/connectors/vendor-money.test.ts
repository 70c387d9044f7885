import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RemoteTrail } from './remote-call.ts';
import { startStandInServer, type RunningStandIn } from './stand-ins/stand-in-server.ts';
import { currencyCode, rateText, vendorCents, vendorInstant } from './vendor-money.ts';
import { createWaafiPayStandIn, WAAFIPAY_STAND_IN_CREDENTIALS } from './payments/waafipay/waafipay-stand-in.ts';
import { waafiMoney, waafiPayAdapter } from './payments/waafipay/waafipay-adapter.ts';
import { edahabAdapter, edahabMoney } from './payments/edahab/edahab-adapter.ts';
import { createEdahabStandIn, EDAHAB_STAND_IN_CREDENTIALS } from './payments/edahab/edahab-stand-in.ts';
import { reloadlyMoney } from './deliveries/reloadly/reloadly-adapter.ts';
import { dtOneMoney } from './deliveries/dtone/dtone-adapter.ts';

/**
 * What the vendors say they took, charged and cost (issue 26): read from their answers into cents,
 * every odd or missing field left out rather than guessed or failing the sale. The gateways'
 * adapters against their stand-ins over HTTP: WaafiPay's charge and lookup carry `txAmount` and
 * `merchantCharges`; eDahab's documented answers carry no amount, so it says nothing. No database.
 */
const trail: RemoteTrail = async () => undefined;
const forWhom = { rechargeId: null };

describe('reading vendors’ amounts', () => {
  it('turns decimal amounts into cents through their text, truncating, rounding up or to the nearest as asked', () => {
    expect(vendorCents('5.00')).toBe(500);
    expect(vendorCents(0.29)).toBe(29);
    expect(vendorCents('12.349', 'down')).toBe(1234);
    expect(vendorCents('12.341', 'up')).toBe(1235);
    expect(vendorCents('12.340000', 'up')).toBe(1234);
    expect(vendorCents(0.405, 'nearest')).toBe(41);
    expect(vendorCents(1e-7, 'up')).toBe(1);
    for (const odd of [null, undefined, '', 'abc', -1, '-1.00', Number.NaN, Infinity, {}, '1,5']) expect(vendorCents(odd)).toBeNull();
    expect(currencyCode('usd')).toBe('USD');
    expect(currencyCode('dollars')).toBeNull();
    expect(rateText(1)).toBe('1');
    expect(rateText('0.0017')).toBe('0.0017');
    expect(rateText('0')).toBeNull();
    expect(vendorInstant('2026-01-10 10:00:00')).toBe('2026-01-10T10:00:00.000Z');
    expect(vendorInstant('2026-01-10T13:00:00+03:00')).toBe('2026-01-10T10:00:00.000Z');
    expect(vendorInstant('soon')).toBeNull();
  });

  it('WaafiPay: txAmount truncated, merchantCharges, the answer’s currency or the one charged in; odd fields left out', () => {
    expect(waafiMoney({ txAmount: '5.009', merchantCharges: '0.05' }, 'USD')).toEqual({ amount: 500, charges: 5, currency: 'USD' });
    expect(waafiMoney({ txAmount: 2, currency: 'SLS' })).toEqual({ amount: 200, currency: 'SLS' });
    expect(waafiMoney({ txAmount: 'five', merchantCharges: null }, 'USD')).toEqual({});
    expect(waafiMoney([], 'USD')).toEqual({});
  });

  it('eDahab: only an answer that names an Amount says what was taken', () => {
    expect(edahabMoney({ InvoiceStatus: 'Paid', InvoiceId: 7 }, 'USD')).toEqual({});
    expect(edahabMoney({ InvoiceStatus: 'Paid', Amount: 1.5 }, 'USD')).toEqual({ amount: 150, currency: 'USD' });
  });

  it('Reloadly: the cost is the requested amount less the discount, else what left the float; the delivered amount only once positive', () => {
    const tx = {
      requestedAmount: 5,
      requestedAmountCurrencyCode: 'USD',
      discount: 0.2,
      discountCurrencyCode: 'USD',
      deliveredAmount: 850,
      deliveredAmountCurrencyCode: 'KES',
      fx: { rate: 170, currencyCode: 'KES' },
    };
    expect(reloadlyMoney(tx)).toEqual({
      cost: 480,
      costCurrency: 'USD',
      discount: 20,
      fxRate: '170',
      deliveredAmount: 85_000,
      deliveredCurrency: 'KES',
    });
    expect(reloadlyMoney({ ...tx, discount: 'n/a', balanceInfo: { oldBalance: 100, newBalance: 95.2, currencyCode: 'USD' } })).toMatchObject({
      cost: 480,
      costCurrency: 'USD',
    });
    expect(reloadlyMoney({ requestedAmount: 5, deliveredAmount: 0 })).toEqual({});
  });

  it('DT One: the cost is wholesale amount + fee (up to the cent), delivered the first benefit in money', () => {
    const tx = {
      prices: { wholesale: { amount: 0.4, fee: 0.004, unit: 'USD', unit_type: 'CURRENCY' } },
      benefits: [
        { type: 'DATA', unit: 'GB', unit_type: 'DATA', amount: { base: 1, total_excluding_tax: 1 } },
        { type: 'CREDITS', unit: 'USD', unit_type: 'CURRENCY', amount: { base: 0.5, total_excluding_tax: 0.5 } },
      ],
    };
    expect(dtOneMoney(tx)).toEqual({ cost: 41, costCurrency: 'USD', fee: 1, deliveredAmount: 50, deliveredCurrency: 'USD' });
    expect(dtOneMoney({ prices: { wholesale: { amount: 'x', unit: 'USD' } } })).toEqual({});
    expect(dtOneMoney({ prices: { wholesale: { amount: 1, fee: -1, unit: 'USD' } } })).toEqual({});
  });
});

describe('the gateways’ answers, over HTTP against their stand-ins', () => {
  let waafi: RunningStandIn;
  let edahab: RunningStandIn;
  beforeAll(async () => {
    waafi = await startStandInServer(createWaafiPayStandIn({ approvalMs: 2 }).handle);
    edahab = await startStandInServer(createEdahabStandIn({ approvalMs: 2 }).handle);
  });
  afterAll(async () => {
    await waafi.close();
    await edahab.close();
  });

  it('WaafiPay: an approved charge and its lookup carry what was taken and the gateway’s 1 % charges', async () => {
    const adapter = waafiPayAdapter(
      { url: `${waafi.url}/asm`, ...WAAFIPAY_STAND_IN_CREDENTIALS, flow: 'purchase', chargeTimeoutMs: 2000, timeoutMs: 2000 },
      { trail },
    );
    const request = { referenceId: 'MONEY-W-1', payerPhone: '615551234', amount: 1250, currency: 'USD', description: 'Hormuud 5 GB' };
    expect(await adapter.charge(request, forWhom)).toEqual({
      status: 'approved',
      transactionId: expect.any(String),
      amount: 1250,
      charges: 12,
      currency: 'USD',
    });
    expect(await adapter.lookup('MONEY-W-1', forWhom)).toEqual({
      status: 'found',
      state: 'approved',
      transactionId: expect.any(String),
      amount: 1250,
      charges: 12,
      currency: 'USD',
    });
    // The smallest amount still pays a cent.
    expect(await adapter.charge({ ...request, referenceId: 'MONEY-W-2', amount: 20 }, forWhom)).toMatchObject({ amount: 20, charges: 1 });
  });

  it('eDahab: its answers name no amount, so an approved charge says nothing of it', async () => {
    const adapter = edahabAdapter({ apiUrl: `${edahab.url}/api/api`, ...EDAHAB_STAND_IN_CREDENTIALS, chargeTimeoutMs: 2000, timeoutMs: 2000 }, { trail });
    const charged = await adapter.charge({ referenceId: 'MONEY-E-1', payerPhone: '655551234', amount: 150, currency: 'USD', description: 'Somtel' }, forWhom);
    expect(charged).toEqual({ status: 'approved', transactionId: expect.any(String) });
  });
});
