import { vi } from 'vitest';

export interface Call {
  url: string;
  method: string;
  headers: Headers;
  body: unknown;
}

/** Replaces fetch with a queue of answers and records every request. */
export function mockFetch(answers: Array<{ status?: number; body?: unknown } | Error>) {
  const calls: Call[] = [];
  const queue = [...answers];
  const fn = vi.fn(async (url: string, init: RequestInit = {}) => {
    const raw = init.body;
    calls.push({
      url,
      method: init.method ?? 'GET',
      headers: new Headers(init.headers),
      body: raw instanceof FormData ? raw : typeof raw === 'string' ? JSON.parse(raw) : raw,
    });
    const next = queue.shift() ?? { status: 200, body: { success: true, data: {} } };
    if (next instanceof Error) throw next;
    return new Response(next.body === undefined ? '' : JSON.stringify(next.body), { status: next.status ?? 200 });
  });
  vi.stubGlobal('fetch', fn);
  return calls;
}
