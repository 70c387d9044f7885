import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInstance } from 'i18next';
import { getI18nProvider } from 'ra-i18n-i18next';
import { applyPluralLocales } from '@app/contracts/plural-rules';

/** An i18nProvider reading the real locales/ files from disk (no HTTP in unit tests). */
export async function testI18nProvider(lng = 'en') {
  const load = (ns: string) => JSON.parse(readFileSync(resolve(__dirname, '../../../locales', lng, `${ns}.json`), 'utf8'));
  const instance = createInstance();
  // As the console's instance: Arabic's six plural forms for 'ae' (src/i18n/i18n.ts).
  applyPluralLocales(instance);
  return getI18nProvider(instance, {
    lng,
    ns: ['admin', 'ra', 'validation'],
    defaultNS: 'admin',
    fallbackNS: ['ra'],
    resources: { [lng]: { admin: load('admin'), ra: load('ra'), validation: load('validation') } },
    interpolation: { escapeValue: false },
  });
}
