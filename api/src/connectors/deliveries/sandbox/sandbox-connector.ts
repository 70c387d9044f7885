import type { DeliveryConnector } from '../../connector.ts';
import { reloadlyOnStandIn } from '../reloadly/reloadly-connector.ts';

/**
 * The sandbox aggregator: Reloadly's protocol against the embedded stand-in, with its test numbers.
 * Always there: operators on the `sandbox` adapter (the demo's) deliver through it whatever is configured.
 */
export const sandboxDeliveryConnector: DeliveryConnector = {
  kind: 'delivery',
  name: 'sandbox',
  env: {},
  liveUrlKey: null,
  requiredWhenLive: [],
  build: (ctx) => reloadlyOnStandIn(ctx, 'sandbox'),
};
