import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Request, Response } from 'express';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import { parse as parseCookies } from 'cookie';
import { RECOVERY_CODE_ALPHABET, RECOVERY_CODE_COUNT, type TwoFactorStatus } from '@app/contracts';
import { openSecret, sealSecret } from '../settings/secret-box.ts';
import { readCompanySettings } from '../settings/company-settings.ts';
import { addSeconds, fromDbTime, toDbTime } from '../database/time.ts';
import { encodeId } from '../http/ids.ts';
import { AppError, forbidden } from '../http/errors.ts';
import { keyedHash } from './tokens.ts';
import type { User } from '../users/user.model.ts';

/**
 * Two-factor sign-in for staff (docs/api-conventions.md, "Two-factor sign-in"; OWASP ASVS 5.0 V6):
 * - TOTP of RFC 6238 (otpauth): SHA-1, 6 digits, 30 s steps, one step either side accepted. The
 *   secret is sealed with AES-256-GCM under APP_KEY; the last accepted step is kept and a code is
 *   accepted only for a later step, by one conditional UPDATE, so a code works once even when
 *   sent twice at the same moment.
 * - Ten recovery codes, shown once, kept as keyed hashes, each used once (one conditional UPDATE).
 * - Trusted devices: a random token in an httpOnly cookie, kept as a keyed hash, for 30 days;
 *   forgotten when the second factor is turned off or reset, or the password changes.
 */
const DIGITS = 6;
const PERIOD = 30;
const WINDOW = 1;
export const TRUSTED_DEVICE_DAYS = 30;
const DEVICE_COOKIE_PREFIX = 'tfd_';
const DEVICE_COOKIE_PATH = '/api/v1/auth';

type Db = Knex | Knex.Transaction;

interface CredentialRow {
  user_id: number;
  secret: string;
  confirmed_at: string | null;
  last_used_step: number | string | null;
}

/** Roles that require the second factor make a user without one able to enrol and nothing else. */
export function mustEnrolTwoFactor(user: Pick<User, 'two_factor_enabled_at' | 'roles'>): boolean {
  return !user.two_factor_enabled_at && twoFactorRequired(user);
}

export function twoFactorRequired(user: Pick<User, 'roles'>): boolean {
  return (user.roles ?? []).some((r) => !r.deleted_at && Boolean(r.requires_two_factor));
}

/** A 403 with code auth.two_factor_enrolment_required (error-codes.ts), on which the console opens the enrolment. */
export function enrolmentRequired(): AppError {
  return forbidden('api:two_factor.enrolment_required');
}

/** Whether any live role of the user requires the second factor, read from the database. */
export async function requiredByRoles(db: Db, userId: number): Promise<boolean> {
  const row = await db('user_roles')
    .join('roles', 'roles.id', 'user_roles.role_id')
    .where('user_roles.user_id', userId)
    .whereNull('roles.deleted_at')
    .where('roles.requires_two_factor', true)
    .first('roles.id');
  return Boolean(row);
}

async function credentialOf(db: Db, userId: number): Promise<CredentialRow | undefined> {
  return db('two_factor_credentials').where('user_id', userId).first();
}

function totpFor(secretBase32: string, issuer = 'Console', account = 'user'): TOTP {
  return new TOTP({ issuer, label: account, algorithm: 'SHA1', digits: DIGITS, period: PERIOD, secret: Secret.fromBase32(secretBase32) });
}

/** The time step a code belongs to (within one step of now), or null when it is not the code of any. */
export function matchingStep(secretBase32: string, code: string, now = Date.now()): number | null {
  const delta = totpFor(secretBase32).validate({ token: code, timestamp: now, window: WINDOW });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD) + delta;
}

/** The confirmed secret of a user, opened; null when two-factor is off or the secret cannot be read. */
export async function confirmedSecret(db: Db, userId: number): Promise<string | null> {
  const row = await credentialOf(db, userId);
  if (!row?.confirmed_at) return null;
  return openSecret(row.secret);
}

/**
 * Accept a code's step for a user with two-factor on: one conditional UPDATE, true when this call
 * moved the last used step forward. A code already accepted (or an older one) matches no row.
 */
export async function consumeStep(db: Db, userId: number, step: number): Promise<boolean> {
  const changed = await db('two_factor_credentials')
    .where('user_id', userId)
    .whereNotNull('confirmed_at')
    .where((w) => w.whereNull('last_used_step').orWhere('last_used_step', '<', step))
    .update({ last_used_step: step, updated_at: toDbTime() });
  return Number(changed) === 1;
}

