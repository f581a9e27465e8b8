import type { Db } from '../db/client.js';
import type { StoredResponse } from './store.js';

/**
 * What the answers kept for retries may cost, per answer and per user, within a key's 24 hours.
 * One answer: room for the largest write's answer (an issue with a 50,000-character description
 * is at most ~300 KB of JSON), not for a page of them. A larger answer is sent once and not kept.
 */
export const MAX_ANSWER_BYTES = 512 * 1024;
/** Keys of one user (the credential's owner) alive at once, across all its organizations. */
export const MAX_KEYS_PER_USER = 10_000;
/** Bytes of kept answers of one user alive at once. */
export const MAX_BYTES_PER_USER = 64 * 1024 * 1024;

/** The bytes an answer takes when kept: its body and headers as stored. */
export function answerBytes(response: StoredResponse): number {
  return Buffer.byteLength(response.body) + Buffer.byteLength(JSON.stringify(response.headers));
}

/**
 * Whether the user is over its quota, counting the key it just claimed: null when not, else the
 * seconds until its oldest key expires (and frees room). Concurrent claims see each other's
 * rows, so together they cannot pass the count; bytes may pass by what those in flight add.
 */
export async function overQuota(db: Db, userId: string, now = new Date()): Promise<number | null> {
  const usage = await db.idempotencyKey.aggregate({
    where: { userId, expiresAt: { gt: now } },
    _count: { _all: true },
    _sum: { bytes: true },
    _min: { expiresAt: true },
  });
  if (usage._count._all <= MAX_KEYS_PER_USER && (usage._sum.bytes ?? 0) < MAX_BYTES_PER_USER) return null;
  // Stryker disable next-line OptionalChaining: over quota means at least one live key, so a least expiresAt
  const oldest = usage._min.expiresAt?.getTime() ?? now.getTime();
  return Math.max(1, Math.ceil((oldest - now.getTime()) / 1000));
}
