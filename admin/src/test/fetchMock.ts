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

/** A request as `serveRoutes` records it. */
export interface RoutedCall {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}
export type RoutedAnswer = { status?: number; body: unknown };

/**
 * Replaces fetch with answers chosen by "METHOD /path" (screens that read in parallel, such as a
 * list and the company's date format, make a queue in call order brittle), the company's public
 * settings answered unless a route says otherwise, anything else a 404. Records every request.
 */
export function serveRoutes(routes: Record<string, (call: RoutedCall) => RoutedAnswer>) {
  const calls: RoutedCall[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: string, init: RequestInit = {}) => {
      const url = new URL(input, 'http://console.test');
      const call: RoutedCall = {
        method: init.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
      };
      calls.push(call);
      const route = routes[`${call.method} ${call.path}`];
      const answer: RoutedAnswer = route
        ? route(call)
        : call.path === '/api/v1/settings/public'
          ? { body: { success: true, data: { company_name: 'Bundles', currency: 'USD', timezone: 'Africa/Mogadishu', footer_text: null } } }
          : { status: 404, body: { success: false, message: `no route ${call.method} ${call.path}` } };
      return new Response(JSON.stringify(answer.body), { status: answer.status ?? 200 });
    }),
  );
  return calls;
}
