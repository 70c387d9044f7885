import argon2 from 'argon2';

/**
 * argon2id with the OWASP / ASVS 5 minimum: 19 MiB memory, 2 iterations, 1 lane.
 * Verification reads the parameters from the hash, so raising them later needs no migration
 * (needsRehash tells when to re-hash at sign-in).
 */
const OPTIONS = { type: argon2.argon2id, memoryCost: 19 * 1024, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(plain: string): Promise<string> {
  return argon2.hash(plain, OPTIONS);
}

export async function verifyPassword(hash: string, plain: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, plain);
  } catch {
    return false;
  }
}

export function needsRehash(hash: string): boolean {
  return argon2.needsRehash(hash, OPTIONS);
}

// Verified against when the email is unknown, so both paths take the same time.
let dummyHash: Promise<string> | undefined;
export function dummyVerify(plain: string): Promise<boolean> {
  dummyHash ??= hashPassword('not-a-real-password-Aa1!');
  return dummyHash.then((h) => verifyPassword(h, plain)).then(() => false);
}
