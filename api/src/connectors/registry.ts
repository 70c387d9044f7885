import type { DeliveryConnector, PaymentConnector } from './connector.ts';
import { sandboxPaymentConnector } from './payments/sandbox/sandbox-connector.ts';
import { waafipayConnector, waafipayStandIn } from './payments/waafipay/waafipay-connector.ts';
import { edahabConnector, edahabStandIn } from './payments/edahab/edahab-connector.ts';
import { sandboxDeliveryConnector } from './deliveries/sandbox/sandbox-connector.ts';
import { reloadlyConnector, reloadlyStandIn } from './deliveries/reloadly/reloadly-connector.ts';
import { dtoneConnector, dtoneStandIn } from './deliveries/dtone/dtone-connector.ts';
import { africasTalkingStandIn } from './sms/africastalking/africastalking-connector.ts';

/**
 * Every connector this product has (docs/integrations.md, "Connectors"): a vendor is its folder
 * and its line here. money-adapters.ts builds each from the configuration; the stand-ins' server,
 * thread and process start each stand-in listed.
 */
export const PAYMENT_CONNECTORS: PaymentConnector[] = [sandboxPaymentConnector, waafipayConnector, edahabConnector];
export const DELIVERY_CONNECTORS: DeliveryConnector[] = [sandboxDeliveryConnector, reloadlyConnector, dtoneConnector];

/** The vendors' stand-ins, by the name their URLs and settings (STAND_IN_<NAME>_PORT) carry. */
export const STAND_INS = {
  waafipay: waafipayStandIn,
  reloadly: reloadlyStandIn,
  dtone: dtoneStandIn,
  edahab: edahabStandIn,
  africastalking: africasTalkingStandIn,
};
export type StandInName = keyof typeof STAND_INS;
export const STAND_IN_NAMES = Object.keys(STAND_INS) as StandInName[];
/** Each stand-in's own type (its books, its faults, its catalogue controls). */
export type StandInsByName = { [K in StandInName]: ReturnType<(typeof STAND_INS)[K]['create']> };
