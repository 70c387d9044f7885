import { describe, expect, it } from 'vitest';
import { readMoneyEnv } from './money-adapters.ts';

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

  it('in production, refuses a live aggregator paid by the stand-in gateway (bundles delivered for nothing)', () => {
    expect(() => readMoneyEnv({ NODE_ENV: 'production', ...reloadly })).toThrow(/needs WAAFIPAY_URL/);
    expect(() => readMoneyEnv({ NODE_ENV: 'production', PAYMENT_ADAPTER: 'sandbox', ...live, ...reloadly })).toThrow(/needs WAAFIPAY_URL/);
    expect(readMoneyEnv({ NODE_ENV: 'production', ...live, ...reloadly }).RELOADLY_API_URL).toBe(reloadly.RELOADLY_API_URL);
    // Trying Reloadly's sandbox from a development machine stays possible.
    expect(readMoneyEnv({ NODE_ENV: 'development', ...reloadly }).RELOADLY_API_URL).toBe(reloadly.RELOADLY_API_URL);
  });
});
