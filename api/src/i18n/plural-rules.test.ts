import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import i18next from 'i18next';
import { applyPluralLocales, pluralLocale } from '@app/contracts/plural-rules';
import { LANGUAGES, LOCALES_DIR } from './server-i18n.ts';

const FORMS = ['zero', 'one', 'two', 'few', 'many', 'other'] as const;
const COUNTS = [0, 1, 2, 3, 11, 100];

const words = {
  forms: Object.fromEntries(FORMS.map((f) => [`n_${f}`, f])),
  plain: { n_one: 'one', n_other: 'other' },
};

async function instance(lng: string, resources: Record<string, string>, patchFirst: boolean) {
  const i18n = i18next.createInstance();
  if (patchFirst) applyPluralLocales(i18n);
  await i18n.init({ lng, fallbackLng: 'en', resources: { en: { translation: { n_one: 'EN', n_other: 'EN' } }, [lng]: { translation: resources } } });
  if (!patchFirst) applyPluralLocales(i18n);
  return i18n;
}

describe("plural forms of the product's languages", () => {
  it("'ae' takes Arabic's six forms, whether the instance is patched before or after init (Node alone gives it English's)", async () => {
    expect(pluralLocale('ae')).toBe('ar');
    expect(pluralLocale('ae-SO')).toBe('ar');
    expect(pluralLocale('so')).toBe('so');
    for (const patchFirst of [true, false]) {
      const i18n = await instance('ae', words.forms, patchFirst);
      expect(COUNTS.map((count) => i18n.t('n', { count }))).toEqual(['zero', 'one', 'two', 'few', 'many', 'other']);
    }
    // Unpatched, Intl knows no 'ae' and takes the runtime's default locale: here English, so 2 is "other".
    const plain = i18next.createInstance();
    await plain.init({ lng: 'ae', resources: { ae: { translation: words.forms } } });
    expect(plain.t('n', { count: 2 })).toBe('other');
  });

  it('Somali and English keep their own rules', async () => {
    for (const lng of ['en', 'so']) {
      const i18n = await instance(lng, words.plain, true);
      expect(COUNTS.map((count) => i18n.t('n', { count }))).toEqual(['other', 'one', 'other', 'other', 'other', 'other']);
    }
  });

  it('every counted word, in every language and file, has each form its rules can pick (else a plain word): a count never falls to English', () => {
    const flat = (o: Record<string, unknown>, at = ''): string[] =>
      Object.entries(o).flatMap(([k, v]) => (typeof v === 'string' ? [at + k] : flat(v as Record<string, unknown>, `${at}${k}.`)));
    const missing: string[] = [];
    for (const lng of LANGUAGES) {
      const rules = new Intl.PluralRules(pluralLocale(lng));
      const picked = new Set(Array.from({ length: 1001 }, (_, n) => rules.select(n)));
      for (const file of fs.readdirSync(path.join(LOCALES_DIR, lng)).filter((f) => f.endsWith('.json'))) {
        const keys = new Set(flat(JSON.parse(fs.readFileSync(path.join(LOCALES_DIR, lng, file), 'utf8'))));
        const counted = new Set([...keys].filter((k) => k.endsWith('_other')).map((k) => k.slice(0, -'_other'.length)));
        for (const base of counted) {
          if (keys.has(base)) continue;
          for (const form of picked) if (!keys.has(`${base}_${form}`)) missing.push(`${lng}/${file} ${base}_${form}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
