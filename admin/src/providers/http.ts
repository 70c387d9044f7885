import { HttpError } from 'react-admin';
import i18n from '../i18n/i18n';
import { endSessionRefused, getToken, markEnrolmentRequired, setLocked } from './session';
import { errorText, messageForStatus } from './errors';

export const API_BASE = '/api/v1';
export const TIMEOUT_MS = 30_000;

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  query?: Query;
  /** A plain object is sent as JSON; a FormData as multipart. */
  body?: unknown;
  /** The login call: its 401 passes the server's message on and does not end the session. */
  isLogin?: boolean;
  /**
   * Who ends the session on a 401. 'here' (default): this function clears it at once, for
   * calls made outside react-admin. 'checkError': the dataProvider's calls go through
   * react-admin, whose checkError notes why and logs out (which clears it) to the sign-in page
   * with the page to return to.
   */
  on401?: 'here' | 'checkError';
  timeoutMs?: number;
  /** Extra request headers (e.g. an Idempotency-Key made once per dialog opening). */
  headers?: Record<string, string>;
}

export interface ApiEnvelope<T = unknown> {
  success: boolean;
  message?: string;
  data: T;
  meta?: { current_page: number; per_page: number; total: number; last_page: number };
  errors?: Record<string, string[]>;
  /** A machine-readable reason beside the message (auth.two_factor_enrolment_required). */
  code?: string;
}

/** Body of a rejected call: the server's message and its field errors, first message per field. */
export interface ApiErrorBody {
  message?: string;
  errors?: Record<string, string>;
  allErrors?: Record<string, string[]>;
  code?: string;
}

export const buildUrl = (path: string, query?: Query): string => {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined && v !== null && v !== '') qs.append(k, String(v));
  }
  const s = qs.toString();
  return `${API_BASE}${path}${s ? `?${s}` : ''}`;
};

function csrfToken(): string | null {
  const meta = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content');
  if (meta) return meta;
  const m = document.cookie.match(/(?:^|; )XSRF-TOKEN=([^;]*)/);
  return m ? decodeURIComponent(m[1]) : null;
}

export function requestHeaders(isForm: boolean): Headers {
  const h = new Headers({ Accept: 'application/json', 'X-Requested-With': 'XMLHttpRequest' });
  if (!isForm) h.set('Content-Type', 'application/json');
  const token = getToken();
  if (token) h.set('Authorization', `Bearer ${token}`);
  const csrf = csrfToken();
  if (csrf) h.set('X-CSRF-TOKEN', csrf);
  if (i18n.language) h.set('Accept-Language', i18n.language);
  return h;
}

/**
 * One call to the API with the headers of docs/product.md section 7, a 30 s timeout and the error
 * catalogue of section 8. Resolves with the JSON envelope; rejects with react-admin's HttpError
 * (status 0 for timeouts and network failures) whose body keeps the server's field errors.
 */
export async function apiFetch<T = unknown>(path: string, opts: RequestOptions = {}): Promise<ApiEnvelope<T>> {
  const isForm = typeof FormData !== 'undefined' && opts.body instanceof FormData;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, opts.timeoutMs ?? TIMEOUT_MS);
  const headers = requestHeaders(isForm);
  for (const [k, v] of Object.entries(opts.headers ?? {})) headers.set(k, v);
  let response: Response;
  try {
    response = await fetch(buildUrl(path, opts.query), {
      method: opts.method ?? 'GET',
      headers,
      body: opts.body === undefined ? undefined : isForm ? (opts.body as FormData) : JSON.stringify(opts.body),
      signal: controller.signal,
      credentials: 'same-origin',
    });
  } catch {
    throw new HttpError(errorText(timedOut ? 'timeout' : 'network'), 0, {});
  } finally {
    clearTimeout(timer);
  }
  const text = await response.text();
  let json: Partial<ApiEnvelope<T>> = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    json = {};
  }
  if (response.ok) return json as ApiEnvelope<T>;

  const status = response.status;
  if (status === 401 && !opts.isLogin && opts.on401 !== 'checkError') endSessionRefused();
  if (status === 423) setLocked(true);
  if (status === 403 && json.code === 'auth.two_factor_enrolment_required') markEnrolmentRequired();
  const allErrors = json.errors && typeof json.errors === 'object' ? json.errors : undefined;
  const errors = allErrors ? Object.fromEntries(Object.entries(allErrors).map(([k, v]) => [k, Array.isArray(v) ? String(v[0]) : String(v)])) : undefined;
  const body: ApiErrorBody = { message: json.message, errors, allErrors, ...(json.code ? { code: json.code } : {}) };
  throw new HttpError(messageForStatus(status, json.message, !!opts.isLogin, json.code), status, body);
}
