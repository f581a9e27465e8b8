import { timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/client.js';
import { AuthError, authErrors } from './auth-error.js';
import { hashToken, isWellFormedPat, PAT_PREFIX } from './pat-token.js';
import type { UserPrincipal } from './principal.js';

/** last_used_at is kept to the minute, so a busy key costs one write a minute, not one per request. */
const LAST_USED_GRANULARITY_MS = 60_000;

/**
 * Resolves a personal access token: "not mine" (null) for other token kinds, a principal
 * for a live key, or an AuthError. The user's role is read from their membership at every
 * request, so a role change or removal applies at once (removal deletes the key with it).
 */
export async function authenticatePat(
  db: Db,
  token: string,
  requestedOrgId: string | null,
  now: Date,
): Promise<UserPrincipal | AuthError | null> {
  if (!token.startsWith(PAT_PREFIX)) return null;
  if (!isWellFormedPat(token)) return authErrors.malformed();
  const hash = hashToken(token);
  const key = await db.apiKey.findUnique({
    where: { tokenHash: hash },
    select: {
      id: true,
      orgId: true,
      userId: true,
      tokenHash: true,
      expiresAt: true,
      revokedAt: true,
      lastUsedAt: true,
      membership: { select: { role: true } },
    },
  });
  // The index lookup found the row; the constant-time compare keeps the final decision
  // independent of where two hashes first differ.
  if (!key || !timingSafeEqual(key.tokenHash, hash)) return authErrors.unknown();
  if (key.revokedAt) return authErrors.revoked();
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) return authErrors.expired();
  if (requestedOrgId !== null && requestedOrgId !== key.orgId) return authErrors.orgMismatch();
  if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() >= LAST_USED_GRANULARITY_MS) {
    // Best effort and off the request's path: a lost update only makes last use look older.
    void db.apiKey.update({ where: { id: key.id }, data: { lastUsedAt: now }, select: { id: true } }).catch(() => {});
  }
  return {
    kind: 'user',
    userId: key.userId,
    credential: { kind: 'pat', id: key.id },
    org: { id: key.orgId, role: key.membership.role },
    orgBound: true,
  };
}

