import type { Policy } from './policy.js';

export interface Decision {
  /** Whether this request was admitted (and so recorded). In a refused consumeAll every Decision says false. */
  allowed: boolean;
  limit: number;
  /** Slots left in the window after this decision; 0 in every bucket that refused. */
  remaining: number;
  /** whole seconds until the next slot opens (>= 1 when remaining is 0; 0 when the window is empty) */
  resetSeconds: number;
}

/**
 * Sliding-window-log limiter storage. A bucket is identified by (policy.name, key): callers pass
 * the subject (e.g. a token id) as `key` and the same key may be used with several policies.
 */
export interface LimiterStore {
  /** Atomically: drop entries older than the window, and admit this request iff fewer than limit remain in it. A refused request is NOT recorded. */
  consume(key: string, policy: Policy): Promise<Decision>;
  /** Atomically consume from several buckets at once: admitted only if ALL admit; if any refuses, none is recorded. Returns one Decision per policy, same order. */
  consumeAll(entries: { key: string; policy: Policy }[]): Promise<Decision[]>;
  /** Takes back one admission (the newest) from each distinct bucket of `entries`: an attempt that does not count. */
  release(entries: { key: string; policy: Policy }[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * Builds a Decision from a bucket's state after the decision. Both stores go through here so
 * they report remaining/reset identically.
 * @param count entries in the window after the decision
 * @param msUntilOldestExpires time until the oldest entry leaves the window (ignored when count is 0)
 */
export function toDecision(policy: Policy, allowed: boolean, count: number, msUntilOldestExpires: number): Decision {
  return {
    allowed,
    limit: policy.limit,
    remaining: Math.max(0, policy.limit - count),
    resetSeconds: count === 0 ? 0 : Math.max(1, Math.ceil(msUntilOldestExpires / 1000)),
  };
}
