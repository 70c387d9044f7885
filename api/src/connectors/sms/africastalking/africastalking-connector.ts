import type { StandInDefinition } from '../../connector.ts';
import { createAfricasTalkingStandIn, type AfricasTalkingStandIn } from './africastalking-stand-in.ts';

/**
 * Africa's Talking's stand-in, served with the others (registry.ts STAND_INS): the SMS receipts'
 * default while AFRICASTALKING_API_URL is unset (sms/sms-config.ts). Its base is the full
 * /version1/messaging URL, as AFRICASTALKING_API_URL is.
 */
export const africasTalkingStandIn: StandInDefinition<AfricasTalkingStandIn> = {
  create: () => createAfricasTalkingStandIn(),
  handler: (s) => s.handle,
  path: '/version1/messaging',
};
