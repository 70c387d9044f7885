import crypto from 'node:crypto';
import { drawMillis, faultQueue, type Millis, type StandInAnswer, type StandInHandler, type StandInRequest } from '../../stand-ins/stand-in-server.ts';

/**
 * Africa's Talking's SMS API as the embedded stand-in (docs/integrations.md, "SMS receipts"):
 * `POST /version1/messaging` with the `apiKey` header and a form body (`username`, `to` comma
 * separated, `message`, `from?`), answered as the vendor does:
 * `{SMSMessageData: {Message, Recipients: [{statusCode, number, status, cost, messageId}]}}`.
 *
 * Per recipient: 101 Success (sent, not yet delivered) for a Somali number (+252 and 8 or 9 digits),
 * 403 InvalidPhoneNumber for anything else and for the refused test number +252610000403, 406
 * UserInBlacklist for +252610000406. A wrong username or key answers 401 (the vendor's text).
 *
 * Faults, by number (injectFault): `unavailable` (HTTP 500, nothing sent), `lost` (sent, then the
 * connection reset: the caller cannot tell), `slow` (never answers: the caller's timeout decides).
 * `GET /_standin/books` (the stand-in's own path) lists what was sent.
 */
export const AFRICASTALKING_STAND_IN_CREDENTIALS = { username: 'sandbox', apiKey: 'atsk_stand_in_key' } as const;
export const AT_REFUSED_NUMBER = '+252610000403';
export const AT_BLACKLISTED_NUMBER = '+252610000406';

export type AfricasTalkingFault = 'unavailable' | 'lost' | 'slow';

export interface AfricasTalkingSent {
  messageId: string;
  number: string;
  message: string;
  from: string | null;
  statusCode: number;
  at: string;
}

export interface AfricasTalkingStandIn {
  handle: StandInHandler;
  /** Every recipient answered 101, in order. */
  sent(): AfricasTalkingSent[];
  /** The next `times` sends to this number (or any number: `*`) get the fault. */
  injectFault(number: string, fault: AfricasTalkingFault, times?: number): void;
  clearFaults(): void;
  reset(): void;
}

const SOMALI = /^\+252\d{8,9}$/;

export function createAfricasTalkingStandIn(opts: { latencyMs?: Millis } = {}): AfricasTalkingStandIn {
  let sent: AfricasTalkingSent[] = [];
  const faults = faultQueue<{ number: string }, AfricasTalkingFault>();
  const anyFaults = faultQueue<{ all: string }, AfricasTalkingFault>();

  function recipient(number: string, message: string, from: string | null) {
    if (number === AT_BLACKLISTED_NUMBER) return { statusCode: 406, number, status: 'UserInBlacklist', cost: '0', messageId: 'None' };
    if (!SOMALI.test(number) || number === AT_REFUSED_NUMBER) return { statusCode: 403, number, status: 'InvalidPhoneNumber', cost: '0', messageId: 'None' };
    const messageId = `ATXid_${crypto.randomBytes(16).toString('hex')}`;
    sent.push({ messageId, number, message, from, statusCode: 101, at: new Date().toISOString() });
    return { statusCode: 101, number, status: 'Success', cost: 'USD 0.0100', messageId };
  }

  async function handle(req: StandInRequest): Promise<StandInAnswer> {
    if (req.method === 'GET' && req.path === '/_standin/books') return { kind: 'answer', status: 200, body: { sent } };
    if (req.method !== 'POST' || req.path !== '/version1/messaging') return { kind: 'answer', status: 404, body: 'Not Found' };
    const body = (req.body ?? {}) as Record<string, string | undefined>;
    const to = String(body.to ?? '')
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    const fault = anyFaults.take({ all: '*' }) ?? to.map((number) => faults.take({ number })).find(Boolean);
    if (fault === 'unavailable') return { kind: 'answer', status: 500, body: 'Internal Server Error' };
    if (fault === 'slow') return { kind: 'hang' };
    if (req.headers.apikey !== AFRICASTALKING_STAND_IN_CREDENTIALS.apiKey || body.username !== AFRICASTALKING_STAND_IN_CREDENTIALS.username)
      return { kind: 'answer', status: 401, body: 'The supplied authentication is invalid' };
    if (!to.length || !body.message) return { kind: 'answer', status: 400, body: 'Request is missing required form field' };
    if (opts.latencyMs) await new Promise((r) => setTimeout(r, drawMillis(opts.latencyMs!)));
    const recipients = to.map((number) => recipient(number, String(body.message), body.from ?? null));
    if (fault === 'lost') return { kind: 'reset' };
    const accepted = recipients.filter((r) => r.statusCode === 101).length;
    return {
      kind: 'answer',
      status: 201,
      body: { SMSMessageData: { Message: `Sent to ${accepted}/${recipients.length} Total Cost: USD ${(accepted * 0.01).toFixed(4)}`, Recipients: recipients } },
    };
  }

  return {
    handle,
    sent: () => [...sent],
    injectFault: (number, fault, times = 1) => (number === '*' ? anyFaults.add({ all: '*' }, fault, times) : faults.add({ number }, fault, times)),
    clearFaults: () => {
      faults.clear();
      anyFaults.clear();
    },
    reset: () => {
      sent = [];
      faults.clear();
      anyFaults.clear();
    },
  };
}
