import type { FetchLike, RemoteTrail } from '../../remote-call.ts';

/**
 * Africa's Talking's SMS API (docs/integrations.md, "SMS receipts"): one message to one number,
 * `POST {AFRICASTALKING_API_URL}` (the full /version1/messaging URL) with the `apiKey` header,
 * `Accept: application/json` and a form body (`username`, `to`, `message`, `from?`).
 *
 * The recipient's statusCode says what happened: 101 (sent) and 102 (queued) are accepted; any
 * other (4xx/5xx codes: 403 invalid number, 405 insufficient balance, 406 blacklisted …) is refused
 * with its status word. No answer, a reset, an HTTP 5xx or an answer that cannot be read is
 * `unknown`: the message may have gone, so it is recorded as such and never sent again blindly.
 * Each call is a line of the sale's remote-call trail (system `africastalking`).
 */
export interface SmsSettings {
  url: string;
  username: string;
  apiKey: string;
  sender: string | null;
  timeoutMs: number;
}

export type SmsOutcome = 'accepted' | 'refused' | 'unknown';

export interface SmsSendResult {
  outcome: SmsOutcome;
  statusCode: number | null;
  messageId: string | null;
  status: string | null;
  cost: string | null;
  error: string | null;
}

export interface SmsAdapter {
  name: 'africastalking';
  send(to: string, message: string, forWhom: { rechargeId: number | null }): Promise<SmsSendResult>;
}

const ACCEPTED = new Set([100, 101, 102]);

/** What one recipient's line of the answer means. */
export function classifyRecipient(r: { statusCode?: unknown; status?: unknown; messageId?: unknown; cost?: unknown } | undefined): SmsSendResult {
  const code = Number(r?.statusCode);
  if (!r || !Number.isInteger(code))
    return { outcome: 'unknown', statusCode: null, messageId: null, status: null, cost: null, error: 'The answer names no recipient' };
  const messageId = typeof r.messageId === 'string' && r.messageId !== 'None' ? r.messageId : null;
  const status = typeof r.status === 'string' ? r.status : null;
  const cost = typeof r.cost === 'string' ? r.cost : null;
  if (ACCEPTED.has(code)) return { outcome: 'accepted', statusCode: code, messageId, status, cost, error: null };
  return { outcome: 'refused', statusCode: code, messageId, status, cost, error: status ?? `statusCode ${code}` };
}

export function africasTalkingAdapter(settings: SmsSettings, deps: { trail: RemoteTrail; fetch?: FetchLike }): SmsAdapter {
  const fetchImpl: FetchLike = deps.fetch ?? ((url, init) => fetch(url, init));
  return {
    name: 'africastalking',
    async send(to, message, forWhom) {
      const form = new URLSearchParams({ username: settings.username, to, message, ...(settings.sender ? { from: settings.sender } : {}) });
      const started = Date.now();
      let result: SmsSendResult;
      let httpStatus: number | null = null;
      let responseText: string | null = null;
      try {
        const res = await fetchImpl(settings.url, {
          method: 'POST',
          headers: { apiKey: settings.apiKey, accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
          body: form.toString(),
          signal: AbortSignal.timeout(settings.timeoutMs),
        });
        httpStatus = res.status;
        responseText = await res.text();
        let body: {
          SMSMessageData?: { Recipients?: { number?: string; statusCode?: unknown; status?: unknown; messageId?: unknown; cost?: unknown }[] };
        } | null = null;
        try {
          body = JSON.parse(responseText);
        } catch {
          body = null;
        }
        if (res.status >= 500) result = unknown(`HTTP ${res.status}: the outcome is unknown`);
        else if (res.status >= 400)
          result = {
            outcome: 'refused',
            statusCode: null,
            messageId: null,
            status: null,
            cost: null,
            error: `HTTP ${res.status}: ${responseText.slice(0, 200)}`,
          };
        else if (!body?.SMSMessageData) result = unknown('The answer was not read (not the SMS answer)');
        else {
          const recipients = body.SMSMessageData.Recipients ?? [];
          result = classifyRecipient(recipients.find((r) => r.number === to) ?? recipients[0]);
        }
      } catch (err) {
        const e = err as { name?: string; message?: string; cause?: { code?: string } };
        result = unknown(
          e?.name === 'TimeoutError' || e?.name === 'AbortError'
            ? 'No answer in time (timeout)'
            : e?.cause?.code === 'ECONNRESET'
              ? 'The connection was reset before an answer'
              : (e?.message ?? 'Request failed'),
        );
      }
      await deps
        .trail(forWhom.rechargeId, {
          system: 'africastalking',
          operation: 'send SMS receipt',
          method: 'POST',
          url: settings.url,
          // The form as sent (the key is a header: never shown).
          request: JSON.stringify({ username: settings.username, to, message, from: settings.sender }),
          response: responseText ? responseText.slice(0, 4000) : null,
          httpStatus,
          outcome: result.outcome === 'accepted' ? 'ok' : result.outcome,
          error: result.error,
          durationMs: Date.now() - started,
        })
        .catch(() => undefined);
      return result;
    },
  };
}

const unknown = (error: string): SmsSendResult => ({ outcome: 'unknown', statusCode: null, messageId: null, status: null, cost: null, error });
