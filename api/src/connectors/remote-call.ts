/**
 * One JSON call to a remote system (a payment gateway, an aggregator), with a timeout, and its
 * record for the remote-call trail. What matters for money is the difference between an answer
 * and no answer: a timeout, a reset connection or an HTTP 5xx is an unknown outcome (the remote
 * side may have acted), never a failure (docs/architecture.md, "Recharges").
 */
export type FetchLike = (url: string, init?: RequestInit) => Promise<HttpAnswer>;
/** What a call needs of an HTTP answer (a fetch Response has it; so does vendor-http.ts's lighter one). */
export type HttpAnswer = Pick<Response, 'status' | 'text'>;

export type CallOutcome = 'ok' | 'refused' | 'unknown';

/** One line of the trail, stored with the recharge (remote_calls). */
export interface RemoteCallRecord {
  system: string;
  operation: string;
  method: string;
  url: string;
  request: string | null;
  response: string | null;
  httpStatus: number | null;
  outcome: CallOutcome;
  error: string | null;
  durationMs: number;
}

/** Where adapters write their trail; `rechargeId` names the sale the call was for (null: a token). */
export type RemoteTrail = (rechargeId: number | null, call: RemoteCallRecord) => Promise<void>;

/** Who the call is for: the sale, so the trail line lands on it. */
export interface CallFor {
  rechargeId: number | null;
  /** A test sale's call to the sandbox: it says nothing of the live vendor's health (the vendor gate is not told). */
  sandbox?: boolean;
}

/** Keys whose values never reach the trail (secrets and tokens). */
const SECRET_KEYS = new Set(['apikey', 'hppkey', 'client_secret', 'access_token', 'password', 'authorization']);

export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, SECRET_KEYS.has(k.toLowerCase()) ? '[redacted]' : redact(v)]),
    );
  }
  return value;
}

const MAX_STORED = 4000;
const clip = (text: string) => (text.length > MAX_STORED ? `${text.slice(0, MAX_STORED)}…` : text);
/** A request body for the trail, redacted; a raw body that is not JSON is not shown (it could not be redacted). */
function shownRequest(text: string): string {
  try {
    return clip(JSON.stringify(redact(JSON.parse(text))));
  } catch {
    return '[a body that is not JSON: not shown]';
  }
}

export type JsonAnswer = { kind: 'answer'; status: number; body: any } | { kind: 'lost'; status: number | null; error: string };

export interface JsonCall {
  system: string;
  operation: string;
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
  /**
   * The request body as the exact text to send, instead of `body` (which is then ignored): for a
   * vendor that signs the raw bytes (eDahab hashes the body text with its secret), so the text
   * signed is the text sent. Sent as JSON; shown in the trail redacted like `body`.
   */
  rawBody?: string;
  timeoutMs: number;
  /** The call waits on a person (a PIN prompt): no answer in time says nothing about the vendor's health. */
  waitsOnPerson?: boolean;
  /** What an answer means for the trail (the caller's protocol knows ok from refused). */
  classify: (status: number, body: any) => CallOutcome;
}

/** Told of every call: its system, and whether it got an answer (any HTTP status under 500). */
export type CallListener = (system: string, answered: boolean) => void;
const listeners = new Set<CallListener>();
/** Listens to every remote call of this process (the vendor gate, fulfilment/vendor-gate.ts); returns the way to stop. */
export function onRemoteCall(listener: CallListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Why a call got no answer, in a line a person reads in the trail. */
function describeFailure(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError' || (e as { code?: string })?.code === 'UND_ERR_ABORTED') return 'No answer in time (timeout)';
  // fetch wraps the socket's error in `cause`; undici's request throws it as is.
  const code = e?.cause?.code ?? (e as { code?: string })?.code;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'The connection was reset before an answer';
  if (code === 'ECONNREFUSED') return 'The connection was refused';
  return `${e?.message ?? 'Request failed'}${e?.cause?.message ? `: ${e.cause.message}` : ''}`;
}

/**
 * Sends one request and records it. HTTP 5xx and no answer come back as `lost` (unknown);
 * every other status is an answer for the caller to read.
 */
export async function callJson(fetchImpl: FetchLike, trail: RemoteTrail, forWhom: CallFor, call: JsonCall): Promise<JsonAnswer> {
  const started = Date.now();
  const requestText = call.rawBody ?? (call.body === undefined ? null : JSON.stringify(call.body));
  let result: JsonAnswer;
  let responseText: string | null = null;
  let outcome: CallOutcome;
  try {
    const res = await fetchImpl(call.url, {
      method: call.method,
      headers: { accept: 'application/json', ...(requestText ? { 'content-type': 'application/json' } : {}), ...call.headers },
      body: requestText ?? undefined,
      signal: AbortSignal.timeout(call.timeoutMs),
    });
    responseText = await res.text();
    let body: any = null;
    try {
      body = responseText ? JSON.parse(responseText) : null;
    } catch {
      body = null;
    }
    if (res.status >= 500) {
      result = { kind: 'lost', status: res.status, error: `HTTP ${res.status}: the outcome is unknown` };
      outcome = 'unknown';
    } else {
      result = { kind: 'answer', status: res.status, body };
      outcome = body === null && res.status < 300 ? 'unknown' : call.classify(res.status, body);
      if (body === null && res.status < 300) result = { kind: 'lost', status: res.status, error: 'The answer was not JSON' };
    }
  } catch (err) {
    result = { kind: 'lost', status: null, error: describeFailure(err) };
    outcome = 'unknown';
  }
  if (!forWhom.sandbox && (result.kind === 'answer' || !call.waitsOnPerson)) for (const listener of listeners) listener(call.system, result.kind === 'answer');
  let shownResponse: string | null = null;
  if (responseText) {
    try {
      shownResponse = clip(JSON.stringify(redact(JSON.parse(responseText))));
    } catch {
      shownResponse = clip(responseText);
    }
  }
  await trail(forWhom.rechargeId, {
    system: call.system,
    operation: call.operation,
    method: call.method,
    url: call.url.split('?')[0],
    request: requestText ? shownRequest(requestText) : call.url.includes('?') ? call.url.slice(call.url.indexOf('?')) : null,
    response: shownResponse,
    httpStatus: result.kind === 'answer' ? result.status : result.status,
    outcome,
    error: result.kind === 'lost' ? result.error : null,
    durationMs: Date.now() - started,
  }).catch(() => undefined);
  return result;
}