/**
 * Every change to a user's second factor (and every sign-in) locks the user row first, so they
 * apply one after another and in one order (no InnoDB deadlock). SQLite serialises writers anyway.
 */
export async function lockUserRow(db: Db, userId: number): Promise<void> {
  await db('users').where('id', userId).forUpdate().first('id');
}

/**
 * Turn two-factor on with the pending secret the code was checked against (`sealed`, so a setup
 * started meanwhile in another tab is not confirmed by a code of the old secret): conditional,
 * true for exactly one of two confirmations at once. Call with the user row locked.
 */
export async function confirmEnrolment(db: Db, userId: number, sealed: string, step: number): Promise<boolean> {
  const now = toDbTime();
  const changed = await db('two_factor_credentials')
    .where({ user_id: userId, secret: sealed })
    .whereNull('confirmed_at')
    .update({ confirmed_at: now, last_used_step: step, updated_at: now });
  if (Number(changed) !== 1) return false;
  await db('users').where('id', userId).update({ two_factor_enabled_at: now });
  return true;
}

/**
 * How long a setup not confirmed yet keeps its secret: a reload or a second tab within it shows
 * the same QR code (a code from either works); after it, a setup makes a new secret.
 */
export const PENDING_SETUP_MINUTES = 10;

interface PendingCredential extends CredentialRow {
  updated_at: unknown;
}

/** The pending secret of `row` while it is younger than PENDING_SETUP_MINUTES (its updated_at: when it was made), opened. */
function reusableSecret(row: PendingCredential | undefined, now: Date): string | null {
  if (!row || row.confirmed_at) return null;
  const madeAt = fromDbTime(row.updated_at);
  if (!madeAt || now.getTime() - Date.parse(madeAt) >= PENDING_SETUP_MINUTES * 60_000) return null;
  return openSecret(row.secret);
}

/**
 * The secret for the user to scan: the pending one while it is recent (so every load shows the
 * same QR), else a new one replacing it. `reused` says which. Refused (409) while one is
 * confirmed. Call with the user row locked.
 */
