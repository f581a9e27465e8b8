import type { Role } from './principal.js';
import type { Epoch } from './credential-epoch.js';

/** What a live key's principal needs, as read from the database. Nothing else is kept. */
export interface CachedPat {
  id: string;
  orgId: string;
  userId: string;
  role: Role;
  expiresAt: Date | null;
  /** Updated when a hit writes last_used_at, so a busy key still writes once a minute. */
  lastUsedAt: Date | null;
  /** When it was filled (ms): entries older than the TTL are dropped whatever the epoch says. */
  filledAt: number;
}

export const PAT_CACHE_MAX_ENTRIES = 10_000;
export const PAT_CACHE_TTL_MS = 60_000;

/**
 * Verified live personal access tokens, keyed by the SHA-256 of the token, least recently used
 * first (a Map keeps insertion order; a hit moves its entry to the end). Never holds unknown,
 * revoked or expired results: those always go to the database.
 *
 * Invalidation is by epoch (see credential-epoch.ts): an entry counts only under the epoch it
 * was filled under, and the first lookup under a new epoch empties the cache. The TTL is a
 * backstop for a bump that could not be published.
 */
export class PatCache {
  private readonly entries = new Map<string, CachedPat>();
  private epoch: Epoch | undefined;
  /** Lookups answered from the cache and not (tests and benchmarks read them). */
  hits = 0;
  misses = 0;

  constructor(
    readonly maxEntries = PAT_CACHE_MAX_ENTRIES,
    readonly ttlMs = PAT_CACHE_TTL_MS,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The entry for `hash` if it was filled under `epoch` and is younger than the TTL. */
  get(hash: string, epoch: Epoch, nowMs: number): CachedPat | undefined {
    if (epoch !== this.epoch) {
      // Something changed since these entries were filled: none of them can be trusted.
      this.entries.clear();
      this.epoch = epoch;
    }
    const entry = this.entries.get(hash);
    if (!entry || nowMs - entry.filledAt >= this.ttlMs || nowMs < entry.filledAt) {
      // Stryker disable next-line ConditionalExpression: deleting an absent key does nothing
      if (entry) this.entries.delete(hash);
      this.misses++;
      return undefined;
    }
    this.entries.delete(hash);
    this.entries.set(hash, entry);
    this.hits++;
    return entry;
  }

  /**
   * Keeps a key verified live in the database. `epoch` must have been read before that lookup;
   * an entry from an epoch the cache has already moved past is not kept.
   */
  set(hash: string, entry: CachedPat, epoch: Epoch): void {
    this.epoch ??= epoch;
    if (epoch !== this.epoch) return;
    this.entries.delete(hash);
    this.entries.set(hash, entry);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      // Stryker disable next-line ConditionalExpression: a map over its size is never empty
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }
}
