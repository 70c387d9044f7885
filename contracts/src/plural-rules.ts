/**
 * 'ae' is this product's code for Arabic, but to Intl it is Avestan, which it does not know:
 * `new Intl.PluralRules('ae')` quietly takes the runtime's default locale instead (English on a
 * server or an English browser, Arabic in an Arabic browser). The same count could then pick
 * `_other` for one user and `_few` for the next, and a form the file lacks falls through to English.
 * This gives 'ae' Arabic's six forms (zero, one, two, few, many, other) everywhere.
 */
export const PLURAL_LOCALE: Record<string, string> = { ae: 'ar' };

/** The BCP 47 locale whose plural rules a product language code follows ('ae' -> 'ar'). */
export const pluralLocale = (code: string): string => {
  const base = code.split(/[-_]/)[0];
  return PLURAL_LOCALE[base] ?? code;
};

/** The part of an i18next instance this needs (kept structural: contracts does not depend on i18next). */
interface PluralResolving {
  services?: { pluralResolver?: { getRule: (code: string, options?: object) => unknown } };
  on(event: 'initialized', listener: () => void): void;
}

const patched = new WeakSet<object>();

/**
 * Makes an i18next instance choose plural forms by `pluralLocale`. Call it before or after `init`:
 * the resolver only exists once init has run, so an uninitialised instance is patched when it is.
 * i18next has no option for a language's plural locale, so its resolver's `getRule` is wrapped.
 */
export function applyPluralLocales(i18n: PluralResolving): void {
  const patch = () => {
    const resolver = i18n.services?.pluralResolver;
    if (!resolver || patched.has(resolver)) return;
    const getRule = resolver.getRule.bind(resolver);
    resolver.getRule = (code: string, options?: object) => getRule(code ? pluralLocale(code) : code, options);
    patched.add(resolver);
  };
  patch();
  i18n.on('initialized', patch);
}
