import { z } from 'zod';
import type { BuildContext, DeliveryConnector, StandInDefinition } from '../../connector.ts';
import { isLive } from '../../connector.ts';
import { reloadlyAdapter } from './reloadly-adapter.ts';
import { createReloadlyStandIn, RELOADLY_STAND_IN_CREDENTIALS, type ReloadlyStandIn } from './reloadly-stand-in.ts';

const text = z.string().trim().min(1).optional();

/** Reloadly against the embedded stand-in, under `name`. */
export const reloadlyOnStandIn = ({ env, trail, http, standInUrls }: BuildContext, name: string) =>
  reloadlyAdapter(
    {
      authUrl: `${standInUrls.reloadly}/oauth/token`,
      apiUrl: standInUrls.reloadly,
      clientId: RELOADLY_STAND_IN_CREDENTIALS.clientId,
      clientSecret: RELOADLY_STAND_IN_CREDENTIALS.clientSecret,
      timeoutMs: env.OPERATOR_TIMEOUT_MS,
    },
    { trail, fetch: http, name },
  );

/** Reloadly's top-ups API: OAuth, sends under our reference, reports by it, its catalogue and float. */
export const reloadlyConnector: DeliveryConnector = {
  kind: 'delivery',
  name: 'reloadly',
  env: {
    RELOADLY_AUTH_URL: z.string().url().optional(),
    RELOADLY_API_URL: z.string().url().optional(),
    RELOADLY_CLIENT_ID: text,
    RELOADLY_CLIENT_SECRET: text,
  },
  liveUrlKey: 'RELOADLY_API_URL',
  requiredWhenLive: ['RELOADLY_AUTH_URL', 'RELOADLY_CLIENT_ID', 'RELOADLY_CLIENT_SECRET'],
  build: (ctx) =>
    isLive(reloadlyConnector, ctx.env)
      ? reloadlyAdapter(
          {
            authUrl: String(ctx.env.RELOADLY_AUTH_URL),
            apiUrl: String(ctx.env.RELOADLY_API_URL),
            clientId: String(ctx.env.RELOADLY_CLIENT_ID),
            clientSecret: String(ctx.env.RELOADLY_CLIENT_SECRET),
            timeoutMs: ctx.env.OPERATOR_TIMEOUT_MS,
          },
          { trail: ctx.trail, fetch: ctx.http },
        )
      : reloadlyOnStandIn(ctx, 'reloadly'),
};

export const reloadlyStandIn: StandInDefinition<ReloadlyStandIn> = {
  create: (o) =>
    createReloadlyStandIn({ latencyMs: o.latencyMs, processingPolls: o.processingPolls, lostAnswerRate: o.lostAnswerRate, unavailableRate: o.unavailableRate }),
  handler: (s) => s.combinedHandle,
  path: '',
};
