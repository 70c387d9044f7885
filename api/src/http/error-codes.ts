import fs from 'node:fs';
import path from 'node:path';
import { LOCALES_DIR } from '../i18n/server-i18n.ts';
import type { FieldErrors } from './errors.ts';

/**
 * Machine codes beside every error's translated message: stable, lowercase, dot-separated, never
 * translated, so an integrator branches on `code` and shows `message`. A message key maps to its code
 * by the table below, else by a rule on the key itself (`api:recharges.not_found` ->
 * `recharges.not_found`, `validation:phone_required` -> `validation.phone_required`), so a new key
 * still answers a stable code; error-codes.test.ts fails until such a code is listed in ERROR_CODES.
 */

export interface ErrorCodeInfo {
  code: string;
  /** The status it is usually answered with. */
  status: number;
  /** One English line for the docs and the OpenAPI document. */
  description: string;
}

/** Every top-level code the API can answer. */
export const ERROR_CODES: readonly ErrorCodeInfo[] = [
  // The request itself
  { code: 'bad_request', status: 400, description: 'The request could not be read.' },
  { code: 'invalid_json', status: 400, description: 'The body is not valid JSON.' },
  { code: 'multipart_invalid', status: 400, description: 'The multipart upload could not be read.' },
  { code: 'payload_too_large', status: 413, description: 'The body is larger than the API accepts.' },
  { code: 'validation.image_too_large', status: 413, description: 'The uploaded image is larger than allowed.' },
  { code: 'route_not_found', status: 404, description: 'No API route has this path.' },
  { code: 'not_found', status: 404, description: 'The record does not exist or is not visible to the caller.' },
  { code: 'validation.failed', status: 422, description: 'One or more fields are invalid; see errors_detail.' },
  { code: 'validation.unknown_parameter', status: 422, description: 'A query parameter the operation does not know was sent.' },
  { code: 'rate_limited', status: 429, description: 'Too many requests; retry after the Retry-After seconds.' },
  { code: 'duplicate', status: 409, description: 'A record with the same unique value already exists.' },
  { code: 'in_use', status: 409, description: 'The record is still used by others and cannot be removed.' },
  // Idempotency (IETF Idempotency-Key draft)
  { code: 'idempotency.key_missing', status: 400, description: 'The operation requires an Idempotency-Key header.' },
  { code: 'idempotency.key_invalid', status: 400, description: 'The Idempotency-Key header is malformed.' },
  { code: 'idempotency.key_reused', status: 422, description: 'The Idempotency-Key was already used with a different body.' },
  { code: 'idempotency.in_progress', status: 409, description: 'A request with the same Idempotency-Key is still being processed.' },
  // Who is calling
  { code: 'auth.unauthenticated', status: 401, description: 'No valid session or credentials were sent.' },
  { code: 'auth.invalid_credentials', status: 401, description: 'The email or password is wrong.' },
  { code: 'auth.session_expired', status: 401, description: 'The session has expired; sign in again.' },
  { code: 'auth.session_locked', status: 423, description: 'The session is locked; unlock it with the password.' },
  { code: 'auth.inactive', status: 403, description: 'The account is not active.' },
  { code: 'auth.forbidden', status: 403, description: 'The caller lacks the permission this operation needs.' },
  { code: 'auth.two_factor_enrolment_required', status: 403, description: "The user's role requires two-factor sign-in, which is not set up yet." },
  { code: 'two_factor.challenge_expired', status: 401, description: 'The two-factor sign-in step expired; sign in again.' },
  { code: 'two_factor.already_enabled', status: 409, description: 'Two-factor sign-in is already on.' },
  { code: 'two_factor.no_pending_setup', status: 409, description: 'There is no two-factor setup to confirm.' },
  { code: 'two_factor.not_enabled', status: 409, description: 'Two-factor sign-in is not on.' },
  { code: 'two_factor.required_by_role', status: 403, description: "The user's role requires two-factor sign-in; it cannot be turned off." },
  { code: 'two_factor.reset_self', status: 403, description: 'A user cannot reset their own two-factor sign-in.' },
  { code: 'storefront.csrf_invalid', status: 403, description: 'The storefront form token is missing or stale.' },
  { code: 'storefront.dealer_not_found', status: 404, description: 'No shop has this dealer code.' },
  // API keys (reseller API)
  { code: 'api_key.missing', status: 401, description: 'No API key was sent.' },
  { code: 'api_key.invalid', status: 401, description: 'The API key is not valid.' },
  { code: 'api_key.revoked', status: 401, description: 'The API key was revoked.' },
  { code: 'api_key.dealer_inactive', status: 401, description: "The API key's dealer account is not active." },
  { code: 'api_key.scope_missing', status: 403, description: 'The API key lacks the scope this operation needs.' },
  { code: 'api_key.address_not_allowed', status: 403, description: "The caller's IP address is not on the API key's allow-list." },
  { code: 'api_keys.not_found', status: 404, description: 'The API key does not exist.' },
  // Money and sales
  { code: 'wallet.insufficient_balance', status: 422, description: 'The wallet balance is too low for this operation.' },
  { code: 'wallet.amount_above_limit', status: 422, description: 'The amount is above the per-operation limit.' },
  { code: 'wallet.balance_above_ceiling', status: 422, description: "The credit would take the balance above the wallet's ceiling." },
  { code: 'wallets.no_wallet', status: 404, description: 'The dealer has no wallet in this currency.' },
  { code: 'wallets.only_dealers_request', status: 403, description: 'Only dealers can request a top-up.' },
  { code: 'wallets.request_already_decided', status: 409, description: 'The top-up request was already approved or rejected.' },
  { code: 'wallets.reference_reused', status: 409, description: 'The bank reference was already used.' },
  { code: 'wallets.reference_already_credited', status: 409, description: 'The bank reference was already credited by a top-up.' },
  { code: 'wallets.request_reference_credited', status: 409, description: 'The bank reference was already credited by a top-up request.' },
  { code: 'wallets.approval_reference_credited', status: 409, description: 'The bank reference was already credited by an approval.' },
  { code: 'wallets.reference_pending', status: 409, description: 'A pending top-up request already carries the bank reference.' },
  { code: 'wallets.payout_profit_only', status: 422, description: 'Only a "Profit Only" dealer asks for a payout.' },
  { code: 'wallets.profit_only_top_up', status: 422, description: 'A "Profit Only" dealer asks for a payout, not a top-up.' },
  { code: 'dealer_shop.dealers_only', status: 403, description: 'Only a dealer has a shop of its own (/my-shop).' },
  { code: 'bundle.unavailable', status: 422, description: 'The bundle is not offered to this caller.' },
  { code: 'bundle.not_deliverable', status: 422, description: 'The bundle has no delivery route right now.' },
  { code: 'phone.wrong_operator', status: 422, description: "The phone number is not on the bundle's operator." },
  { code: 'payment_method.unavailable', status: 422, description: 'The payment method is not offered.' },
  { code: 'payer.wrong_network', status: 422, description: "The payer's phone is not on the payment method's network." },
  { code: 'recharges.temporarily_unavailable', status: 422, description: 'The sale cannot be made right now; try later.' },
  { code: 'recharges.not_found', status: 404, description: 'The recharge does not exist or is not visible to the caller.' },
  { code: 'recharges.retry_not_possible', status: 409, description: 'The recharge cannot be retried in its current state.' },
  { code: 'recharges.refund_not_possible', status: 409, description: 'The recharge cannot be refunded in its current state.' },
  { code: 'recharges.nothing_to_refund', status: 409, description: 'Nothing was taken, so there is nothing to refund.' },
  { code: 'recharges.not_refund_due', status: 409, description: 'The recharge is not due a refund.' },
  { code: 'recharges.refund_profit_short', status: 409, description: "The dealer's profit wallet cannot cover the reversal." },
  { code: 'recharges.settle_not_possible', status: 409, description: 'The recharge cannot be settled in its current state.' },
  { code: 'recharge_batches.dealers_only', status: 403, description: 'Only a dealer sells a batch, from its own wallet.' },
  { code: 'recharge_batches.not_found', status: 404, description: "The batch does not exist or is not the caller's." },
  { code: 'recharge_batches.cancelled', status: 422, description: "A batch line's refusal: the batch was cancelled before the line was sold." },
  // Console administration
  { code: 'users.not_a_dealer', status: 422, description: 'The user is not a dealer.' },
  { code: 'users.dealers_only', status: 403, description: 'Only dealers can do this.' },
  { code: 'users.cannot_change_own_access', status: 403, description: 'A user cannot change their own role or status.' },
  { code: 'users.cannot_delete_self', status: 403, description: 'A user cannot delete themself.' },
  { code: 'users.grant_above_own', status: 403, description: 'A user cannot grant more than they hold.' },
  { code: 'users.target_above_own', status: 403, description: 'The target user holds more than the caller.' },
  { code: 'users.last_super_admin', status: 403, description: 'The last super admin cannot be removed.' },
  { code: 'users.has_financial_records', status: 409, description: 'The user has financial records and cannot be deleted for good.' },
  {
    code: 'users.pricing_change_needs_confirmation',
    status: 409,
    description: "The dealer's wallet holds money: send confirm_pricing_change to change its pricing model.",
  },
  { code: 'users.use_change_password', status: 403, description: 'Change your own password through the password form.' },
  { code: 'roles.protected', status: 403, description: 'The role is protected.' },
  { code: 'reports.margins_staff_only', status: 403, description: 'Margins are visible to staff only.' },
  { code: 'settings.mail_not_configured', status: 422, description: 'Outgoing mail is not set up.' },
  { code: 'settings.mail_test_failed', status: 422, description: 'The test mail could not be sent.' },
  { code: 'aggregators.not_found', status: 404, description: 'The aggregator does not exist.' },
  { code: 'webhooks.not_set', status: 404, description: 'No webhook is set up.' },
  {
    code: 'webhooks.test_key_cannot_manage',
    status: 403,
    description: 'A test key cannot set, remove or rotate the webhook endpoint (live events go to it too).',
  },
  { code: 'webhooks.delivery_not_found', status: 404, description: 'The webhook delivery does not exist.' },
  { code: 'webhooks.disabled', status: 409, description: 'The webhook endpoint is disabled; enable it first.' },
  { code: 'webhooks.sending_now', status: 409, description: 'The webhook delivery is being sent right now.' },
  { code: 'sms.case_closed_already', status: 409, description: 'The SMS case is closed already.' },
  { code: 'daily_close.closed', status: 409, description: 'The day is closed.' },
  { code: 'daily_close.already_closed', status: 409, description: 'The day is already closed.' },
  { code: 'daily_close.not_refreshed', status: 409, description: 'The day must be refreshed first.' },
  { code: 'daily_close.refresh_first', status: 409, description: 'Refresh the day before closing it.' },
  { code: 'daily_close.unhandled', status: 409, description: 'The day still has unhandled differences.' },
  { code: 'daily_close.already_handled', status: 409, description: 'The difference was already handled.' },
  { code: 'daily_close.not_in_review', status: 409, description: 'The recharge is not in review.' },
  { code: 'daily_close.adjust_forbidden', status: 403, description: 'The caller may not adjust wallets from the daily close.' },
  { code: 'daily_close.settle_forbidden', status: 403, description: 'The caller may not settle recharges from the daily close.' },
  // The server
  { code: 'server.error', status: 500, description: 'An unexpected error; it was logged with the request id.' },
  { code: 'database.busy', status: 503, description: 'The database is busy; retry after the Retry-After seconds.' },
  { code: 'database.unavailable', status: 503, description: 'The database is unreachable; retry after the Retry-After seconds.' },
  {
    code: 'health.not_ready',
    status: 503,
    description: 'GET /health/ready: the process should not get traffic now (draining, a stalled worker loop, or its database down); data.reasons says why.',
  },
];

