import type { Logger } from '../logger.js';
import { reportRateLimitRefusals, type RequestScope } from '../ops/request-scope.js';
import { rateLimitHeaders, retryAfter, type PolicyDecision } from './headers.js';
import { MemoryStore } from './memory-store.js';
import { GLOBAL_POLICY, type Policy } from './policy.js';
import { RedisStore } from './redis-store.js';
import type { LimiterStore } from './store.js';
import { addressKey } from '../http/address-key.js';

export interface Admission {
  allowed: boolean;
  decisions: PolicyDecision[];
}

/** The bucket of a client that presents no credential: its address (an IPv6 address by its /64). */
export function addressSubject(clientIp: string): string {
  return `ip:${addressKey(clientIp)}`;
}

/**
 * The bucket of a credential, from its SHA-256 (hashed, so a token shared by many machines is one
 * bucket and the raw secret never becomes a key). The caller hashes: limits know no credential.
 */
export function credentialSubject(tokenHash: Uint8Array): string {
  return `cred:${Buffer.from(tokenHash.buffer, tokenHash.byteOffset, tokenHash.byteLength).toString('base64url').slice(0, 27)}`;
}

/**
 * What drawing from a bucket needs of an operation's context (src/context.ts satisfies it):
 * named here so that the limits do not depend on the context.
 */
export interface DrawContext {
  limiter: RateLimiter;
  /** Where the decisions go, for the response's headers. */
  rateLimits: PolicyDecision[];
  scope?: RequestScope;
}

/** One limiter for both surfaces: every request draws from its subject's global bucket. */
export class RateLimiter {
  constructor(readonly store: LimiterStore) {}

  async admit(subject: string, policies: Policy[] = [GLOBAL_POLICY]): Promise<Admission> {
    const decisions = await this.store.consumeAll(policies.map((policy) => ({ key: subject, policy })));
    return {
      allowed: decisions.every((d) => d.allowed),
      decisions: decisions.map((decision, i) => ({ policy: policies[i]!, decision })),
    };
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

/**
 * Draws one request of `subject` from a policy's bucket (on top of the global one) and adds the
 * decision to the response's headers. Returns the Retry-After seconds when refused, else null.
 */
export async function drawFrom(ctx: DrawContext, policy: Policy, subject: string): Promise<string | null> {
  const { allowed, decisions } = await ctx.limiter.admit(subject, [policy]);
  ctx.rateLimits.push(...decisions);
  reportRateLimitRefusals(ctx.scope, decisions);
  return allowed ? null : retryAfter(decisions);
}

/** One bucket to draw from: a policy and the subject counted in it. */
export interface Draw {
  policy: Policy;
  subject: string;
}

/**
 * Draws one request from each bucket of `draws`, one after another, and adds the decisions to the
 * response's headers. Buckets of different subjects are never in one atomic call (in Redis
 * Cluster their keys live in different slots), so a refusal takes back what the earlier buckets
 * admitted: each bucket still admits at most its limit. Returns Retry-After seconds or null.
 */
export async function drawFromEach(ctx: DrawContext, draws: Draw[]): Promise<string | null> {
  const admitted: Draw[] = [];
  for (const draw of draws) {
    const wait = await drawFrom(ctx, draw.policy, draw.subject);
    if (wait !== null) {
      await giveBack(ctx, admitted);
      return wait;
    }
    admitted.push(draw);
  }
  return null;
}

/** Takes back one admission from each bucket of `draws`: an attempt that, once decided, does not count. */
export async function giveBack(ctx: Pick<DrawContext, 'limiter'>, draws: Draw[]): Promise<void> {
  if (draws.length > 0) await ctx.limiter.store.release(draws.map(({ policy, subject }) => ({ key: subject, policy })));
}

/** Sets the rate-limit fields describing `decisions` (the tightest bucket) on a response. */
export function applyRateLimitHeaders(response: Response, decisions: PolicyDecision[]): void {
  for (const [name, value] of Object.entries(rateLimitHeaders(decisions))) response.headers.set(name, value);
}

/** The store named by REDIS_URL (shared by every instance), or one in this process. */
export async function createLimiterStore(redisUrl: string | undefined, logger: Logger): Promise<LimiterStore> {
  if (!redisUrl) return new MemoryStore();
  const store = new RedisStore(redisUrl, {
    onFallback: (error) =>
      logger.warn(
        { err: error },
        'Redis unavailable for rate limiting: limiting in this process only until it answers again',
      ),
  });
  if (!(await store.ready())) logger.warn('Redis did not answer at start; rate limits are per process until it does');
  return store;
}
