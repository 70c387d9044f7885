import { describe, expect, it } from 'vitest';
import { readMoneyEnv } from './money-adapters.ts';
import { readStandInEnv, standInOptionsFrom } from './stand-ins/stand-in-config.ts';

/** The payment and operator configuration, read at start-up: refused when it would lose money. */
const live = {
  WAAFIPAY_URL: 'https://api.waafipay.net/asm',
  WAAFIPAY_MERCHANT_UID: 'M1',
  WAAFIPAY_API_USER_ID: 'U1',
  WAAFIPAY_API_KEY: 'K1',
  WAAFIPAY_STORE_ID: 'S1',
  WAAFIPAY_HPP_KEY: 'H1',
};
const reloadly = {
  RELOADLY_API_URL: 'https://topups.reloadly.com',
  RELOADLY_AUTH_URL: 'https://auth.reloadly.com/oauth/token',
  RELOADLY_CLIENT_ID: 'c',
  RELOADLY_CLIENT_SECRET: 's',
};

describe('the money configuration', () => {
  it('defaults to the stand-ins, and names a missing credential', () => {
    expect(readMoneyEnv({})).toMatchObject({ PAYMENT_ADAPTER: 'waafipay', WAAFIPAY_MODE: 'preauthorize' });
    expect(() => readMoneyEnv({ WAAFIPAY_URL: live.WAAFIPAY_URL })).toThrow(/WAAFIPAY_MERCHANT_UID is required with WAAFIPAY_URL/);
  });

  it('eDahab: its stand-in when unset; EDAHAB_API_URL needs the key, the secret and the agent code', () => {
    expect(readMoneyEnv({}).EDAHAB_API_URL).toBeUndefined();
    expect(() => readMoneyEnv({ EDAHAB_API_URL: 'https://edahab.net/api/api' })).toThrow(/EDAHAB_API_KEY is required with EDAHAB_API_URL/);
    expect(() => readMoneyEnv({ EDAHAB_API_URL: 'https://edahab.net/api/api', EDAHAB_API_KEY: 'k', EDAHAB_API_SECRET: 's' })).toThrow(
      /EDAHAB_AGENT_CODE is required with EDAHAB_API_URL/,
    );
    expect(() => readMoneyEnv({ EDAHAB_API_URL: 'edahab.net' })).toThrow(/EDAHAB_API_URL/);
    const edahab = { EDAHAB_API_URL: 'https://edahab.net/api/api', EDAHAB_API_KEY: 'k', EDAHAB_API_SECRET: 's', EDAHAB_AGENT_CODE: '123456' };
    expect(readMoneyEnv(edahab)).toMatchObject(edahab);
    expect(readStandInEnv({ STAND_IN_EDAHAB_PORT: '4104' }).STAND_IN_EDAHAB_PORT).toBe(4104);
  });

  it('in production, refuses a live aggregator paid by the stand-in gateway (bundles delivered for nothing)', () => {
    expect(() => readMoneyEnv({ NODE_ENV: 'production', ...reloadly })).toThrow(/needs WAAFIPAY_URL/);
    expect(() => readMoneyEnv({ NODE_ENV: 'production', PAYMENT_ADAPTER: 'sandbox', ...live, ...reloadly })).toThrow(/needs WAAFIPAY_URL/);
    expect(readMoneyEnv({ NODE_ENV: 'production', ...live, ...reloadly }).RELOADLY_API_URL).toBe(reloadly.RELOADLY_API_URL);
    // Trying Reloadly's sandbox from a development machine stays possible.
    expect(readMoneyEnv({ NODE_ENV: 'development', ...reloadly }).RELOADLY_API_URL).toBe(reloadly.RELOADLY_API_URL);
  });
});

describe("the stand-ins' field conditions", () => {
  it("default to today's behaviour: 1500 and 800 ms around, no faults, any free port", () => {
    expect(readMoneyEnv({})).toMatchObject({
      PAYMENT_SANDBOX_APPROVAL_MS: 1500,
      OPERATOR_SANDBOX_LATENCY_MS: 800,
      STAND_IN_LOST_ANSWER_RATE: 0,
      STAND_IN_UNAVAILABLE_RATE: 0,
      STAND_IN_WAAFIPAY_PORT: 0,
      STAND_IN_RELOADLY_PORT: 0,
    });
  });

  it('take a number or a range of milliseconds, and shares of first requests', () => {
    const env = readMoneyEnv({
      PAYMENT_SANDBOX_APPROVAL_MS: '5000-40000',
      OPERATOR_SANDBOX_LATENCY_MS: '1000-5000',
      STAND_IN_LOST_ANSWER_RATE: '0.02',
      STAND_IN_UNAVAILABLE_RATE: '0.01',
    });
    expect(standInOptionsFrom(env)).toMatchObject({
      approvalMs: { min: 5000, max: 40000 },
      latencyMs: { min: 1000, max: 5000 },
      lostAnswerRate: 0.02,
      unavailableRate: 0.01,
    });
    expect(readMoneyEnv({ PAYMENT_SANDBOX_APPROVAL_MS: '0' }).PAYMENT_SANDBOX_APPROVAL_MS).toBe(0);
    expect(readStandInEnv({ OPERATOR_SANDBOX_LATENCY_MS: '250', STAND_IN_WAAFIPAY_PORT: '4100' })).toMatchObject({
      OPERATOR_SANDBOX_LATENCY_MS: 250,
      STAND_IN_WAAFIPAY_PORT: 4100,
    });
  });

  it('refuse a range the wrong way round, a rate outside 0..1, and rates adding up to more than 1', () => {
    expect(() => readMoneyEnv({ PAYMENT_SANDBOX_APPROVAL_MS: '40000-5000' })).toThrow(/PAYMENT_SANDBOX_APPROVAL_MS: must be milliseconds/);
    expect(() => readMoneyEnv({ OPERATOR_SANDBOX_LATENCY_MS: 'fast' })).toThrow(/OPERATOR_SANDBOX_LATENCY_MS/);
    expect(() => readMoneyEnv({ STAND_IN_LOST_ANSWER_RATE: '2' })).toThrow(/STAND_IN_LOST_ANSWER_RATE/);
    expect(() => readMoneyEnv({ STAND_IN_LOST_ANSWER_RATE: '0.6', STAND_IN_UNAVAILABLE_RATE: '0.5' })).toThrow(/add up to at most 1/);
    expect(() => readStandInEnv({ STAND_IN_LOST_ANSWER_RATE: '0.6', STAND_IN_UNAVAILABLE_RATE: '0.5' })).toThrow(/add up to at most 1/);
  });
});
