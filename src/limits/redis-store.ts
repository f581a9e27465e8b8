/**
 * Rate-limit buckets shared by every instance through Redis.
 *
 * Failure mode: FAIL OPEN to local limiting. If Redis is unreachable, slow or erroring, a
 * decision never throws to the caller and never waits longer than `timeoutMs`: it is taken by
 * this instance alone, so each instance still enforces the limits on its own traffic (a client
 * spread over N instances may get up to N x limit while Redis is down). Refusing every request
 * during a Redis outage would turn a cache failure into a full API outage, which is worse than
 * briefly looser limits. `onFallback` is called at most once per 30 s so an outage gives one log
 * line per half-minute, not one per request.
 *
 * Failover bound: every admission of this instance is also counted in a local bucket, whoever
 * decided it, and a request is admitted only if that local bucket has room too. So across
 * Redis going away, coming back, or coming back empty (a restart without persistence, a
 * failover to a replica that missed writes), one instance never admits more than the limit per
 * window: a switch never starts a fresh bucket. While Redis keeps its data the local
 * bucket never refuses what Redis admits (it holds a subset of the same admissions); a request
 * it refuses is answered without a round trip to Redis.
 *
 * Exactness: one Lua script checks and records all buckets of a request atomically on the Redis
 * server, timestamped by Redis' own clock (TIME), so concurrent requests and instances with skewed
 * clocks all see one consistent log per bucket.
 */
import { randomBytes } from 'node:crypto';
import type { RedisOptions } from 'ioredis';
import { connectRedis, type RedisClient } from '../redis/connect.js';
import { MemoryStore } from './memory-store.js';
import { withTimeout } from '../timeout.js';
import type { Policy } from './policy.js';
import { toDecision, type Decision, type LimiterStore } from './store.js';

/**
 * KEYS: one sorted set per bucket; members are admissions, scores their Redis time in µs.
 * ARGV[1]: a suffix unique per call (two calls within one µs must not share a member);
 * ARGV[2i], ARGV[2i+1]: limit and window (ms) of KEYS[i].
 * Returns { admitted (0|1), now µs, then per bucket: count after the decision, oldest score or -1 }.
 */
const CONSUME_ALL_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local counts = {}
local admitted = 1
for i = 1, #KEYS do
  local window = tonumber(ARGV[2 * i + 1]) * 1000
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - window)
  counts[i] = redis.call('ZCARD', KEYS[i])
  if counts[i] >= tonumber(ARGV[2 * i]) then admitted = 0 end
end
if admitted == 1 then
  local member = t[1] .. '.' .. t[2] .. ':' .. ARGV[1]
  for i = 1, #KEYS do
    counts[i] = counts[i] + redis.call('ZADD', KEYS[i], now, member)
    redis.call('PEXPIRE', KEYS[i], ARGV[2 * i + 1])
  end
