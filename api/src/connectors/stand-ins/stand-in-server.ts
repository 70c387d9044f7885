import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * The transport shared by the vendor stand-ins (WaafiPay, Reloadly). A stand-in is a plain
 * function from a parsed request to an answer, so the same code can sit behind a real HTTP port
 * (startStandInServer: what the product's HTTP adapters talk to) or be called with no network at
 * all (inProcessFetch: lets a benchmark measure what the HTTP hop itself costs).
 *
 * Besides answering, a stand-in can misbehave the ways a real network does: 'reset' drops the
 * connection without an answer (the request may or may not have been processed, the caller cannot
 * tell), 'hang' never answers (the caller's own timeout must decide).
 */
export type StandInAnswer =
  | { kind: 'answer'; status: number; body: unknown }
  | { kind: 'reset' } // destroy the socket without answering (a reset connection / lost answer)
  | { kind: 'hang' }; // never answer (the client's timeout decides); socket destroyed when server closes

export interface StandInRequest {
  method: string;
  /** The URL path as sent (still percent-encoded). */
  path: string;
  query: URLSearchParams;
  /** Lower-case names, as node:http and the Fetch API's Headers both give them. */
  headers: Record<string, string | undefined>;
  /** The parsed JSON body, or undefined when the request had none. */
  body: unknown;
}

export type StandInHandler = (req: StandInRequest) => Promise<StandInAnswer>;

export interface RunningStandIn {
  /** e.g. http://127.0.0.1:40123 (no trailing slash, so `${url}/asm` reads naturally). */
  url: string;
  close(): Promise<void>;
}

/** Vendor requests are a few hundred bytes; anything near this limit is a client bug or abuse. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * A stand-in's wait (a PIN prompt, an operator's delivery): a number `n` is drawn in n * (0.5..1.5),
 * a range uniformly in [min, max] (PAYMENT_SANDBOX_APPROVAL_MS=5000-40000).
 */
export type Millis = number | { min: number; max: number };

/** One wait drawn from `m`; `random` is Math.random unless a test fixes it. */
export function drawMillis(m: Millis, random: () => number = Math.random): number {
  if (typeof m === 'number') return Math.max(0, m) * (0.5 + random());
  const min = Math.max(0, Math.min(m.min, m.max));
  const max = Math.max(0, m.min, m.max);
  return min + (max - min) * random();
}

/**
 * `1500` or `5000-40000` (milliseconds) as a Millis; undefined when it is neither. A range with its
 * ends the other way round is refused, so a typo never silently means something else.
 */
export function parseMillis(value: unknown): Millis | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text);
  const range = /^(\d{1,9})\s*-\s*(\d{1,9})$/.exec(text);
  if (!range || Number(range[1]) > Number(range[2])) return undefined;
  return { min: Number(range[1]), max: Number(range[2]) };
}

/**
 * Server limits for thousands of open requests: a charge holds its request open for the whole PIN
 * prompt (up to 40 s and more), so nothing may cut an answered-late request. Node's requestTimeout
 * covers receiving the request only (not the wait for the answer) and stays at its default; idle
 * keep-alive sockets are kept long enough that a client never reuses one the server is closing
 * (which the client would see as a reset: an unknown outcome); no cap on connections; a deep
 * listen backlog for bursts of new connections.
 */
export const STAND_IN_SERVER_LIMITS = {
  requestTimeout: 300_000,
  headersTimeout: 70_000,
  keepAliveTimeout: 65_000,
  /** 0: no inactivity timeout on a socket while its answer is being prepared. */
  timeout: 0,
  backlog: 4096,
} as const;

const MALFORMED_JSON: StandInAnswer = { kind: 'answer', status: 400, body: { message: 'Malformed JSON' } };
const TOO_LARGE: StandInAnswer = { kind: 'answer', status: 413, body: { message: 'Payload Too Large' } };

/** Both transports parse the same way, so they give the same answers to the same bytes. */
function parseBody(text: string, contentType?: string | null): { ok: true; body: unknown } | { ok: false; answer: StandInAnswer } {
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) return { ok: false, answer: TOO_LARGE };
  if (text.trim() === '') return { ok: true, body: undefined };
  // A form body (Africa's Talking's SMS API) comes as its fields.
  if (contentType?.toLowerCase().startsWith('application/x-www-form-urlencoded')) return { ok: true, body: Object.fromEntries(new URLSearchParams(text)) };
  try {
    return { ok: true, body: JSON.parse(text) };
  } catch {
    return { ok: false, answer: MALFORMED_JSON };
  }
}

function jsonText(body: unknown): string {
  return body === undefined ? '' : JSON.stringify(body);
}

/**
 * Serves `handler` on loopback. Port 0 (the default) lets the OS pick a free port, so tests and
 * several embedded stand-ins never collide.
 */
