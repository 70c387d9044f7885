import { vi } from 'vitest';
import i18next from 'i18next';
import en from '../../locales/en/storefront.json';
import ae from '../../locales/ae/storefront.json';
import so from '../../locales/so/storefront.json';
import type { Recharge } from './api';

/** Component tests only: the storefront's words, an API stand-in on fetch, a recharge to answer. */
export const WORDS = { en, ae, so } as const;

export async function useLanguage(lng: 'en' | 'ae' | 'so') {
  if (!i18next.isInitialized || !i18next.hasResourceBundle('ae', 'storefront')) {
    await i18next.init({
      lng,
      fallbackLng: 'en',
      ns: ['storefront'],
      defaultNS: 'storefront',
      resources: { en: { storefront: en }, ae: { storefront: ae }, so: { storefront: so } },
      interpolation: { escapeValue: false },
    });
  }
  await i18next.changeLanguage(lng);
  document.documentElement.lang = lng;
  document.documentElement.dir = lng === 'ae' ? 'rtl' : 'ltr';
}

/** A word of storefront.json with its values filled in, e.g. word('ae', 'outcome.delivered_help', { phone }). */
export function word(lng: keyof typeof WORDS, key: string, vars: Record<string, string> = {}): string {
  let node: unknown = WORDS[lng];
  for (const part of key.split('.')) node = (node as Record<string, unknown>)[part];
  if (typeof node !== 'string') throw new Error(`no word ${lng}:${key}`);
  return node.replace(/\{\{(\w+)\}\}/g, (_, name: string) => vars[name]);
}

export const REF = 'RC7K3M9Q2XPA';

export function recharge(over: Partial<Recharge> = {}): Recharge {
  return {
    id: 41,
    h_id: 'x41',
    reference: REF,
    status: 'pending',
    provider_name: 'Hormuud',
    bundle_name: '1 GB Daily',
    phone: '61****456',
    amount: '0.50',
    currency: 'USD',
    failure_reason: null,
    outcome: 'awaiting_payment',
    money: 'nothing_taken',
    detail: null,
    message: 'Server words',
    can_retry: false,
    created_at: '2026-11-23T09:30:00.000Z',
    completed_at: null,
    ...over,
  };
}

export interface Call {
  method: string;
  path: string;
  body?: Record<string, unknown>;
}
type Answer = { status: number; data?: unknown; message?: string; errors?: Record<string, string[]> };

/**
 * /api/v1/client/* on fetch: the session, POST /recharge (answered by `post`, in turn) and
 * GET /recharge/{ref} (answered by `get`, in turn; the last answer repeats).
 */
export function mockApi({ post = [], get = [] }: { post?: Answer[]; get?: Answer[] }): Call[] {
  const calls: Call[] = [];
  let posts = 0;
  let gets = 0;
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit = {}) => {
      const path = String(url).replace('/api/v1/client', '');
      const method = init.method ?? 'GET';
      calls.push({ method, path, body: init.body ? JSON.parse(String(init.body)) : undefined });
      let answer: Answer = { status: 404, message: 'Not found' };
      if (path === '/session') answer = { status: 200, data: { csrf_token: 'token' } };
      else if (method === 'POST' && path === '/recharge') answer = post[Math.min(posts++, post.length - 1)] ?? answer;
      else if (path.startsWith('/recharge/')) answer = get[Math.min(gets++, get.length - 1)] ?? answer;
      return {
        ok: answer.status < 400,
        status: answer.status,
        json: async () => structuredClone({ success: answer.status < 400, message: answer.message, data: answer.data, errors: answer.errors }),
      } as Response;
    }),
  );
  return calls;
}

export const ok = (data: Recharge, status = 200): Answer => ({ status, data });

/** The text of each paragraph of the outcome (numbers inside <bdi> included). */
export const outcomeLines = (root: ParentNode = document) => [...root.querySelectorAll('.outcome p')].map((p) => p.textContent);