end
local out = { admitted, now }
for i = 1, #KEYS do
  local first = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')
  out[#out + 1] = counts[i]
  out[#out + 1] = first[2] and tonumber(first[2]) or -1
end
return out
`;

const COMMAND = 'rateLimitConsumeAll';

/** The method defineCommand adds to the client (ioredis cannot type it for us). */
interface ScriptedClient {
  [COMMAND](numberOfKeys: number, ...keysAndArgs: (string | number)[]): Promise<number[]>;
}

/** Client options that make a dead Redis fail fast instead of queueing commands. */
const FAIL_FAST_REDIS_OPTIONS = {
  enableOfflineQueue: false,
  connectTimeout: 1_000,
  maxRetriesPerRequest: 1,
  // Only a backstop that frees commands on a hung connection; our own per-decision timeout
  // decides (see withTimeout). It must stay far above that one: ioredis rejects on its timer
  // without first reading the socket, so after the event loop was blocked for longer than it
  // (a burst of synchronous work) it would refuse replies already waiting there, and each
  // such decision would be taken locally and counted twice.
  commandTimeout: 10_000,
} as const satisfies RedisOptions;

export interface RedisStoreOptions {
  /** Prepended to every key; default 'rl:'. */
  prefix?: string;
  /** Called (at most once per 30 s) when a decision had to be taken locally. */
  onFallback?: (error: Error) => void;
  /** Longest a decision waits for Redis before falling back; covers clients built with an offline queue. */
  timeoutMs?: number;
  /** Clock for the local buckets and the report throttle; Redis decisions use Redis' clock. */
  now?: () => number;
}

const REPORT_INTERVAL_MS = 30_000;

export class RedisStore implements LimiterStore {
  readonly redis: RedisClient;
  private readonly ownsClient: boolean;
  private readonly prefix: string;
  readonly timeoutMs: number;
  private readonly onFallback: ((error: Error) => void) | undefined;
  private readonly now: () => number;
  /** This instance's own admissions (every one, whoever decided it): the fallback and the failover bound. */
  private readonly local: MemoryStore;
  private readonly instanceId = randomBytes(6).toString('base64url');
  private sequence = 0;
  private lastReport = -Infinity;

  /** `client` is used as is (and left open by close()); a URL gets a client with FAIL_FAST_REDIS_OPTIONS that close() quits. */
  constructor(client: RedisClient | string, options: RedisStoreOptions = {}) {
    this.ownsClient = typeof client === 'string';
    this.redis = typeof client === 'string' ? connectRedis(client, FAIL_FAST_REDIS_OPTIONS) : client;
    // Connection errors surface through failing commands (and onFallback); without a listener
    // ioredis would print every reconnect failure to stderr.
    if (this.ownsClient) this.redis.on('error', () => {});
    this.redis.defineCommand(COMMAND, { lua: CONSUME_ALL_LUA });
    this.prefix = options.prefix ?? 'rl:';
    this.timeoutMs = options.timeoutMs ?? 500;
    this.onFallback = options.onFallback;
    this.now = options.now ?? Date.now;
    this.local = new MemoryStore({ now: this.now });
  }

  /**
   * Resolves true once connected, false after timeoutMs. Await it at startup: with the fail-fast
   * options, decisions made before the first connection are local (and reported via onFallback).
   */
  async ready(timeoutMs = 2_000): Promise<boolean> {
    if (this.redis.status === 'ready') return true;
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.redis.off('ready', onReady);
        resolve(ok);
      };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.redis.once('ready', onReady);
    });
  }

  /** The Redis key of a bucket. The {key} hash tag keeps one subject's buckets in one Cluster slot. */
  bucketKey(key: string, policy: Policy): string {
    return `${this.prefix}{${key}}:${policy.name}`;
  }

  async consume(key: string, policy: Policy): Promise<Decision> {
    const [decision] = await this.consumeAll([{ key, policy }]);
    if (!decision) throw new Error('unreachable: one entry gives one decision');
    return decision;
  }

  async consumeAll(entries: { key: string; policy: Policy }[]): Promise<Decision[]> {
    if (entries.length === 0) return [];
    // Counted here first, synchronously, so concurrent requests of this instance cannot overshoot it.
    const local = this.local.consumeAllSync(entries);
    if (!local.every((d) => d.allowed)) return local;
    let remote: Decision[];
    try {
      remote = await this.consumeRemote(entries);
    } catch (error) {
      this.report(error instanceof Error ? error : new Error(String(error)));
      return local;
    }
    if (!remote.every((d) => d.allowed)) {
      // Not admitted after all, so not counted here either.
      this.local.releaseSync(entries);
      return remote;
    }
    // The headers describe whichever count is tighter (the local one only after Redis lost data).
    return remote.map((decision, i) => (local[i]!.remaining < decision.remaining ? local[i]! : decision));
  }

  async release(entries: { key: string; policy: Policy }[]): Promise<void> {
    this.local.releaseSync(entries);
    const keys = [...new Set(entries.map(({ key, policy }) => this.bucketKey(key, policy)))];
    try {
      // The newest member goes, as in the local bucket: the count is exact, whichever admission it was.
      const popped = Promise.all(keys.map((key) => this.redis.zpopmax(key)));
      await withTimeout(popped, this.timeoutMs, `rate limiter: Redis did not answer within ${this.timeoutMs} ms`);
    } catch (error) {
      this.report(error instanceof Error ? error : new Error(String(error)));
    }
  }

  async close(): Promise<void> {
    await this.local.close();
    if (this.ownsClient) this.redis.disconnect();
  }

  private async consumeRemote(entries: { key: string; policy: Policy }[]): Promise<Decision[]> {
    const keys = entries.map(({ key, policy }) => this.bucketKey(key, policy));
    const args = entries.flatMap(({ policy }) => [policy.limit, policy.windowMs]);
    this.sequence = (this.sequence + 1) % Number.MAX_SAFE_INTEGER;
    const suffix = `${this.instanceId}:${this.sequence}`;
    const call = (this.redis as unknown as ScriptedClient)[COMMAND](keys.length, ...keys, suffix, ...args);
    const reply = await withTimeout(
      call,
      this.timeoutMs,
      `rate limiter: Redis did not answer within ${this.timeoutMs} ms`,
    );
    const [admitted, nowMicros] = reply;
    if (reply.length !== 2 + 2 * entries.length || nowMicros === undefined)
      throw new Error(`rate limiter: unexpected script reply ${JSON.stringify(reply)}`);
    return entries.map(({ policy }, i) => {
      const count = reply[2 + 2 * i] ?? 0;
      const oldestMicros = reply[3 + 2 * i] ?? -1;
      return toDecision(policy, admitted === 1, count, (oldestMicros + policy.windowMs * 1000 - nowMicros) / 1000);
    });
  }

  private report(error: Error): void {
    const now = this.now();
    if (now - this.lastReport < REPORT_INTERVAL_MS) return;
    this.lastReport = now;
    this.onFallback?.(error);
  }
}