export function startStandInServer(handler: StandInHandler, opts: { host?: string; port?: number } = {}): Promise<RunningStandIn> {
  const host = opts.host ?? '127.0.0.1';
  // Tracked so close() can destroy hung and keep-alive connections: server.close() alone waits
  // for every open connection, and a 'hang' answer would keep it waiting for ever.
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => void serve(handler, req, res));
  server.requestTimeout = STAND_IN_SERVER_LIMITS.requestTimeout;
  server.headersTimeout = STAND_IN_SERVER_LIMITS.headersTimeout;
  server.keepAliveTimeout = STAND_IN_SERVER_LIMITS.keepAliveTimeout;
  server.setTimeout(STAND_IN_SERVER_LIMITS.timeout);
  server.maxConnections = Infinity;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, STAND_IN_SERVER_LIMITS.backlog, () => {
      server.off('error', reject);
      // A stand-in must never take the product down: a late server error only loses the stand-in.
      server.on('error', () => {});
      const { port } = server.address() as AddressInfo;
      const shownHost = host.includes(':') ? `[${host}]` : host;
      let closing: Promise<void> | undefined;
      resolve({
        url: `http://${shownHost}:${port}`,
        close: () =>
          (closing ??= new Promise<void>((done) => {
            server.close(() => done());
            for (const socket of sockets) socket.destroy();
          })),
      });
    });
  });
}

async function serve(handler: StandInHandler, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  try {
    // Refuse an announced oversized body before reading a byte of it.
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return send(res, TOO_LARGE, true);
    const text = await readBody(req);
    if (text === undefined) return send(res, TOO_LARGE, true);
    const parsed = parseBody(text, req.headers['content-type']);
    if (!parsed.ok) return send(res, parsed.answer);

    const url = new URL(req.url ?? '/', 'http://stand-in');
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : value;

    const answer = await safeHandle(handler, { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers, body: parsed.body });
    if (answer.kind === 'answer') send(res, answer);
    else if (answer.kind === 'reset') resetSocket(req.socket);
    // 'hang': leave the response open; the client gives up, or close() destroys the socket.
  } catch {
    // The client went away mid-upload: nobody is left to answer.
    if (!res.headersSent) res.destroy();
  }
}

/** A handler bug answers 500 rather than crashing the process that embeds the stand-in. */
async function safeHandle(handler: StandInHandler, req: StandInRequest): Promise<StandInAnswer> {
  try {
    return await handler(req);
  } catch {
    return { kind: 'answer', status: 500, body: { message: 'Internal Server Error' } };
  }
}

/** The body as text, or undefined when it grows past MAX_BODY_BYTES (chunked uploads). */
function readBody(req: http.IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.off('data', onData);
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

function send(res: http.ServerResponse, answer: StandInAnswer, closeAfter = false): void {
  if (answer.kind !== 'answer' || res.headersSent || res.destroyed) return;
  const text = jsonText(answer.body);
  res.writeHead(answer.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    // After an oversized body the rest of the upload is unread, so the connection cannot be reused.
    ...(closeAfter ? { connection: 'close' } : {}),
  });
  res.end(text);
  if (closeAfter) res.once('finish', () => res.socket?.destroy());
}

/** A TCP reset (RST), which clients report as ECONNRESET, like a dropped mobile-network link. */
function resetSocket(socket: Socket): void {
  if (socket.destroyed) return;
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy();
  }
}

/** The shape of the global fetch, so an adapter can take either. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * A fetch that calls `handler` directly, with no socket: the same answers as the HTTP server,
 * the same failures as Node's fetch (a reset rejects with TypeError 'fetch failed' caused by
 * ECONNRESET; an abort rejects with the signal's reason, e.g. an AbortError DOMException, or a
 * TimeoutError for AbortSignal.timeout(), exactly as the global fetch does).
 */
export function inProcessFetch(handler: StandInHandler): FetchLike {
  return async (input, init) => {
    // Request normalises every form fetch accepts (string/URL/Request, any BodyInit, headers).
    const request = new Request(input, init);
    const { signal } = request;
    signal.throwIfAborted();
    const parsed = parseBody(await request.text(), request.headers.get('content-type'));
    const url = new URL(request.url);
    const answer = parsed.ok
      ? await untilAborted(
          safeHandle(handler, {
            method: request.method,
            path: url.pathname,
            query: url.searchParams,
            headers: Object.fromEntries(request.headers),
            body: parsed.body,
          }),
          signal,
        )
      : parsed.answer;

    if (answer.kind === 'answer') {
      return new Response(jsonText(answer.body) || null, {
        status: answer.status,
        headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
      });
    }
    if (answer.kind === 'reset') {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
    }
    // 'hang': only the caller's signal ends it (no signal: the promise stays pending, as over HTTP).
    return untilAborted(new Promise<Response>(() => {}), signal);
  };
}

/** Rejects with the signal's reason once it aborts; the work itself carries on, as on a server. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Faults injected into a stand-in: the next `times` requests matching every field given (e.g. a
 * path or a reference) get the fault, oldest first.
 */
export function faultQueue<M extends Record<string, unknown>, F>() {
  let queued: { match: Partial<M>; fault: F; left: number }[] = [];
  return {
    add(match: Partial<M>, fault: F, times = 1) {
      if (times > 0) queued.push({ match: { ...match }, fault, left: times });
    },
    take(actual: M): F | undefined {
      const found = queued.find((f) => Object.entries(f.match).every(([k, v]) => v === undefined || actual[k] === v));
      if (!found) return undefined;
      if (--found.left <= 0) queued = queued.filter((f) => f !== found);
      return found.fault;
    },
    clear() {
      queued = [];
    },
  };
}
