import type { Db } from '../db/client.js';
import type { Prisma } from '../generated/prisma/client.js';
import { KEY_TTL_MS, LEASE_MS } from './key.js';

/** Whose key it is: the credential's user, in the organization it acts in ('' for none). */
export interface KeyScope {
  userId: string;
  orgId: string;
  key: string;
}

/** An answer as it is kept and replayed: what a surface needs to send it again byte for byte. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * A key's row. `response` is null while the first request runs; `omitted` holds the status of a
 * first answer that was final but too large to keep (src/idempotency/quota.ts).
 */
export type KeyRow = {
  id: string;
  fingerprint: string;
  createdAt: Date;
  expiresAt: Date;
  response: StoredResponse | null;
  omitted: { status: number } | null;
  /** Whether a write of the request committed (src/idempotency/claim.ts). */
  committed: boolean;
  /** Whether a write that could not mark the row ran, or may have: its outcome is unknowable. */
  opaque: boolean;
  /** Until when the request's process holds the row (it renews it while it runs). */
  leaseUntil: Date;
};

/** Expired keys are deleted at most this often per process (and a stale one whenever it is met). */
const SWEEP_EVERY_MS = 60_000;
const lastSweep = new WeakMap<Db, number>();

const whereScope = (scope: KeyScope) => ({
  userId_orgId_key: { userId: scope.userId, orgId: scope.orgId, key: scope.key },
});

/**
 * Writes the key's row before the request runs, unless the scope already holds it (the unique
 * index decides between concurrent requests: exactly one of them inserts). True when this
 * request claimed the key. An expired row in the way is deleted first.
 */
export async function claimKey(
  db: Db,
  scope: KeyScope,
  fingerprint: string,
  now = new Date(),
  leaseMs = LEASE_MS,
): Promise<{ id: string } | null> {
  const id = crypto.randomUUID();
  const data = {
    id,
    ...scope,
    fingerprint,
    createdAt: now,
    expiresAt: new Date(now.getTime() + KEY_TTL_MS),
    opaque: false,
    leaseUntil: new Date(now.getTime() + leaseMs),
  };
  let { count } = await db.idempotencyKey.createMany({ data: [data], skipDuplicates: true });
  if (count === 0) {
    const { count: expired } = await db.idempotencyKey.deleteMany({ where: { ...scope, expiresAt: { lte: now } } });
    if (expired > 0) ({ count } = await db.idempotencyKey.createMany({ data: [data], skipDuplicates: true }));
  }
  return count === 1 ? { id } : null;
}

/** The row of a key (null when it is gone, e.g. released by a first request that failed). */
export async function findKey(db: Db, scope: KeyScope): Promise<KeyRow | null> {
  const row = await db.idempotencyKey.findUnique({ where: whereScope(scope) });
  if (!row) return null;
  const { id, fingerprint, createdAt, expiresAt, status, body, committedAt, opaque, leaseUntil } = row;
  const headers = (row.headers ?? {}) as Record<string, string>;
  // Stryker disable next-line ConditionalExpression: a body is only ever written with its status (completeKey)
  const response = status !== null && body !== null ? { status, headers, body } : null;
  const omitted = status !== null && body === null ? { status } : null;
  return {
    id,
    fingerprint,
    createdAt,
    expiresAt,
    response,
    omitted,
    committed: committedAt !== null,
    opaque,
    leaseUntil,
  };
}

/**
 * Takes over the row `row` of a request whose process is gone: its lease ran out, it has no
 * answer, and it proves that nothing was written (not committed, not opaque). One statement:
 * the row gets a new id, so the old owner, should it still run, no longer finds it and its
 * write fails (src/idempotency/claim.ts); of two retries taking over at once, one does. The new
 * claim's id, or null when the row changed meanwhile.
 */
export async function takeOverKey(
  db: Db,
  row: KeyRow,
  leaseMs: number,
  now = new Date(),
): Promise<{ id: string } | null> {
  const id = crypto.randomUUID();
  const { count } = await db.idempotencyKey.updateMany({
    where: { id: row.id, status: null, committedAt: null, opaque: false, leaseUntil: { lt: now } },
    data: { id, leaseUntil: new Date(now.getTime() + leaseMs) },
  });
  return count === 1 ? { id } : null;
}

/** Extends the lease of a running request's row (false: the row is no longer this claim's). */
export async function renewLease(db: Db, id: string, leaseMs: number, now = new Date()): Promise<boolean> {
  const { count } = await db.idempotencyKey.updateMany({
    where: { id, status: null },
    data: { leaseUntil: new Date(now.getTime() + leaseMs) },
  });
  return count === 1;
}

/**
 * Ends the lease of a request that wrote and ended without an answer worth keeping: its retries
 * learn at once that it took effect, rather than wait for the lease to run out.
 */
export async function endLease(db: Db, id: string, now = new Date()): Promise<void> {
  await db.idempotencyKey.updateMany({ where: { id }, data: { leaseUntil: now } });
}

/** Keeps the first answer for the key's retries; `bytes` is what it counts against its user's quota. */
export async function completeKey(db: Db, id: string, response: StoredResponse, bytes: number): Promise<void> {
  // Many: a claim taken over (its id replaced) keeps nothing; the request that took it over answers.
  await db.idempotencyKey.updateMany({
    where: { id },
    data: { status: response.status, headers: response.headers as Prisma.InputJsonObject, body: response.body, bytes },
  });
}

/** Marks the key as answered without keeping the answer (too large): its retries are told so. */
export async function omitAnswer(db: Db, id: string, status: number): Promise<void> {
  await db.idempotencyKey.updateMany({ where: { id }, data: { status } });
}

/** Frees a claimed key whose request ended in an answer worth retrying (429, 5xx, an exception). */
export async function releaseKey(db: Db, id: string): Promise<void> {
  await db.idempotencyKey.deleteMany({ where: { id } });
}

/** Deletes every expired key; returns how many. */
export async function deleteExpiredKeys(db: Db, now = new Date()): Promise<number> {
  const { count } = await db.idempotencyKey.deleteMany({ where: { expiresAt: { lte: now } } });
  return count;
}

/** deleteExpiredKeys, at most once a minute per database handle. */
export async function sweepExpiredKeys(db: Db, now = new Date()): Promise<void> {
  const last = lastSweep.get(db) ?? 0;
  if (now.getTime() - last < SWEEP_EVERY_MS) return;
  lastSweep.set(db, now.getTime());
  await deleteExpiredKeys(db, now);
}
