import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addWords, currentLanguage, detectLanguage, initI18n, setLanguage, t } from './i18n';
import { WORDS } from './test-helpers';

beforeEach(() => {
  for (const [code, bundle] of Object.entries(WORDS)) addWords(code as keyof typeof WORDS, bundle);
});
afterEach(() => {
  localStorage.clear();
  document.cookie = 'i18next=; Path=/dealer; Max-Age=0';
  history.replaceState(null, '', '/');
});

describe('words', () => {
  it('fill in their values, and leave a value nobody passed as it is', () => {
    setLanguage('en');
    expect(t('shop.buy_named', { bundle: '1 GB Daily' })).toBe(WORDS.en.shop.buy_named.replace('{{bundle}}', '1 GB Daily'));
    expect(t('shop.buy_named')).toBe(WORDS.en.shop.buy_named);
  });

  it('take the plural form of the count: key_one, key_other (Arabic too), with the count written in', () => {
    setLanguage('en');
    expect(t('bundle.days', { count: 1 })).toBe(WORDS.en.bundle.days_one.replace('{{count}}', '1'));
    expect(t('bundle.days', { count: 30 })).toBe(WORDS.en.bundle.days_other.replace('{{count}}', '30'));
    setLanguage('ae');
    // Arabic's own forms (two, few, many) fall back to _other when the file has no such word.
    for (const n of [0, 2, 5, 30]) expect(t('bundle.days', { count: n })).toBe(WORDS.ae.bundle.days_other.replace('{{count}}', String(n)));
    expect(t('bundle.days', { count: 1 })).toBe(WORDS.ae.bundle.days_one.replace('{{count}}', '1'));
  });

  it('come in English when a language lacks one, and as the key when none has it', () => {
    addWords('so', { ...WORDS.so, shop: { ...WORDS.so.shop, buy: undefined as unknown as string } });
    setLanguage('so');
    expect(t('shop.buy')).toBe(WORDS.en.shop.buy);
    expect(t('shop.no_such_word')).toBe('shop.no_such_word');
  });
});

describe('the language', () => {
  it('is found in i18next’s order: ?lng, cookie, local storage, session storage, browser, html lang', () => {
    expect(detectLanguage(['so', 'ae'])).toBe('so');
    // ar (the browser's, the page's) is this product's ae.
    expect(detectLanguage(['ar'])).toBe('ae');
    // An exact code first, anywhere in the list; then the first language part we have.
    expect(detectLanguage(['en-US', 'so'])).toBe('so');
    expect(detectLanguage(['ar-SO', 'fr'])).toBe('ae');
    expect(detectLanguage(['fr', 'de'])).toBe('en');
    expect(detectLanguage([])).toBe('en');
  });

  it('follows ?lng and is kept in local storage and the cookie the server reads; the page turns right to left', async () => {
    history.replaceState(null, '', '/dealer/DEMO?lng=ae');
    await initI18n();
    expect(currentLanguage()).toBe('ae');
    expect(localStorage.getItem('i18nextLng')).toBe('ae');
    expect(document.cookie).toContain('i18next=ae');
    expect([document.documentElement.lang, document.documentElement.dir]).toEqual(['ar', 'rtl']);
    history.replaceState(null, '', '/dealer/DEMO');
    localStorage.setItem('i18nextLng', 'so');
    document.cookie = 'i18next=; Path=/dealer; Max-Age=0';
    await initI18n();
    expect(currentLanguage()).toBe('so');
    expect(document.documentElement.dir).toBe('ltr');
  });
});
