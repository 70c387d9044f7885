import { Agent, fetch as undiciFetch } from 'undici';
import type { FetchLike } from './remote-call.ts';

/**
 * The HTTP pool one vendor's calls go through (docs/architecture.md, "Fulfilment at field scale").
 * A charge holds its connection while the payer reads the PIN prompt (5-60 s), so a shop's evening
 * rush keeps thousands of calls open to the gateway at once: the pool allows that many sockets to
 * one origin (a request never queues behind another payer's prompt), keeps them alive between
 * calls, and leaves every timeout to the caller's own deadline (remote-call.ts: an AbortSignal),
 * which knows a PIN wait from a lookup.
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
  return (url, init) => undiciFetch(url, { ...(init as object), dispatcher: agent }) as unknown as Promise<Response>;
}
