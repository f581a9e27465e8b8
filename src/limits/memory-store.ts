import type { Policy } from './policy.js';
import { toDecision, type Decision, type LimiterStore } from './store.js';

export interface MemoryStoreOptions {
  /** Clock in ms; tests pass a fake one. */
  now?: () => number;
  /** How often idle buckets are dropped (both the timer and the lazy on-access sweep). */
  sweepIntervalMs?: number;
}

/** Admission timestamps in a ring buffer, oldest at `head`. Never holds more than `limit` entries. */
interface Bucket {
  times: Float64Array;
  head: number;
  count: number;
  limit: number;
  windowMs: number;
}

// Most tokens make a handful of requests, so buffers start small and double up to the limit.
const INITIAL_CAPACITY = 8;

function newest(bucket: Bucket): number {
  // Stryker disable next-line UnaryOperator: read only while count > 0, in bounds, so never undefined
  return bucket.times[(bucket.head + bucket.count - 1) % bucket.times.length] ?? -Infinity;
}

function oldest(bucket: Bucket): number {
  // Stryker disable next-line UnaryOperator: head is always in bounds, so the read is never undefined
  return bucket.times[bucket.head] ?? -Infinity;
}

/** An entry admitted at t stays in the window while now < t + windowMs. */
function evictExpired(bucket: Bucket, now: number): void {
  const cutoff = now - bucket.windowMs;
  while (bucket.count > 0 && oldest(bucket) <= cutoff) {
    bucket.head = (bucket.head + 1) % bucket.times.length;
    bucket.count--;
  }
}

function push(bucket: Bucket, now: number): void {
  // Stryker disable next-line ConditionalExpression: copying a buffer that is not full changes its size only
  if (bucket.count === bucket.times.length) {
    // Stryker disable next-line MethodExpression: capacity only (the limit is checked before push)
    const grown = new Float64Array(Math.min(bucket.limit, bucket.times.length * 2));
    // Stryker disable next-line EqualityOperator: the one slot copied too many is the one this push writes
    for (let i = 0; i < bucket.count; i++) grown[i] = bucket.times[(bucket.head + i) % bucket.times.length] ?? 0;
    bucket.times = grown;
    bucket.head = 0;
  }
  // A wall clock stepping backwards must not put a younger entry behind an older one: eviction
  // walks from the head and stops at the first live entry.
  const at = bucket.count > 0 ? Math.max(now, newest(bucket)) : now;
  bucket.times[(bucket.head + bucket.count) % bucket.times.length] = at;
  bucket.count++;
}

/**
 * In-process limiter: exact for one instance, and atomic because nothing between the check and
 * the write awaits. Also the RedisStore's local count of its own admissions (see redis-store.ts).
 */
export class MemoryStore implements LimiterStore {
  private readonly buckets = new Map<string, Bucket>();
  private readonly now: () => number;
  private readonly sweepIntervalMs: number;
  private lastSweep: number;
  private readonly timer: NodeJS.Timeout;

  constructor(options: MemoryStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
    this.lastSweep = this.now();
    // unref: an idle limiter must not keep the process alive.
    this.timer = setInterval(() => this.sweep(), this.sweepIntervalMs).unref();
  }

  /** Number of buckets held (idle ones are dropped by sweeps). */
  get size(): number {
    return this.buckets.size;
  }

  async consume(key: string, policy: Policy): Promise<Decision> {
    const [decision] = this.consumeAllSync([{ key, policy }]);
    // Stryker disable next-line ConditionalExpression,StringLiteral: for the type checker; one entry gives one decision
    if (!decision) throw new Error('unreachable: one entry gives one decision');
    return decision;
  }

  async consumeAll(entries: { key: string; policy: Policy }[]): Promise<Decision[]> {
    return this.consumeAllSync(entries);
  }

  async release(entries: { key: string; policy: Policy }[]): Promise<void> {
    this.releaseSync(entries);
  }

  /** Synchronous on purpose: no other call can interleave between the check and the write. */
  consumeAllSync(entries: { key: string; policy: Policy }[]): Decision[] {
    const now = this.now();
    if (now - this.lastSweep >= this.sweepIntervalMs) this.sweep();
    const buckets = entries.map(({ key, policy }) => this.bucket(key, policy, now));
    const allowed = buckets.every((bucket) => bucket.count < bucket.limit);
    // A Set so that one bucket listed twice is still charged once, as in the Redis script.
    if (allowed) for (const bucket of new Set(buckets)) push(bucket, now);
    const decisions = entries.map(({ policy }, i) => {
      const bucket = buckets[i]!;
      return toDecision(policy, allowed, bucket.count, oldest(bucket) + bucket.windowMs - now);
    });
    entries.forEach(({ key, policy }, i) => {
      if (buckets[i]!.count === 0) this.buckets.delete(bucketId(key, policy));
    });
    return decisions;
  }

  /**
   * Takes back one admission from each bucket of `entries` (after another store refused the
   * request this store had admitted, or when the caller decides it does not count). The newest
   * entry goes (with concurrent admissions in between it may be a few ms younger than the one
   * being taken back: the count is exact, the reset at most that much later).
   */
  releaseSync(entries: { key: string; policy: Policy }[]): void {
    for (const id of new Set(entries.map(({ key, policy }) => bucketId(key, policy)))) {
      const bucket = this.buckets.get(id);
      if (bucket && bucket.count > 0) bucket.count--;
    }
  }

  /** Drops every bucket whose newest entry has left its window. */
  sweep(): void {
    const now = this.now();
    this.lastSweep = now;
    for (const [id, bucket] of this.buckets) {
      if (bucket.count === 0 || newest(bucket) <= now - bucket.windowMs) this.buckets.delete(id);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.buckets.clear();
  }

  private bucket(key: string, policy: Policy, now: number): Bucket {
    const id = bucketId(key, policy);
    let bucket = this.buckets.get(id);
    if (!bucket || bucket.limit !== policy.limit || bucket.windowMs !== policy.windowMs) {
      // A policy whose numbers changed starts afresh rather than reinterpreting old entries.
      // Stryker disable next-line MethodExpression: capacity only, the buffer grows to the limit anyway
      bucket = {
        times: new Float64Array(Math.min(policy.limit, INITIAL_CAPACITY)),
        head: 0,
        count: 0,
        limit: policy.limit,
        windowMs: policy.windowMs,
      };
      this.buckets.set(id, bucket);
    }
    evictExpired(bucket, now);
    return bucket;
  }
}

function bucketId(key: string, policy: Policy): string {
  return `${policy.name}\u0000${key}`;
}
