import crypto from 'node:crypto';
import Sqids from 'sqids';

/**
 * h_id: the sqids encoding of a numeric id, with an alphabet shuffled by APP_KEY so ids are not
 * guessable across installations. Letters only, so a path segment of digits is always a plain
 * id and anything else is an h_id.
 */
const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
let sqids = new Sqids({ alphabet: LETTERS, minLength: 8 });

export function configureIds(appKey: string): void {
  const chars = LETTERS.split('');
  // Deterministic Fisher-Yates driven by an HMAC stream of the key.
  let stream = crypto.createHmac('sha256', appKey).update('h_id alphabet').digest();
  let pos = 0;
  for (let i = chars.length - 1; i > 0; i--) {
    if (pos + 2 > stream.length) {
      stream = crypto.createHash('sha256').update(stream).digest();
      pos = 0;
    }
    const j = stream.readUInt16BE(pos) % (i + 1);
    pos += 2;
    [chars[i], chars[j]] = [chars[j], chars[i]];
  }
  sqids = new Sqids({ alphabet: chars.join(''), minLength: 8 });
}

export function encodeId(id: number): string {
  return sqids.encode([id]);
}

/** A path's {id}: digits are the id itself, anything else must decode to exactly one id. */
export function decodeId(value: string | number): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? value : null;
  const s = String(value).trim();
  if (/^\d{1,15}$/.test(s)) {
    const n = Number(s);
    return n > 0 ? n : null;
  }
  // h_ids of real ids are short; longer strings decode to numbers beyond the safe range.
  if (!/^[A-Za-z]{1,16}$/.test(s)) return null;
  try {
    const decoded = sqids.decode(s);
    if (decoded.length !== 1 || !Number.isSafeInteger(decoded[0]) || decoded[0] < 1) return null;
    // Reject non-canonical spellings that happen to decode.
    return encodeId(decoded[0]) === s ? decoded[0] : null;
  } catch {
    return null;
  }
}