export async function startEnrolment(db: Db, user: Pick<User, 'id' | 'email'>) {
  const now = new Date();
  const existing = (await credentialOf(db, user.id)) as PendingCredential | undefined;
  if (existing?.confirmed_at) throw new AppError(409, 'api:two_factor.already_enabled');
  const kept = reusableSecret(existing, now);
  const secret = kept ?? new Secret({ size: 20 }).base32;
  if (!kept) {
    const sealed = sealSecret(secret);
    const at = toDbTime(now);
    if (existing) {
      await db('two_factor_credentials').where('user_id', user.id).update({ secret: sealed, last_used_step: null, updated_at: at });
    } else {
      await db('two_factor_credentials').insert({ user_id: user.id, secret: sealed, confirmed_at: null, last_used_step: null, created_at: at, updated_at: at });
    }
  }
  const issuer = (await readCompanySettings(db)).company_name || 'Console';
  const totp = totpFor(secret, issuer, user.email);
  const otpauthUrl = totp.toString();
  const svg = await QRCode.toString(otpauthUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  const setup = {
    secret,
    otpauth_url: otpauthUrl,
    qr_code: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`,
    issuer,
    account: user.email,
  };
  return { setup, reused: kept !== null };
}

/** The pending (unconfirmed) secret of a user, opened and as stored; null when none. */
export async function pendingSecret(db: Db, userId: number): Promise<{ secret: string; sealed: string } | null> {
  const row = await credentialOf(db, userId);
  if (!row || row.confirmed_at) return null;
  const secret = openSecret(row.secret);
  return secret ? { secret, sealed: row.secret } : null;
}

const recoveryHash = (code: string) => keyedHash('recovery-code', code.replace(/[\s-]/g, '').toUpperCase());

/** Ten new recovery codes (the old ones go); the plain codes are returned once, only hashes stay. */
export async function replaceRecoveryCodes(db: Db, userId: number): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from({ length: 10 }, () => RECOVERY_CODE_ALPHABET[crypto.randomInt(RECOVERY_CODE_ALPHABET.length)]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
  await db('two_factor_recovery_codes').where('user_id', userId).delete();
  const now = toDbTime();
  await db('two_factor_recovery_codes').insert(codes.map((c) => ({ user_id: userId, code_hash: recoveryHash(c), used_at: null, created_at: now })));
  return codes;
}

/** Use a recovery code: one conditional UPDATE, so of two uses at once exactly one succeeds. */
export async function consumeRecoveryCode(db: Db, userId: number, code: string): Promise<boolean> {
  const changed = await db('two_factor_recovery_codes')
    .where({ user_id: userId, code_hash: recoveryHash(code) })
    .whereNull('used_at')
    .update({ used_at: toDbTime() });
  return Number(changed) === 1;
}

export async function recoveryCodesLeft(db: Db, userId: number): Promise<number> {
  const row = await db('two_factor_recovery_codes').where('user_id', userId).whereNull('used_at').count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/** Everything of a user's second factor goes: secret, recovery codes, trusted devices. Returns whether there was any. */
export async function removeTwoFactor(db: Db, userId: number): Promise<boolean> {
  const credentials = await db('two_factor_credentials').where('user_id', userId).delete();
  await db('two_factor_recovery_codes').where('user_id', userId).delete();
  await forgetTrustedDevices(db, [userId]);
  const user = await db('users').where('id', userId).whereNotNull('two_factor_enabled_at').update({ two_factor_enabled_at: null });
  return Number(credentials) > 0 || Number(user) > 0;
}

export async function forgetTrustedDevices(db: Db, userIds: number[]): Promise<number> {
  if (!userIds.length) return 0;
  return Number(await db('two_factor_trusted_devices').whereIn('user_id', userIds).delete());
}

export async function twoFactorStatus(db: Db, userId: number): Promise<TwoFactorStatus> {
  const [user, credential, left, devices, required] = await Promise.all([
    db('users').where('id', userId).first('two_factor_enabled_at'),
    credentialOf(db, userId),
    recoveryCodesLeft(db, userId),
    db('two_factor_trusted_devices').where('user_id', userId).where('expires_at', '>', toDbTime()).count({ n: '*' }).first(),
    requiredByRoles(db, userId),
  ]);
  return {
    enabled: Boolean(user?.two_factor_enabled_at),
    required,
    enabled_at: fromDbTime(user?.two_factor_enabled_at),
    pending: Boolean(credential && !credential.confirmed_at),
    recovery_codes_left: left,
    trusted_devices: Number(devices?.n ?? 0),
  };
}

// ---- Trusted devices -------------------------------------------------------------------------

const deviceCookieName = (userId: number) => `${DEVICE_COOKIE_PREFIX}${encodeId(userId)}`;
const deviceHash = (token: string) => keyedHash('trusted-device', token);

/** The trusted-device row this browser's cookie names for the user, if it is live; its last use is noted. */
export async function trustedDeviceOf(db: Db, req: Request, userId: number): Promise<number | null> {
  const token = parseCookies(req.get('cookie') ?? '')[deviceCookieName(userId)];
  if (!token || token.length > 200) return null;
  const row = await db('two_factor_trusted_devices')
    .where({ token_hash: deviceHash(token), user_id: userId })
    .where('expires_at', '>', toDbTime())
    .first('id');
  if (!row) return null;
  await db('two_factor_trusted_devices').where('id', row.id).update({ last_used_at: toDbTime() });
  return Number(row.id);
}

/** Trust this browser for 30 days: a row now, the cookie when the answer goes out (setDeviceCookie). */
export async function trustDevice(db: Db, userId: number, ip: string | null, userAgent: string | null): Promise<{ token: string; expires: Date }> {
  const token = crypto.randomBytes(32).toString('base64url');
  const now = new Date();
  const expires = addSeconds(now, TRUSTED_DEVICE_DAYS * 86400);
  // Expired rows of this user go while we are here, so the table stays small.
  await db('two_factor_trusted_devices').where('user_id', userId).where('expires_at', '<=', toDbTime(now)).delete();
  await db('two_factor_trusted_devices').insert({
    user_id: userId,
    token_hash: deviceHash(token),
    ip,
    user_agent: userAgent,
    expires_at: toDbTime(expires),
    last_used_at: null,
    created_at: toDbTime(now),
  });
  return { token, expires };
}

/** httpOnly (no script reads it), SameSite=Strict, sent only to the sign-in calls. */
export function setDeviceCookie(req: Request, res: Response, userId: number, device: { token: string; expires: Date }): void {
  res.cookie(deviceCookieName(userId), device.token, {
    httpOnly: true,
    sameSite: 'strict',
    secure: req.secure,
    path: DEVICE_COOKIE_PATH,
    expires: device.expires,
  });
}

/** A fingerprint of the password hash: a challenge made before a password change is refused after it. */
export const passwordFingerprint = (passwordHash: string) => keyedHash('password', passwordHash).slice(0, 32);
