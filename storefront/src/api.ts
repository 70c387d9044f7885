/**
 * The storefront's calls (docs/api-conventions.md, "Storefront calls"): /api/v1/client/* with the
 * dealer code as the `dealer_code` header, a 30 s timeout and the messages of docs/product.md section 8.
 */
import type { PublicRecharge } from '@app/contracts';

export const TIMEOUT_MS = 30_000;

export class ApiError extends Error {
  constructor(
    message: string,
    public readonly status: number,
    public readonly errors: Record<string, string[]> = {},
  ) {
    super(message);
  }
}

let csrfToken: string | null = null;

export interface CallOptions {
  dealerCode: string;
  method?: 'GET' | 'POST';
  body?: unknown;
  headers?: Record<string, string>;
  /** Translates the fallback messages of docs/product.md section 8. */
  t?: (key: string) => string;
}

export async function call<T>(path: string, opts: CallOptions): Promise<T> {
  const t = opts.t ?? ((k: string) => k);
  const headers: Record<string, string> = { Accept: 'application/json', 'X-Requested-With': 'XMLHttpRequest', dealer_code: opts.dealerCode, ...opts.headers };
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  if (opts.method === 'POST' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  const lang = document.documentElement.lang;
  if (lang) headers['Accept-Language'] = lang === 'ae' ? 'ar' : lang;
  let res: Response;
  try {
    res = await fetch(`/api/v1/client${path}`, {
      method: opts.method ?? 'GET',
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      credentials: 'same-origin',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    const timeout = err instanceof DOMException && (err.name === 'TimeoutError' || err.name === 'AbortError');
    throw new ApiError(t(timeout ? 'errors.timeout' : 'errors.network'), 0);
  }
  const body = (await res.json().catch(() => null)) as { message?: string; data?: T; errors?: Record<string, string[]> } | null;
  if (!res.ok) {
    const fallback =
      res.status === 404 ? 'errors.not_found' : res.status === 422 ? 'errors.validation' : res.status >= 500 ? 'errors.server' : 'errors.unexpected';
    throw new ApiError(res.status >= 500 ? t('errors.server') : (body?.message ?? t(fallback)), res.status, body?.errors ?? {});
  }
  return body?.data as T;
}

/** The session's CSRF token, fetched once before the first purchase (the session cookie comes with it). */
export async function ensureSession(dealerCode: string): Promise<void> {
  if (csrfToken) return;
  const data = await call<{ csrf_token: string }>('/session', { dealerCode });
  csrfToken = data.csrf_token;
}

export interface StoreDealer {
  code: string;
  name: string;
  company_name: string | null;
  logo: string | null;
  brand_color: string;
  description: string | null;
  website: string | null;
  contacts: { type: 'phone' | 'whatsapp' | 'email' | 'address'; label: string | null; value: string }[];
  currency: string;
}
export interface Banner {
  id: number;
  title: string;
  image: string;
  link_url: string | null;
}
export interface Bundle {
  id: number;
  h_id: string;
  name: string;
  data_volume_mb: number | null;
  validity_days: number;
  price: string;
}
export interface Category {
  id: number;
  h_id: string;
  name: string;
  description: string | null;
  bundles: Bundle[];
}
export interface Provider {
  id: number;
  h_id: string;
  name: string;
  code: string;
  logo: string | null;
  phone_prefixes: string[];
  categories: Category[];
}
export interface PaymentMethod {
  id: number;
  h_id: string;
  name: string;
  type: string;
  /** What takes its payments (`manual`: paid to the shop in person). Absent in data cached before it existed. */
  gateway?: string;
  /** The payer approves a prompt on their phone and the bundle is bought here; false: paid in person, not here. */
  prompts_payer?: boolean;
  account_number: string | null;
  instructions: string | null;
  logo: string | null;
}
export interface Contact {
  id: number;
  type: 'phone' | 'whatsapp' | 'email' | 'address';
  label: string | null;
  value: string;
}
/**
 * A recharge as the storefront that made it may see it (contracts publicRechargeSchema): the
 * number partly hidden; `outcome` and `money` say what the customer is told.
 */
export type Recharge = Omit<PublicRecharge, 'detail'> & {
  /** Absent from orders kept on the phone before the API sent it. */
  detail?: PublicRecharge['detail'];
};
export type Outcome = PublicRecharge['outcome'];
export type Money = PublicRecharge['money'];
