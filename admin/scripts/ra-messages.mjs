// Writes locales/en/ra.json: react-admin's English messages (ra-language-english) in i18next
// form (convertRaTranslationsToI18next: %{x} -> {{x}}, "a |||| b" -> key_one / key_other).
// The ae and so files are translations of this one, kept by hand with the same keys.
// Run: node admin/scripts/ra-messages.mjs [--check]  (--check lists keys missing in ae/so)
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import english from 'ra-language-english';
import { convertRaTranslationsToI18next } from 'ra-i18n-i18next';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const flat = (o, p = '') => Object.entries(o).flatMap(([k, v]) => (typeof v === 'object' ? flat(v, `${p}${k}.`) : [`${p}${k}`]));
const en = convertRaTranslationsToI18next(english);
if (process.argv.includes('--check')) {
  const keys = flat(en);
  for (const lng of ['ae', 'so']) {
    const have = new Set(flat(JSON.parse(readFileSync(join(root, 'locales', lng, 'ra.json'), 'utf8'))));
    const missing = keys.filter((k) => !have.has(k));
    console.log(`${lng}: ${missing.length} missing`, missing.slice(0, 50));
  }
} else {
  writeFileSync(join(root, 'locales', 'en', 'ra.json'), `${JSON.stringify(en, null, 2)}\n`);
  console.log(flat(en).length, 'keys written');
}
