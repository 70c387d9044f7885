import { describe, expect, it } from 'vitest';
import { WORDS } from './test-helpers';

/** Every word exists in en, ae and so, with the same {{values}}. */
const flat = (o: Record<string, unknown>, at = ''): [string, string][] =>
  Object.entries(o).flatMap(([k, v]) => (typeof v === 'string' ? [[at + k, v] as [string, string]] : flat(v as Record<string, unknown>, `${at}${k}.`)));
const values = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();

describe("the storefront's words", () => {
  it('are the same keys with the same values in every language', () => {
    const en = Object.fromEntries(flat(WORDS.en));
    for (const lng of ['ae', 'so'] as const) {
      const other = Object.fromEntries(flat(WORDS[lng]));
      // Plural forms differ by language (Arabic has more); the rest must match.
      const plain = (keys: string[]) => keys.filter((k) => !/_(zero|one|two|few|many|other)$/.test(k)).sort();
      expect(plain(Object.keys(other))).toEqual(plain(Object.keys(en)));
      for (const key of plain(Object.keys(en))) expect([key, values(other[key])]).toEqual([key, values(en[key])]);
    }
  });
});