/**
 * Field messages that are a domain refusal, not a typo: a 422 whose fields all carry the same one
 * answers its code at the top level (a short wallet is `wallet.insufficient_balance`, not
 * `validation.failed`), so a client tells them apart without reading the text.
 */
const REFUSALS: Record<string, string> = {
  'validation:idempotency_key_required': 'idempotency.key_missing',
  'validation:idempotency_key_invalid': 'idempotency.key_invalid',
  'validation:insufficient_balance': 'wallet.insufficient_balance',
  'validation:wallet_balance_too_low': 'wallet.insufficient_balance',
  'validation:amount_above_operation_limit': 'wallet.amount_above_limit',
  'validation:balance_above_ceiling': 'wallet.balance_above_ceiling',
  'validation:bundle_not_offered': 'bundle.unavailable',
  'validation:bundle_not_deliverable': 'bundle.not_deliverable',
  'validation:phone_wrong_operator': 'phone.wrong_operator',
  'validation:payment_method_not_offered': 'payment_method.unavailable',
  'validation:payer_wrong_network': 'payer.wrong_network',
  'validation:unknown_parameter': 'validation.unknown_parameter',
  'api:recharges.temporarily_unavailable': 'recharges.temporarily_unavailable',
};
const REFUSAL_KEYS = new Set(Object.keys(REFUSALS));

