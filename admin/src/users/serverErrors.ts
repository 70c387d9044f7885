import type { ApiErrorBody } from '../providers/http';
import { errorText } from '../providers/errors';

/**
 * Splits a failed save per docs/product.md section 8: the first message of each known field goes on
 * that field, dealer_logo to the logo area, anything else to the general "Error" banner. A known
 * field ending in ".*" stands for its nested paths (starter_payment_methods.<id>).
 */
export function splitServerErrors(error: unknown, knownFields: readonly string[]): { fields: Record<string, string>; logo?: string; banner?: string } {
  const e = error as { message?: string; body?: ApiErrorBody };
  const errors = e?.body?.errors ?? {};
  const fields: Record<string, string> = {};
  let logo: string | undefined;
  const unknown: string[] = [];
  for (const [field, message] of Object.entries(errors)) {
    if (field === 'dealer_logo' || field === 'logo') logo = message;
    else if (knownFields.some((k) => k === field || (k.endsWith('.*') && field.startsWith(k.slice(0, -1))))) fields[field] = message;
    else unknown.push(message);
  }
  const handled = Object.keys(fields).length > 0 || !!logo;
  const banner = unknown.length ? unknown[0] : handled ? undefined : e?.body?.message || e?.message || errorText('form_generic');
  return { fields, logo, banner };
}
