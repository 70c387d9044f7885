import crypto from 'node:crypto';

/**
 * Secrets kept in the settings table (the SMTP password) are encrypted at rest with AES-256-GCM
 * under a key derived from APP_KEY: a database dump alone does not reveal them. Rotating APP_KEY
 * makes them unreadable, so they must be entered again (docs/decisions.md, "Catalogue, settings and storefront reads").
 */
let key: Buffer | null = null;

export function configureSecrets(appKey: string): void {
  key = crypto.createHmac('sha256', appKey).update('settings secret box').digest();
}

function currentKey(): Buffer {
  if (!key) throw new Error('configureSecrets(appKey) was not called');
  return key;
}

export function sealSecret(plain: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', currentKey(), iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
}

/** The plain text, or null when the value was sealed under another key or altered. */
export function openSecret(sealed: string): string | null {
  const [version, iv, tag, body] = sealed.split(':');
  if (version !== 'v1' || !iv || !tag || body === undefined) return null;
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', currentKey(), Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
