import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Signing secrets at rest. They are read back to sign every delivery, so they cannot be hashed
 * like API keys: they are sealed with AES-256-GCM under a key from WEBHOOKS_SECRET_KEY, so a
 * copy of the database alone does not let anyone forge our signatures.
 */

// Without WEBHOOKS_SECRET_KEY (development), a fixed key: sealing then only keeps secrets out of plain sight.
const DEVELOPMENT_KEY = 'workmgmt development webhook key: set WEBHOOKS_SECRET_KEY in production';

const keyOf = (secretKey: string | undefined) =>
  createHash('sha256')
    .update(secretKey ?? DEVELOPMENT_KEY)
    .digest();

/** `v1.<iv>.<tag>.<ciphertext>`, base64url. */
export function sealSecret(secret: string, secretKey: string | undefined): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secretKey), iv);
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), sealed]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

export function openSecret(sealed: string, secretKey: string | undefined): string {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || !data) throw new Error('not a sealed webhook secret');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(secretKey), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}
