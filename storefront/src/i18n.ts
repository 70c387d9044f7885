import { readBoot } from './boot';

/**
 * en, ae (Arabic, right to left) and so, from the same locales/ files as the console
 * (/locales/{lng}/storefront.json). A few lines instead of i18next (16 KB gzip of the first load, and
 * its start-up on a slow phone): the storefront needs one namespace, {{values}}, plurals (key_one,
 * key_other, ...) and English behind missing words. The language is found as the console's
 * i18next finds it, and kept where it keeps it: ?lng, the i18next cookie (path /dealer, so that
 * the server writes the next page in it), local storage and session storage (i18nextLng), the
 * browser's languages, the html lang attribute.
 */
export const LANGUAGES = ['en', 'ae', 'so'] as const;
export type Language = (typeof LANGUAGES)[number];

type Words = { [key: string]: string | Words };
const words: Partial<Record<Language, Words>> = {};
let language: Language = 'en';

const toSupported = (lng: string | undefined): Language => {
  const base = (lng ?? 'en').toLowerCase().split(/[-_]/)[0];
  if (base === 'ar') return 'ae';
  return (LANGUAGES as readonly string[]).includes(base) ? (base as Language) : 'en';
};

const storage = (kind: 'localStorage' | 'sessionStorage'): Storage | null => {
  try {
    return window[kind];
  } catch {
    return null; // blocked
  }
};
const COOKIE = 'i18next';
const STORED = 'i18nextLng';

/** What the visitor's settings say, in i18next's order of detection. */
function detected(): string[] {
  const found = [
    new URLSearchParams(location.search).get('lng'),
    new RegExp(`(?:^|;\\s*)${COOKIE}=([^;]*)`).exec(document.cookie)?.[1],
    storage('localStorage')?.getItem(STORED),
    storage('sessionStorage')?.getItem(STORED),
    ...(navigator.languages ?? [navigator.language]),
    document.documentElement.lang,
  ];
  return found.filter((c): c is string => typeof c === 'string' && /^[A-Za-z0-9_@.-]{1,128}$/.test(c));
}

/** As i18next picks: the first exact code we have (ar counts), else the first whose language part we have, else English. */
export function detectLanguage(codes = detected()): Language {
  const ours = [...LANGUAGES, 'ar'];
  const exact = codes.find((c) => ours.includes(c));
  const part = codes.map((c) => c.toLowerCase().split(/[-_]/)[0]).find((c) => ours.includes(c));
  return toSupported(exact ?? part ?? 'en');
}

/** Kept as i18next's detector keeps it: local storage, and a session cookie the server reads under /dealer. */
function remember(lng: Language) {
  try {
    storage('localStorage')?.setItem(STORED, lng);
  } catch {
    // Storage full or blocked: the choice lasts this page.
  }
  document.cookie = `${COOKIE}=${lng}; Path=/dealer; SameSite=Lax`;
}

/** A language's words (the page's own, a fetched file, or a test's). */
export function addWords(lng: Language, bundle: Words) {
  words[lng] = bundle;
}

async function loadBundle(lng: Language) {
  if (words[lng]) return;
  // Offline with no saved copy: the app still starts (English, or the keys, stand in).
  const res = await fetch(`/locales/${lng}/storefront.json`).catch(() => null);
  if (res?.ok) addWords(lng, (await res.json()) as Words);
}

export function applyDirection(lng: Language) {
  // 'ae' is this product's code for Arabic; the page says 'ar' (BCP 47) for screen readers and fonts.
  document.documentElement.lang = lng === 'ae' ? 'ar' : lng;
  document.documentElement.dir = lng === 'ae' ? 'rtl' : 'ltr';
}

export async function initI18n(): Promise<void> {
  const lng = detectLanguage();
  // The words the server put in the page, when they are this language's; else fetched.
  const boot = readBoot();
  if (boot?.lng === lng) addWords(lng, boot.words as Words);
  else await loadBundle(lng);
  // English backs up any missing word; it can arrive after the first paint.
  if (lng !== 'en') void loadBundle('en');
  setLanguage(lng);
}

/** Sets the language at once (its words must be there): remembered, and the page's lang and dir follow. */
export function setLanguage(lng: Language) {
  language = lng;
  remember(lng);
  applyDirection(lng);
}

export async function switchLanguage(lng: Language) {
  await loadBundle(lng);
  setLanguage(lng);
}

const rules = new Map<Language, Intl.PluralRules>();
const pluralOf = (lng: Language, count: number) => {
  if (!rules.has(lng)) rules.set(lng, new Intl.PluralRules(lng === 'ae' ? 'ar' : lng));
  return rules.get(lng)!.select(count);
};

function lookup(lng: Language, key: string): string | undefined {
  let node: string | Words | undefined = words[lng];
  for (const part of key.split('.')) node = typeof node === 'object' ? node[part] : undefined;
  return typeof node === 'string' ? node : undefined;
}

/** With a numeric count: key_zero for 0, then key_{plural form}, key_other, the key itself; in this language, then English. */
function find(lng: Language, key: string, count: unknown): string | undefined {
  if (typeof count !== 'number') return lookup(lng, key);
  const forms = [...(count === 0 ? ['zero'] : []), pluralOf(lng, count), 'other'];
  for (const form of forms) {
    const found = lookup(lng, `${key}_${form}`);
    if (found !== undefined) return found;
  }
  return lookup(lng, key);
}

/** The word of `key` in the current language with its {{values}} filled in; the key itself when there is none. */
export function t(key: string, vars?: Record<string, unknown>): string {
  const text = find(language, key, vars?.count) ?? (language === 'en' ? undefined : find('en', key, vars?.count)) ?? key;
  if (!vars) return text;
  return text.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (whole, name: string) => (name in vars ? String(vars[name] ?? '') : whole));
}

export const currentLanguage = () => language;
