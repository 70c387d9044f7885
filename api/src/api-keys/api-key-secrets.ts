import crypto from 'node:crypto';
import { apiKeyMark, type ApiKeyMode } from '@app/contracts';

/**
 * The key itself: `rk_live_<prefix>_<secret>`, or `rk_test_…` for a test key (its mode is in the
 * key, so a leaked test key is told apart at a glance and a live key's prefix under the test mark
 * is refused). The prefix (12 characters, about 71 bits) is
 * public and finds the row through a unique index; the secret (40 characters, about 238 bits) is
 * kept only as its SHA-256. A slow password hash buys nothing for a random secret this long, and a
 * fast one keeps every reseller call cheap (docs/decisions.md, "API keys").
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const PREFIX_LENGTH = 12;
export const SECRET_LENGTH = 40;
const KEY_PATTERN = new RegExp(`^rk_(live|test)_([A-Za-z0-9]{${PREFIX_LENGTH}})_([A-Za-z0-9]{${SECRET_LENGTH}})$`);

/** Unbiased random characters (crypto.randomInt draws without modulo bias). */
function randomText(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[crypto.randomInt(ALPHABET.length)];
  return out;
}

export function newApiKey(mode: ApiKeyMode = 'live'): { key: string; prefix: string; secretHash: string } {
  const prefix = randomText(PREFIX_LENGTH);
  const secret = randomText(SECRET_LENGTH);
  return { key: `${apiKeyMark(mode)}${prefix}_${secret}`, prefix, secretHash: hashSecret(secret) };
}

export const hashSecret = (secret: string): string => crypto.createHash('sha256').update(secret, 'utf8').digest('hex');

/** The mode, prefix and secret of a key as sent, or null when it is not shaped like one of ours. */
export function parseApiKey(raw: string): { mode: ApiKeyMode; prefix: string; secret: string } | null {
  const m = KEY_PATTERN.exec(raw);
  return m ? { mode: m[1] as ApiKeyMode, prefix: m[2], secret: m[3] } : null;
}

/** Compared with when no key has the prefix, so an unknown prefix costs what a wrong secret does. */
const NO_KEY = crypto.createHash('sha256').update('no such key').digest();

/**
 * Whether `secret` is the one behind `storedHex` (null: no key has this prefix). Both sides are
 * 32-byte SHA-256 digests compared with crypto.timingSafeEqual, so the time taken says nothing
 * about how much of the secret was right, nor whether the prefix exists.
 */
export function secretMatches(secret: string, storedHex: string | null): boolean {
  const given = crypto.createHash('sha256').update(secret, 'utf8').digest();
  const stored = storedHex && /^[0-9a-f]{64}$/.test(storedHex) ? Buffer.from(storedHex, 'hex') : NO_KEY;
  const equal = crypto.timingSafeEqual(given, stored);
  return equal && stored !== NO_KEY;
}
