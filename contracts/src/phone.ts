/**
 * Somali mobile numbers (docs/product.md section 5, "Storefront purchase"): 9 digits after +252,
 * 00252 or a leading 0. Zod-free, so the storefront bundles it without the schemas; the API's
 * purchase schema uses it too.
 */

/** "+252 61 512 3456", "00252615123456", "0615123456" or "615123456" -> "615123456"; null otherwise. */
export function nationalNumber(input: string): string | null {
  const digits = input.replace(/[\s().-]/g, '');
  const m = /^(?:\+252|00252|252|0)?(\d{9})$/.exec(digits);
  return m ? m[1] : null;
}

export type PhoneCheck = { ok: true; national: string } | { ok: false; reason: 'empty' | 'incomplete' | 'invalid' | 'wrong_operator' };

/**
 * Checks a number as the customer types it: still short ("incomplete"), not a Somali mobile number
 * ("invalid"), or not one of the operator's prefixes ("wrong_operator").
 */
export function checkPhone(input: string, prefixes: readonly string[]): PhoneCheck {
  const raw = input.replace(/[\s().-]/g, '');
  if (!raw) return { ok: false, reason: 'empty' };
  if (!/^\+?\d*$/.test(raw)) return { ok: false, reason: 'invalid' };
  const national = nationalNumber(raw);
  if (!national) {
    const rest = raw.replace(/^(?:\+252|00252|252|0)/, '');
    return rest.length < 9 ? { ok: false, reason: 'incomplete' } : { ok: false, reason: 'invalid' };
  }
  if (prefixes.length && !prefixes.some((p) => national.startsWith(p))) return { ok: false, reason: 'wrong_operator' };
  return { ok: true, national };
}
