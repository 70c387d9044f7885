import { z } from 'zod';
import type { PaymentConnector, StandInDefinition } from '../../connector.ts';
import { isLive } from '../../connector.ts';
import type { PaymentAdapter } from '../payment-adapter.ts';
import { edahabAdapter } from './edahab-adapter.ts';
import { createEdahabStandIn, EDAHAB_STAND_IN_CREDENTIALS, type EdahabStandIn } from './edahab-stand-in.ts';

const text = z.string().trim().min(1).optional();

/** A gateway that answers about the payments it took but charges no new one: declined, nothing sent. */
function noNewCharges(gateway: PaymentAdapter, why: string): PaymentAdapter {
  return { ...gateway, charge: async () => ({ status: 'declined', code: 'not_configured', message: why }) };
}

/** eDahab (Somtel's wallet, its own API): a PIN prompt, taken at once, no refund (paid back by hand). */
export const edahabConnector: PaymentConnector = {
  kind: 'payment',
  name: 'edahab',
  env: {
    /** eDahab's API base, e.g. https://edahab.net/api/api (unset: the stand-in). */
    EDAHAB_API_URL: z.string().url().optional(),
    EDAHAB_API_KEY: text,
    EDAHAB_API_SECRET: text,
    EDAHAB_AGENT_CODE: text,
  },
  liveUrlKey: 'EDAHAB_API_URL',
  requiredWhenLive: ['EDAHAB_API_KEY', 'EDAHAB_API_SECRET', 'EDAHAB_AGENT_CODE'],
  build: ({ env, trail, http, standInUrls, livePayment }) => {
    if (isLive(edahabConnector, env))
      return edahabAdapter(
        {
          apiUrl: String(env.EDAHAB_API_URL),
          apiKey: String(env.EDAHAB_API_KEY),
          apiSecret: String(env.EDAHAB_API_SECRET),
          agentCode: String(env.EDAHAB_AGENT_CODE),
          // eDahab's call waits for the payer's PIN: allow it about two minutes (a lost answer goes to a person).
          chargeTimeoutMs: Math.max(env.PAYMENT_TIMEOUT_MS, 120_000),
          timeoutMs: env.PAYMENT_CALL_TIMEOUT_MS,
        },
        { trail, fetch: http },
      );
    const standIn = edahabAdapter(
      { apiUrl: standInUrls.edahab, ...EDAHAB_STAND_IN_CREDENTIALS, chargeTimeoutMs: env.PAYMENT_TIMEOUT_MS, timeoutMs: env.PAYMENT_CALL_TIMEOUT_MS },
      { trail, fetch: http },
    );
    // A shop with a real gateway takes no play money (as the `sandbox` gateway is refused): the
    // stand-in still answers about the sales it took, but charges no new one.
    return livePayment
      ? noNewCharges(
          standIn,
          'eDahab is not configured here (EDAHAB_API_URL), and its stand-in takes no payments while a real gateway is: set this payment method to another gateway, or configure eDahab.',
        )
      : standIn;
  },
};

export const edahabStandIn: StandInDefinition<EdahabStandIn> = {
  create: (o) => createEdahabStandIn({ approvalMs: o.approvalMs, lostAnswerRate: o.lostAnswerRate, unavailableRate: o.unavailableRate }),
  handler: (s) => s.handle,
  path: '/api/api',
};
