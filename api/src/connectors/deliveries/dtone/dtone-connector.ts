import { z } from 'zod';
import type { DeliveryConnector, StandInDefinition } from '../../connector.ts';
import { isLive } from '../../connector.ts';
import { dtOneAdapter } from './dtone-adapter.ts';
import { createDtOneStandIn, DTONE_STAND_IN_CREDENTIALS, type DtOneStandIn } from './dtone-stand-in.ts';

const text = z.string().trim().min(1).optional();

/** DT One's DVS API: Basic auth, async transactions under our external_id, its products and balances. */
export const dtoneConnector: DeliveryConnector = {
  kind: 'delivery',
  name: 'dtone',
  env: {
    /** DT One's DVS API with its version, e.g. https://dvs-api.dtone.com/v1 (unset: the stand-in). */
    DTONE_API_URL: z.string().url().optional(),
    DTONE_API_KEY: text,
    DTONE_API_SECRET: text,
  },
  liveUrlKey: 'DTONE_API_URL',
  requiredWhenLive: ['DTONE_API_KEY', 'DTONE_API_SECRET'],
  build: ({ env, trail, http, standInUrls }) =>
    dtOneAdapter(
      isLive(dtoneConnector, env)
        ? { apiUrl: String(env.DTONE_API_URL), apiKey: String(env.DTONE_API_KEY), apiSecret: String(env.DTONE_API_SECRET), timeoutMs: env.OPERATOR_TIMEOUT_MS }
        : { apiUrl: standInUrls.dtone, ...DTONE_STAND_IN_CREDENTIALS, timeoutMs: env.OPERATOR_TIMEOUT_MS },
      { trail, fetch: http },
    ),
};

export const dtoneStandIn: StandInDefinition<DtOneStandIn> = {
  create: (o) => createDtOneStandIn({ latencyMs: o.latencyMs, lostAnswerRate: o.lostAnswerRate, unavailableRate: o.unavailableRate }),
  handler: (s) => s.handle,
  path: '/v1',
};
