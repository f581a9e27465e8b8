import { timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/client.js';
import { AuthError, authErrors } from './auth-error.js';
import { hashToken, isWellFormedPat, PAT_PREFIX } from './pat-token.js';
import type { Role, UserPrincipal } from './principal.js';

/** last_used_at is kept to the minute, so a busy key costs one write a minute, not one per request. */
const LAST_USED_GRANULARITY_MS = 60_000;

interface KeyRow {
  id: string;
  orgId: string;
  userId: string;
  tokenHash: Uint8Array;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  role: Role;
}

/**
 * The key and its owner's role in one statement with a plain join (the membership always
 * exists: api_keys references it, ON DELETE CASCADE). Prisma's nested `membership: { select }`
 * would build a LATERAL JSONB subquery for the same answer at about twice the CPU.
 */
function findKey(db: Db, hash: Uint8Array<ArrayBuffer>): Promise<KeyRow[]> {
  return db.$queryRaw<KeyRow[]>`
    SELECT k.id::text AS "id", k.org_id::text AS "orgId", k.user_id::text AS "userId", k.token_hash AS "tokenHash",
           k.expires_at AS "expiresAt", k.revoked_at AS "revokedAt", k.last_used_at AS "lastUsedAt", m.role::text AS "role"
    FROM api_keys k JOIN memberships m ON m.org_id = k.org_id AND m.user_id = k.user_id
    WHERE k.token_hash = ${hash}`;
}

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
  const [key] = await findKey(db, hash);
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
    org: { id: key.orgId, role: key.role },
    orgBound: true,
  };
}

