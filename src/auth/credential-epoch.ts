/**
 * The credential epoch: a value that changes whenever a write may change what a cached PAT
 * says (a key revoked, a role changed, a member removed). A cached key is used only while the
 * epoch it was filled under is still the current one, so such a write reaches every instance
 * on its next request: the writer bumps the epoch after its transaction commits and before it
 * answers.
 *
 * Two sources: the process (no Redis: one instance, as the rate limits already assume), and a
 * Redis key shared by every instance (and by the admin CLI, which runs in another process).
 */
import { randomInt } from 'node:crypto';
import { Redis } from 'ioredis';
import { withTimeout } from '../limits/redis-store.js';

/** Opaque: only ever compared for equality. */
export type Epoch = string | number;

export interface CredentialEpoch {
  /**
   * The current epoch, or null when it cannot be known (Redis down or slow): then the cache
   * must not be used. Never rejects. Start it early: the Redis read then overlaps other work.
   */
  read(): Epoch | null | Promise<Epoch | null>;
  /**
   * Call after a credential write has committed, before answering. Resolves true once every
   * reader will see a new epoch; false when that could not be published (already reported).
   * Never rejects.
   */
  bump(): Promise<boolean>;
}

let processEpoch = 0;

/**
 * The epoch of this process: right for one instance (no REDIS_URL). Shared by every app in
 * the process, so a write made through one app object (or an operator function called in
 * process) invalidates the caches of all of them.
 */
export const localEpoch: CredentialEpoch = {
  read: () => processEpoch,
  bump: async () => {
    processEpoch++;
    return true;
  },
};

export const DEFAULT_EPOCH_KEY = 'cred-epoch';

export interface RedisEpochOptions {
  /** The Redis key; default 'cred-epoch'. Tests use one of their own. */
  key?: string;
  /** Longest a read may take before the epoch counts as unknown; the limiter's 500 ms by default. */
  readTimeoutMs?: number;
  /** Longest a bump may take before it counts as failed. */
  bumpTimeoutMs?: number;
  /** Told when a bump failed: a log line (the error never carries a credential). */
  onBumpError?: (error: Error) => void;
}

/**
 * The epoch in one Redis key: GET on every PAT request (over the limiter's connection, so it
 * is pipelined with the rate-limit script rather than adding a round trip), INCR on change.
 *
 * The key starts at a random value (SET NX) rather than at 0, so that if Redis loses its data
 * the new epochs do not repeat values some instance may have filled its cache under. While the
 * key is missing the epoch is unknown (the cache is skipped) and the first reader creates it.
 */
export class RedisEpoch implements CredentialEpoch {
  readonly key: string;
  private readonly readTimeoutMs: number;
  private readonly bumpTimeoutMs: number;
  private readonly onBumpError: ((error: Error) => void) | undefined;

  constructor(
    readonly redis: Redis,
    options: RedisEpochOptions = {},
  ) {
    this.key = options.key ?? DEFAULT_EPOCH_KEY;
    this.readTimeoutMs = options.readTimeoutMs ?? 500;
    this.bumpTimeoutMs = options.bumpTimeoutMs ?? 2_000;
    this.onBumpError = options.onBumpError;
  }

  read(): Promise<Epoch | null> {
    return withTimeout(this.redis.get(this.key), this.readTimeoutMs, 'credential epoch').then(
      (value) => {
        if (value === null) void this.redis.set(this.key, initialValue(), 'NX').catch(() => {});
        return value;
      },
      () => null,
    );
  }

  async bump(): Promise<boolean> {
    try {
      const replies = await withTimeout(this.redis.multi().set(this.key, initialValue(), 'NX').incr(this.key).exec(), this.bumpTimeoutMs, 'credential epoch');
      const failed = replies?.find(([error]) => error);
      if (!replies || failed) throw failed?.[0] ?? new Error('credential epoch: transaction aborted');
      return true;
    } catch (error) {
      this.onBumpError?.(error instanceof Error ? error : new Error(String(error)));
      return false;
    }
  }
}

function initialValue(): string {
  return String(randomInt(1, 2 ** 47));
}
