import fs from 'node:fs';
import path from 'node:path';
import i18next, { type TFunction } from 'i18next';
import { applyPluralLocales } from '@app/contracts/plural-rules';
import { PROJECT_ROOT } from '../../../db/config.ts';

export const LANGUAGES = ['en', 'ae', 'so'] as const;
export type Language = (typeof LANGUAGES)[number];
export const LOCALES_DIR = path.join(PROJECT_ROOT, 'locales');
/** Namespaces the API speaks in; the console has its own on top. */
const SERVER_NAMESPACES = ['api', 'validation'];

const i18n = i18next.createInstance();
let ready = false;

export function initServerI18n(): void {
  if (ready) return;
  const resources: Record<string, Record<string, unknown>> = {};
  for (const lng of LANGUAGES) {
    resources[lng] = {};
    for (const ns of SERVER_NAMESPACES) {
      const file = path.join(LOCALES_DIR, lng, `${ns}.json`);
      resources[lng][ns] = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
    }
  }
  void i18n.init({
    initImmediate: false,
    resources: resources as never,
    lng: 'en',
    fallbackLng: 'en',
    ns: SERVER_NAMESPACES,
    defaultNS: 'api',
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  // Arabic's plural forms for 'ae' (Node alone would give it English's).
  applyPluralLocales(i18n);
  ready = true;
}

/**
 * The request's language: ?lng= first, then Accept-Language. Only the base part counts
 * ('so-SO' -> 'so'); Arabic ('ar') is served as 'ae', the product's code for Arabic.
 */
export function pickLanguage(queryLng: unknown, acceptLanguage: string | undefined): Language {
  const candidates: string[] = [];
  if (typeof queryLng === 'string' && queryLng) candidates.push(queryLng);
  if (acceptLanguage) {
    const ranked = acceptLanguage
      .split(',')
      .map((part) => {
        const [tag, ...params] = part.trim().split(';');
        const q = params.find((p) => p.trim().startsWith('q='));
        return { tag, q: q ? Number(q.trim().slice(2)) || 0 : 1 };
      })
      .sort((a, b) => b.q - a.q);
    candidates.push(...ranked.map((r) => r.tag));
  }
  for (const c of candidates) {
    const base = c.toLowerCase().split(/[-_]/)[0];
    if (base === 'ar') return 'ae';
    if ((LANGUAGES as readonly string[]).includes(base)) return base as Language;
  }
  return 'en';
}

export function translator(lng: Language): TFunction {
  initServerI18n();
  return i18n.getFixedT(lng);
}

/** Keys look like 'validation:name_required' or 'api:auth.invalid_credentials'; plain text passes through. */
export function translateMessage(t: TFunction, message: string, vars?: Record<string, unknown>): string {
  if (!/^[a-z_]+:[\w.]+$/.test(message)) return message;
  return t(message, vars ?? {}) as string;
}
