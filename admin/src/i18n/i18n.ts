import { createInstance } from 'i18next';
import HttpBackend from 'i18next-http-backend';
import LanguageDetector from 'i18next-browser-languagedetector';
import { applyPluralLocales } from '@app/contracts/plural-rules';

/**
 * The console's i18next instance, left uninitialised: ra-i18n-i18next initialises it with
 * i18nOptions below (admin/README.md). Translations come over HTTP from the API's
 * /locales/{lng}/{ns}.json; only the base language part is loaded ("ae-SO" loads "ae").
 */
export const LANGUAGES = [
  { locale: 'en', name: 'English' },
  { locale: 'ae', name: 'العربية' },
  { locale: 'so', name: 'Soomaali' },
] as const;

/** i18next takes "ae" for Avestan, so right-to-left is our own map, not i18next's dir(). */
const RTL_LANGUAGES = new Set(['ae', 'ar']);
export const isRtl = (lng: string | undefined): boolean => RTL_LANGUAGES.has(String(lng ?? '').split('-')[0]);

const i18n = createInstance();
i18n.use(HttpBackend).use(LanguageDetector);
// Arabic's plural forms for 'ae', whatever the browser's own language.
applyPluralLocales(i18n);
export default i18n;

export const NAMESPACES = ['admin', 'ra', 'validation'];

export const i18nOptions = {
  // Unset, so that the detector decides (ra-i18n-i18next would otherwise force 'en').
  lng: undefined,
  fallbackLng: 'en',
  supportedLngs: LANGUAGES.map((l) => l.locale),
  load: 'languageOnly' as const,
  nonExplicitSupportedLngs: true,
  ns: NAMESPACES,
  defaultNS: 'admin',
  // react-admin asks for 'ra.action.save' without a namespace: look in the ra file too.
  fallbackNS: ['ra'],
  interpolation: { escapeValue: false },
  detection: {
    order: ['querystring', 'cookie', 'localStorage', 'sessionStorage', 'navigator', 'htmlTag'],
    lookupQuerystring: 'lng',
    lookupCookie: 'i18next',
    lookupLocalStorage: 'i18nextLng',
    caches: ['localStorage'],
    // A browser set to Arabic ('ar', 'ar-SO') gets the product's Arabic, which is called 'ae'.
    convertDetectedLanguage: (lng: string) => (lng.split('-')[0] === 'ar' ? 'ae' : lng),
  },
  backend: {
    loadPath: '/locales/{{lng}}/{{ns}}.json',
    addPath: '/locales/add/{{lng}}/{{ns}}',
  },
  // The add-missing path is for development only.
  saveMissing: import.meta.env.DEV,
  react: { useSuspense: false },
};
