import { hashToken } from '../auth/pat-token.js';
import type { Logger } from '../logger.js';
import { reportRateLimitRefusals } from '../ops/request-scope.js';
import type { Context } from '../context.js';
import { rateLimitHeaders, retryAfter, type PolicyDecision } from './headers.js';
import { MemoryStore } from './memory-store.js';
import { GLOBAL_POLICY, type Policy } from './policy.js';
import { RedisStore } from './redis-store.js';
import type { LimiterStore } from './store.js';

export interface Admission {
  allowed: boolean;
  decisions: PolicyDecision[];
}

/**
 * The bucket a request is counted in before anyone looks it up: the credential it presents
 * (hashed, so a token shared by many machines is one bucket and the raw secret never becomes a
 * key), or the client's address when it presents none.
 */
export function rateLimitSubject(token: string | null, clientIp: string): string {
  if (token) return credentialSubject(hashToken(token));
  return `ip:${clientIp}`;
}

/** The bucket of a credential, from its SHA-256 (the request may have it already: src/app.ts). */
export function credentialSubject(tokenHash: Uint8Array): string {
  return `cred:${Buffer.from(tokenHash.buffer, tokenHash.byteOffset, tokenHash.byteLength).toString('base64url').slice(0, 27)}`;
}

/** One limiter for both surfaces: every request draws from its subject's global bucket. */
export class RateLimiter {
  constructor(readonly store: LimiterStore) {}

  async admit(subject: string, policies: Policy[] = [GLOBAL_POLICY]): Promise<Admission> {
    const decisions = await this.store.consumeAll(policies.map((policy) => ({ key: subject, policy })));
    return { allowed: decisions.every((d) => d.allowed), decisions: decisions.map((decision, i) => ({ policy: policies[i]!, decision })) };
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

/**
 * Draws one request of `subject` from a policy's bucket (on top of the global one) and adds the
 * decision to the response's headers. Returns the Retry-After seconds when refused, else null.
 */
export async function drawFrom(ctx: Pick<Context, 'limiter' | 'rateLimits' | 'scope'>, policy: Policy, subject: string): Promise<string | null> {
  const { allowed, decisions } = await ctx.limiter.admit(subject, [policy]);
  ctx.rateLimits.push(...decisions);
  reportRateLimitRefusals(ctx.scope, decisions);
  return allowed ? null : retryAfter(decisions);
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
      logger.warn({ err: error }, 'Redis unavailable for rate limiting: limiting in this process only until it answers again'),
  });
  if (!(await store.ready())) logger.warn('Redis did not answer at start; rate limits are per process until it does');
  return store;
}
