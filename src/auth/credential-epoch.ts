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
import { onConnectionLost, type RedisClient } from '../redis/connect.js';
import { withTimeout } from '../timeout.js';

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
 * What a reader gets is not the Redis value alone but `<local>.<connection>.<value>`, so that
 * the cache cannot come back to an old state whatever Redis does:
 * - `local` counts this instance's own bumps, incremented before Redis is even asked. After
 *   this instance makes a credential change, every request it reads under a new epoch, so its
 *   cache is emptied even if Redis never got the INCR, or later comes back with an older value
 *   (a restart from an append-only file or a snapshot).
 * - `connection` counts closes of the Redis connection. A Redis restart or a failover to
 *   another server always closes the client's connection, and across that anything may have
 *   happened to the key (a lost INCR, an older value restored): so every instance treats its
 *   cache as empty from its first read over the new connection. A reply that arrives after a
 *   close (a command ioredis re-sent) is treated as unknown.
 * - `value` starts at a random number (SET NX) rather than at 0, so that if Redis loses the
 *   key the new epochs do not repeat values some instance may have filled its cache under.
 *   While the key is missing the epoch is unknown (the cache is skipped) and the first reader
 *   creates it.
 *
 * A bump that Redis cannot take is owed: it is sent again as soon as Redis answers, so the
 * other instances hear of the change then, or when their cache entries age out (60 s).
 */
export class RedisEpoch implements CredentialEpoch {
  readonly key: string;
  private readonly readTimeoutMs: number;
  private readonly bumpTimeoutMs: number;
  private readonly onBumpError: ((error: Error) => void) | undefined;
  private local = 0;
  private connection = 0;
  private owed = false;
  private lastSettle = -Infinity;

  constructor(
    readonly redis: RedisClient,
    options: RedisEpochOptions = {},
  ) {
    this.key = options.key ?? DEFAULT_EPOCH_KEY;
    this.readTimeoutMs = options.readTimeoutMs ?? 500;
    this.bumpTimeoutMs = options.bumpTimeoutMs ?? 2_000;
    this.onBumpError = options.onBumpError;
    onConnectionLost(redis, () => this.connection++);
    redis.on('ready', () => this.settle(true));
  }

  read(): Promise<Epoch | null> {
    const local = this.local;
    const connection = this.connection;
    return withTimeout(
      this.redis.get(this.key),
      this.readTimeoutMs,
      `credential epoch: Redis did not answer within ${this.readTimeoutMs} ms`,
    ).then(
      (value) => {
        if (value === null) void this.redis.set(this.key, initialValue(), 'NX').catch(() => {});
        this.settle();
        if (value === null || connection !== this.connection) return null;
        return `${local}.${connection}.${value}`;
      },
      () => null,
    );
  }

  async bump(): Promise<boolean> {
    // First, and whatever Redis does: this instance reads under a new epoch from now on.
    this.local++;
    if (await this.publish()) return true;
    this.owed = true;
    return false;
  }

  /**
   * Sends an owed bump once Redis answers again (reported once, when it first failed): on a new
   * connection, and after a successful read at most once a second (Redis may serve reads and
   * still refuse writes).
   */
  private settle(reconnected = false): void {
    if (!this.owed) return;
    const now = Date.now();
    if (!reconnected && now - this.lastSettle < 1_000) return;
    this.lastSettle = now;
    this.owed = false;
    void this.publish({ quiet: true }).then((ok) => {
      if (!ok) this.owed = true;
    });
  }

  private async publish({ quiet = false } = {}): Promise<boolean> {
    try {
      const replies = await withTimeout(
        this.redis.multi().set(this.key, initialValue(), 'NX').incr(this.key).exec(),
        this.bumpTimeoutMs,
        `credential epoch: Redis did not answer within ${this.bumpTimeoutMs} ms`,
      );
      const failed = replies?.find(([error]) => error);
      if (!replies || failed) throw failed?.[0] ?? new Error('credential epoch: transaction aborted');
      return true;
    } catch (error) {
      if (!quiet) this.onBumpError?.(error instanceof Error ? error : new Error(String(error)));
      return false;
    }
  }
}

function initialValue(): string {
  return String(randomInt(1, 2 ** 47));
}
