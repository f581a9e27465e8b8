import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { generatePat, hashToken, isWellFormedPat, PAT_PREFIX, patHint } from '../src/auth/pat-token.js';

describe('token format', () => {
  test('tok_live_ + 32 base62 characters, the last 6 a checksum', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const token = generatePat();
      expect(token).toMatch(/^tok_live_[0-9A-Za-z]{32}$/);
      expect(isWellFormedPat(token)).toBe(true);
      seen.add(token);
    }
    expect(seen.size).toBe(200);
  });

  test('the checksum of a known token: CRC32 of the 26 random characters, in base62', () => {
    // Worked out apart from this code (Python's zlib.crc32, base62 by hand): every secret scanner
    // that knows the format computes the same, so a change of the algorithm must not pass unseen.
    const known: [string, number, string][] = [
      ['ABCDEFGHIJKLMNOPQRSTUVWXYZ', 2_885_122_082, '39Fg38'],
      ['zzzzzzzzzzzzzzzzzzzzzzzzzz', 3_555_552_959, '3scjkN'],
      ['00000000000000000000000000', 3_597_402_562, '3vSKjy'],
    ];
    for (const [random, crc, checksum] of known) {
      expect(crc32(random)).toBe(crc);
      expect(isWellFormedPat(`tok_live_${random}${checksum}`)).toBe(true);
      expect(isWellFormedPat(`tok_live_${random}${checksum.slice(0, 5)}0`)).toBe(false);
    }
  });

  test('one changed character, or a wrong length or prefix, fails the checksum', () => {
    const token = generatePat();
    const body = token.slice(PAT_PREFIX.length);
    for (let i = 0; i < body.length; i++) {
      const c = body[i] === 'a' ? 'b' : 'a';
      expect(isWellFormedPat(PAT_PREFIX + body.slice(0, i) + c + body.slice(i + 1))).toBe(false);
    }
    expect(isWellFormedPat(token.slice(0, -1))).toBe(false);
    expect(isWellFormedPat(`tok_test_${body}`)).toBe(false);
  });

  test('the hint is the last four characters; the stored hash is SHA-256', () => {
    const token = `${PAT_PREFIX}ABCDEFGHIJKLMNOPQRSTUVWXYZ39Fg38`;
    expect(patHint(token)).toBe('Fg38');
    expect(Buffer.from(hashToken(token)).toString('hex')).toBe(createHash('sha256').update(token).digest('hex'));
  });
});
