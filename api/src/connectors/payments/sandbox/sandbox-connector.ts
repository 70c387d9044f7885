import type { PaymentConnector } from '../../connector.ts';
import { waafiPayAdapter } from '../waafipay/waafipay-adapter.ts';
import { WAAFIPAY_STAND_IN_CREDENTIALS } from '../waafipay/waafipay-stand-in.ts';

/**
 * The sandbox gateway: WaafiPay's protocol against the embedded stand-in, with its test numbers. Always
 * there, so sales it took are settled through it after a real gateway is configured; a shop with a
 * real gateway takes no new payment through it (fulfilment/sale-steps.ts).
 */
export const sandboxPaymentConnector: PaymentConnector = {
  kind: 'payment',
  name: 'sandbox',
  env: {},
  liveUrlKey: null,
  requiredWhenLive: [],
  build: ({ env, trail, http, standInUrls }) =>
    waafiPayAdapter(
      {
        url: standInUrls.waafipay,
        ...WAAFIPAY_STAND_IN_CREDENTIALS,
        flow: env.WAAFIPAY_MODE,
        chargeTimeoutMs: env.PAYMENT_TIMEOUT_MS,
        timeoutMs: env.PAYMENT_CALL_TIMEOUT_MS,
      },
      { trail, fetch: http, name: 'sandbox' },
    ),
};
