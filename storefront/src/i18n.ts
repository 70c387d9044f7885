import i18next from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import { applyPluralLocales } from '@app/contracts/plural-rules';
import { readBoot } from './boot';

/**
 * en, ae (Arabic, right to left) and so, from the same locales/ files as the console
 * (/locales/{lng}/storefront.json), detected in the console's order: ?lng, cookie, local storage,
 * session storage, the browser, the html lang attribute.
 */
export const LANGUAGES = ['en', 'ae', 'so'] as const;
export type Language = (typeof LANGUAGES)[number];

const toSupported = (lng: string | undefined): Language => {
  const base = (lng ?? 'en').toLowerCase().split(/[-_]/)[0];
  if (base === 'ar') return 'ae';
  return (LANGUAGES as readonly string[]).includes(base) ? (base as Language) : 'en';
};

async function loadBundle(lng: Language) {
  if (i18next.hasResourceBundle(lng, 'storefront')) return;
  // Offline with no saved copy: the app still starts (English, or the keys, stand in).
  const res = await fetch(`/locales/${lng}/storefront.json`).catch(() => null);
  if (res?.ok) i18next.addResourceBundle(lng, 'storefront', await res.json(), true, true);
}

export function applyDirection(lng: Language) {
  // 'ae' is this product's code for Arabic; the page says 'ar' (BCP 47) for screen readers and fonts.
  document.documentElement.lang = lng === 'ae' ? 'ar' : lng;
  document.documentElement.dir = lng === 'ae' ? 'rtl' : 'ltr';
}

export async function initI18n(): Promise<void> {
  await i18next.use(LanguageDetector).init({
    ns: ['storefront'],
    defaultNS: 'storefront',
    fallbackLng: 'en',
    supportedLngs: [...LANGUAGES, 'ar'],
    load: 'languageOnly',
    interpolation: { escapeValue: false },
    resources: {},
    // Kept in a cookie under /dealer too, so the server writes the next page in this language
    // (the console, outside /dealer, keeps its own choice).
    detection: {
      order: ['querystring', 'cookie', 'localStorage', 'sessionStorage', 'navigator', 'htmlTag'],
      lookupQuerystring: 'lng',
      caches: ['localStorage', 'cookie'],
      cookieOptions: { path: '/dealer', sameSite: 'lax' },
    },
  });
  // Arabic's plural forms for 'ae', whatever the phone's own language.
  applyPluralLocales(i18next);
  const lng = toSupported(i18next.language);
  // The words the server put in the page, when they are this language's; else fetched.
  const boot = readBoot();
  if (boot?.lng === lng) i18next.addResourceBundle(lng, 'storefront', boot.words, true, true);
  else await loadBundle(lng);
  // English backs up any missing word; it can arrive after the first paint.
  if (lng !== 'en') void loadBundle('en');
  await i18next.changeLanguage(lng);
  applyDirection(lng);
}

export async function switchLanguage(lng: Language) {
  await loadBundle(lng);
  await i18next.changeLanguage(lng);
  applyDirection(lng);
}

export const t = (key: string, vars?: Record<string, unknown>) => i18next.t(key, vars) as string;
export const currentLanguage = () => toSupported(i18next.language);
