import { z } from 'zod';
import type { PaymentConnector, StandInDefinition } from '../../connector.ts';
import { isLive } from '../../connector.ts';
import { waafiPayAdapter } from './waafipay-adapter.ts';
import { createWaafiPayStandIn, type WaafiPayStandIn } from './waafipay-stand-in.ts';

const text = z.string().trim().min(1).optional();

/** WaafiPay (EVC Plus, Zaad, Sahal): a PIN prompt, a reserve committed on delivery, refunds after capture. */
export const waafipayConnector: PaymentConnector = {
  kind: 'payment',
  name: 'waafipay',
  env: {
    WAAFIPAY_URL: z.string().url().optional(),
    WAAFIPAY_MERCHANT_UID: text,
    WAAFIPAY_API_USER_ID: text,
    WAAFIPAY_API_KEY: text,
    WAAFIPAY_STORE_ID: text,
    WAAFIPAY_HPP_KEY: text,
  },
  liveUrlKey: 'WAAFIPAY_URL',
  requiredWhenLive: ['WAAFIPAY_MERCHANT_UID', 'WAAFIPAY_API_USER_ID', 'WAAFIPAY_API_KEY', 'WAAFIPAY_STORE_ID', 'WAAFIPAY_HPP_KEY'],
  // Unconfigured, a method set to `waafipay` is charged through the sandbox (payment-gateways.ts aliases).
  build: ({ env, trail, http }) =>
    isLive(waafipayConnector, env)
      ? waafiPayAdapter(
          {
            url: String(env.WAAFIPAY_URL),
            merchantUid: String(env.WAAFIPAY_MERCHANT_UID),
            apiUserId: String(env.WAAFIPAY_API_USER_ID),
            apiKey: String(env.WAAFIPAY_API_KEY),
            storeId: String(env.WAAFIPAY_STORE_ID),
            hppKey: String(env.WAAFIPAY_HPP_KEY),
            flow: env.WAAFIPAY_MODE,
            chargeTimeoutMs: env.PAYMENT_TIMEOUT_MS,
            timeoutMs: env.PAYMENT_CALL_TIMEOUT_MS,
          },
          { trail, fetch: http },
        )
      : null,
};

export const waafipayStandIn: StandInDefinition<WaafiPayStandIn> = {
  create: (o) =>
    createWaafiPayStandIn({ approvalMs: o.approvalMs, dialect: o.waafipayDialect, lostAnswerRate: o.lostAnswerRate, unavailableRate: o.unavailableRate }),
  handler: (s) => s.handle,
  path: '/asm',
};