/** Keys whose code the rule on the key would not give (renamed, shared or merged). */
const KEY_CODES: Record<string, string> = {
  'api:errors.bad_request': 'bad_request',
  'api:errors.unauthenticated': 'auth.unauthenticated',
  'api:errors.forbidden': 'auth.forbidden',
  'api:errors.not_found': 'not_found',
  'api:errors.route_not_found': 'route_not_found',
  'api:errors.validation': 'validation.failed',
  'api:errors.server': 'server.error',
  'api:errors.payload_too_large': 'payload_too_large',
  'api:errors.rate_limited': 'rate_limited',
  'api:errors.busy': 'database.busy',
  'api:errors.database_unavailable': 'database.unavailable',
  'api:errors.duplicate': 'duplicate',
  'api:errors.in_use': 'in_use',
  'api:errors.multipart_invalid': 'multipart_invalid',
  'validation:invalid_json': 'invalid_json',
  // Every 429 answers one code: the client backs off the same way whatever throttled it.
  'api:auth.throttled': 'rate_limited',
  'api:api_keys.rate_limited': 'rate_limited',
  'api:two_factor.enrolment_required': 'auth.two_factor_enrolment_required',
  'api:api_keys.missing': 'api_key.missing',
  'api:api_keys.invalid': 'api_key.invalid',
  'api:api_keys.revoked': 'api_key.revoked',
  'api:api_keys.dealer_inactive': 'api_key.dealer_inactive',
  'api:api_keys.scope_missing': 'api_key.scope_missing',
  'api:api_keys.ip_not_allowed': 'api_key.address_not_allowed',
  'api:recharges.idempotency_key_reused': 'idempotency.key_reused',
  'api:wallets.idempotency_key_reused': 'idempotency.key_reused',
  'api:recharge_batches.idempotency_key_reused': 'idempotency.key_reused',
  'api:errors.idempotency_in_progress': 'idempotency.in_progress',
  ...REFUSALS,
};

