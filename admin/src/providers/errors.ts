import i18n from '../i18n/i18n';

/**
 * The error catalogue of docs/product.md section 8: each situation and its exact English text. The
 * texts are translated through the admin namespace (errors.*) with the English as default.
 */
export const ERROR_MESSAGES = {
  timeout: 'Request timeout exceeded. Please try again.',
  network: 'Network error. Please check your connection.',
  login_failed: 'Authentication failed. Please check your credentials.',
  session_expired: 'Your session has expired. Please login again.',
  forbidden: 'You do not have permission to perform this action.',
  not_found: 'The requested resource was not found.',
  validation: 'Validation failed. Please check your inputs.',
  server: 'Server error. Please try again later.',
  unexpected: 'An unexpected error occurred.',
  auth_generic: 'An error occurred. Please try again.',
  form_generic: 'An unexpected error occurred. Please try again.',
} as const;

export type ErrorKind = keyof typeof ERROR_MESSAGES;

export const errorText = (kind: ErrorKind): string =>
  i18n.isInitialized ? i18n.t(`admin:errors.${kind}`, { defaultValue: ERROR_MESSAGES[kind] }) : ERROR_MESSAGES[kind];

/**
 * Chooses the catalogue message for an HTTP status (and the server's body where it counts). A 403
 * for a rule of docs/product.md section 6 ("You cannot delete your own account.", code
 * users.cannot_delete_self) keeps the server's words; a missing permission (auth.forbidden, or no
 * code) reads the catalogue's.
 */
export function messageForStatus(status: number, serverMessage: string | undefined, isLogin: boolean, code?: string): string {
  if (status === 401) return isLogin ? serverMessage || errorText('login_failed') : errorText('session_expired');
  if (status === 403) return serverMessage && code && code !== 'auth.forbidden' ? serverMessage : errorText('forbidden');
  if (status === 404) return errorText('not_found');
  if (status === 422) return serverMessage || errorText('validation');
  if (status >= 500) return errorText('server');
  return serverMessage || errorText('unexpected');
}

/** The server's first message for one field of a 422 (docs/product.md section 8: shown on that field). */
export function serverFieldError(error: unknown, field: string): string | undefined {
  const e = error as { status?: number; body?: { errors?: Record<string, string[] | string> } };
  const messages = e?.body?.errors?.[field];
  return Array.isArray(messages) ? messages[0] : messages;
}

/**
 * Every field's messages of a 422, whole: all of a field's messages in the server's order, joined
 * (never cut to a first character or a first message). Empty when the answer named no field.
 */
export function fieldErrors(error: unknown): Record<string, string> {
  const body = (error as { body?: { errors?: Record<string, unknown>; allErrors?: Record<string, unknown> } })?.body;
  const source = body?.allErrors ?? body?.errors ?? {};
  const out: Record<string, string> = {};
  for (const [field, messages] of Object.entries(source)) {
    const list = (Array.isArray(messages) ? messages : [messages]).filter((m) => m !== null && m !== undefined && m !== '').map(String);
    if (list.length) out[field] = list.join(' ');
  }
  return out;
}

/** The server's own message of a failed call (409, 422 ...), else the catalogue text the call carries. */
export function serverMessage(error: unknown): string {
  const e = error as { message?: string; body?: { message?: string } };
  return e?.body?.message || e?.message || errorText('unexpected');
}

/** Auth error text order of docs/product.md section 8: message, else errors.auth[0], else the generic text. */
export function authErrorText(error: unknown): string {
  const e = error as { message?: string; body?: { message?: string; errors?: Record<string, string[] | string> } };
  const fromBody = e?.body?.message;
  const authErr = e?.body?.errors?.auth;
  return fromBody || e?.message || (Array.isArray(authErr) ? authErr[0] : authErr) || errorText('auth_generic');
}
