import { timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/client.js';
import { sql } from 'kysely';
import { directSql } from '../db/direct-sql.js';
import { builder, prepared, rowsOf } from '../db/sql-builder.js';
import { type AuthError, authErrors } from './auth-error.js';
import type { Epoch } from './credential-epoch.js';
import type { PatCache } from './pat-cache.js';
import { hashToken, isWellFormedPat, PAT_PREFIX } from './pat-token.js';
import type { Role, UserPrincipal } from './principal.js';

/** last_used_at is kept to the minute, so a busy key costs one write a minute, not one per request. */
const LAST_USED_GRANULARITY_MS = 60_000;

export interface PatLookup {
  db: Db;
  /** Verified live keys; null: every request reads the database. */
  cache?: PatCache | null;
  /**
   * The credential epoch, read when the request arrived (before any database read of this
   * request). Null or absent: unknown, so the cache is neither read nor filled.
   */
  epoch?: Epoch | null | Promise<Epoch | null>;
  /** The token's SHA-256 when the request has made it already (src/pipeline/request-context.ts); else made here. */
  hash?: (token: string) => Uint8Array<ArrayBuffer>;
}

/**
 * The key and its owner's role in one statement with a plain join (the membership always
 * exists: api_keys references it, ON DELETE CASCADE). Prisma's nested `membership: { select }`
 * would build a LATERAL JSONB subquery for the same answer at about twice the CPU. Sent straight
 * to the driver (src/db/direct-sql.ts): every key's first request of a minute comes here, and
 * Prisma's raw query path cost more than the statement (PAT_CACHE=off: 866 µs per lookup
 * against 541 µs for the bare statement over pg, bench/SUMMARY.md). Compiled once (prepared).
 */
const keyLookup = prepared(
  (hash: Buffer) =>
    builder
      .selectFrom('api_keys as k')
      .innerJoin('memberships as m', (join) =>
        join.onRef('m.org_id', '=', 'k.org_id').onRef('m.user_id', '=', 'k.user_id'),
      )
      .select((eb) => [
        eb.cast<string>('k.id', 'text').as('id'),
        eb.cast<string>('k.org_id', 'text').as('orgId'),
        eb.cast<string>('k.user_id', 'text').as('userId'),
        'k.token_hash as tokenHash',
        'k.expires_at as expiresAt',
        'k.revoked_at as revokedAt',
        'k.last_used_at as lastUsedAt',
        eb.cast<Role>('m.role', 'text').as('role'),
      ])
      .where('k.token_hash', '=', hash),
  1,
);
/** Exported for the benchmark's baseline, which sends the same statement. */
export const PAT_LOOKUP_SQL = keyLookup.text;

function findKey(db: Db, hash: Uint8Array<ArrayBuffer>) {
  return rowsOf(directSql(db), keyLookup.with(Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength)));
}

/**
 * The write of a key's last use. Straight to the driver (src/db/direct-sql.ts): with a thousand
 * busy keys it runs a dozen times a second, and Prisma planned each update anew (3% of the CPU
 * of `GET /api/me` under load).
 */
const touchKey = prepared(
  (now: Date, id: string) =>
    builder
      .updateTable('api_keys')
      .set({ last_used_at: sql<Date>`${now}::timestamptz` })
      .where('id', '=', sql<string>`${id}::uuid`),
  2,
);
/** Exported for the benchmark's baseline, which sends the same statement. */
export const TOUCH_KEY_SQL = touchKey.text;

function touch(db: Db, key: { id: string; lastUsedAt: Date | null }, now: Date): void {
  if (key.lastUsedAt && now.getTime() - key.lastUsedAt.getTime() < LAST_USED_GRANULARITY_MS) return;
  key.lastUsedAt = now;
  // Best effort and off the request's path: a lost update only makes last use look older.
  void Promise.resolve()
    .then(() => rowsOf(directSql(db), touchKey.with(now, key.id)))
    .catch(() => {});
}

function principal(key: { id: string; orgId: string; userId: string; role: Role }): UserPrincipal {
  return {
    kind: 'user',
    userId: key.userId,
    credential: { kind: 'pat', id: key.id },
    org: { id: key.orgId, role: key.role },
    orgBound: true,
  };
}

/**
 * Resolves a personal access token: "not mine" (null) for other token kinds, a principal
 * for a live key, or an AuthError. The user's role is read with the key, so a role change or
 * removal applies at once (removal deletes the key with it); with the cache, every such write
 * bumps the credential epoch, which empties the caches of every instance first.
 */
export async function authenticatePat(
  lookup: PatLookup,
  token: string,
  requestedOrgId: string | null,
  now: Date,
): Promise<UserPrincipal | AuthError | null> {
  if (!token.startsWith(PAT_PREFIX)) return null;
  if (!isWellFormedPat(token)) return authErrors.malformed();
  const { db, cache } = lookup;
  const hash = lookup.hash?.(token) ?? hashToken(token);
  const epoch = cache ? await lookup.epoch : null;
  // Stryker disable next-line StringLiteral: the key is read only under a known epoch, where it is the hash
  const cacheKey = epoch != null ? Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength).toString('latin1') : '';
  // Stryker disable next-line LogicalOperator: without a cache the epoch is null too (it is not read)
  if (cache && epoch != null) {
    // The map lookup is the comparison here. It is not constant-time, but what it compares is
    // the SHA-256 of the presented secret: how long a probe takes can at most tell an attacker
    // how much of some key's hash their own token's hash shares, and choosing a token whose
    // hash shares more means inverting SHA-256. The secret itself never enters a comparison.
    const cached = cache.get(cacheKey, epoch, now.getTime());
    if (cached) {
      if (cached.expiresAt && cached.expiresAt.getTime() <= now.getTime()) return authErrors.expired();
      if (requestedOrgId !== null && requestedOrgId !== cached.orgId) return authErrors.orgMismatch();
      touch(db, cached, now);
      return principal(cached);
    }
  }
  const [key] = await findKey(db, hash);
  // The index lookup found the row; the constant-time compare keeps the final decision
  // independent of where two hashes first differ.
  if (!key || !timingSafeEqual(key.tokenHash, hash)) return authErrors.unknown();
  if (key.revokedAt) return authErrors.revoked();
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) return authErrors.expired();
  const live = {
    id: key.id,
    orgId: key.orgId,
    userId: key.userId,
    role: key.role,
    expiresAt: key.expiresAt,
    lastUsedAt: key.lastUsedAt,
  };
  // The same object is cached and touched below, so its last use is known to the next hit.
  if (cache && epoch != null) cache.set(cacheKey, Object.assign(live, { filledAt: now.getTime() }), epoch);
  if (requestedOrgId !== null && requestedOrgId !== live.orgId) return authErrors.orgMismatch();
  touch(db, live, now);
  return principal(live);
}