/** The stable code of a message key ('api:...' / 'validation:...'). */
export function errorCodeOf(messageKey: string): string {
  const listed = KEY_CODES[messageKey];
  if (listed) return listed;
  const match = /^(api|validation):([\w.]+)$/.exec(messageKey);
  if (!match) return 'server.error';
  const [, ns, name] = match;
  if (ns === 'validation') return `validation.${name.toLowerCase()}`;
  return (name.startsWith('errors.') ? name.slice('errors.'.length) : name).toLowerCase();
}

/** A message that is not a key (a library's text) answers its status's generic code. */
const STATUS_CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'auth.unauthenticated',
  403: 'auth.forbidden',
  404: 'not_found',
  413: 'payload_too_large',
  422: 'validation.failed',
  423: 'auth.session_locked',
  429: 'rate_limited',
};

/**
 * The top-level code of an error: its explicit code, else its message's. A 422 "check the fields"
 * whose fields all carry one domain refusal answers that refusal's code, else `validation.failed`.
 */
export function topLevelCode(message: string, errors?: FieldErrors, explicit?: string, status = 500): string {
  if (explicit) return explicit;
  if (message === 'api:errors.validation' && errors) {
    const keys = Object.values(errors).flat();
    const codes = new Set(keys.map(errorCodeOf));
    if (keys.length && keys.every((k) => REFUSAL_KEYS.has(k)) && codes.size === 1) return [...codes][0];
  }
  if (!/^(api|validation):[\w.]+$/.test(message)) return STATUS_CODES[status] ?? (status < 500 ? 'bad_request' : 'server.error');
  return errorCodeOf(message);
}

/** Field messages that are 'api:' keys (the rest are 'validation:' keys). */
const API_FIELD_KEYS = [
  'api:errors.sort_invalid',
  'api:errors.order_invalid',
  'api:errors.bulk_array_required',
  'api:errors.bulk_too_many',
  'api:recharge_batches.idempotency_key_reused',
  'api:recharges.temporarily_unavailable',
  'api:users.not_a_dealer',
  'api:wallets.reference_reused',
  'api:wallets.reference_already_credited',
  'api:wallets.request_reference_credited',
  'api:wallets.approval_reference_credited',
  'api:wallets.reference_pending',
];

function validationKeys(): string[] {
  const file = path.join(LOCALES_DIR, 'en', 'validation.json');
  const walk = (node: Record<string, unknown>, prefix: string): string[] =>
    Object.entries(node).flatMap(([k, v]) => (v && typeof v === 'object' ? walk(v as Record<string, unknown>, `${prefix}${k}.`) : [`${prefix}${k}`]));
  return walk(JSON.parse(fs.readFileSync(file, 'utf8')), '').map((k) => `validation:${k}`);
}

/**
 * Every per-field code (errors_detail[].code): a field's code is its message key's code, so a
 * domain refusal carries its domain code (`wallet.insufficient_balance`) and a plain check
 * `validation.<key>` (`validation.phone_required`).
 */
export const FIELD_ERROR_CODES: readonly string[] = [...new Set([...validationKeys(), ...API_FIELD_KEYS].map(errorCodeOf))].sort();
