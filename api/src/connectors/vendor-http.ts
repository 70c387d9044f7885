import { Agent, request } from 'undici';
import type { FetchLike, HttpAnswer } from './remote-call.ts';

/**
 * The HTTP pool one vendor's calls go through (docs/architecture.md, "Fulfilment at field scale").
 * A charge holds its connection while the payer reads the PIN prompt (5-60 s), so a shop's evening
 * rush keeps thousands of calls open to the gateway at once: the pool allows that many sockets to
 * one origin (a request never queues behind another payer's prompt), keeps them alive between
 * calls, and leaves every timeout to the caller's own deadline (remote-call.ts: an AbortSignal),
 * which knows a PIN wait from a lookup.
 *
 * Calls go through undici's `request`, not `fetch`: at 200 sales a second fetch's web streams and
 * Response objects were the largest single cost of a sale's CPU (about a third of the main thread).
 */
export function vendorFetch(opts: { connections: number }): FetchLike {
  const agent = new Agent({
    connections: opts.connections,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 120_000,
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  return async (url, init = {}): Promise<HttpAnswer> => {
    const res = await request(url, {
      dispatcher: agent,
      method: (init.method ?? 'GET') as 'GET' | 'POST',
      headers: init.headers as Record<string, string> | undefined,
      body: (init.body as string | undefined) ?? undefined,
      signal: init.signal ?? undefined,
    });
    // The body is read at once (the caller's deadline still applies through the signal).
    const text = await res.body.text();
    return { status: res.statusCode, text: async () => text };
  };
}
