import { looksLikeJwt } from '../auth/oauth/tokens.js';
import { retryAfter, type PolicyDecision } from '../limits/headers.js';
import { hashToken } from '../auth/pat-token.js';
import { addressSubject, credentialSubject, type RateLimiter } from '../limits/limiter.js';
import { GLOBAL_POLICY } from '../limits/policy.js';
import { reportRateLimitRefusals } from '../ops/request-scope.js';
import { problemResponse } from '../http/problem.js';
import { AppError } from '../schema/core/errors.js';
import type { Step } from './pipeline.js';
import type { RequestContext } from './request-context.js';

/**
 * The bucket a request is counted in before anyone looks it up: the credential it presents
 * (by its hash, src/limits/limiter.ts), or the client's address when it presents none.
 */
export function rateLimitSubject(token: string | null, clientIp: string): string {
  return token ? credentialSubject(hashToken(token)) : addressSubject(clientIp);
}

function tooManyRequests(decisions: PolicyDecision[]): Response {
  const wait = retryAfter(decisions);
  return problemResponse(
    new AppError(`Too many requests. Wait ${wait} seconds (X-RateLimit-Reset) before retrying.`, 'RATE_LIMITED', {
      headers: { 'retry-after': wait },
    }),
  );
}

/** The bucket of a request: an OAuth grant (all its access tokens share one), another credential, or the address. */
async function subjectOf(context: RequestContext): Promise<string> {
  const { credentials, ip, auth } = context;
  const token = typeof credentials.token === 'string' ? credentials.token : null;
  if (token && looksLikeJwt(token)) {
    const claims = await auth.verifyAccess(token).catch(() => null);
    if (claims) return `grant:${claims.grant_id}`;
  }
  // The token's hash is the PAT lookup's too: made once for both.
  return token ? credentialSubject(auth.tokenHash(token)) : rateLimitSubject(credentials.sessionToken, ip);
}

/**
 * The pipeline's global rate limit, counted before any other work so that a refused request
 * costs no database query; the rest of the pipeline runs only when it admits. A refused
 * credential is charged to its address too: rotating made-up tokens must not buy a fresh bucket
 * per request.
 */
export function rateLimit(limiter: RateLimiter): Step {
  return async (context, next) => {
    const subject = await subjectOf(context);
    const admission = await limiter.admit(subject);
    context.decisions = admission.decisions;
    if (!admission.allowed) {
      reportRateLimitRefusals(context.scope, admission.decisions);
      return tooManyRequests(context.decisions);
    }
    // The latest decision is the one the response's headers report: what is left after every draw.
    // Several at once (a bulk call's items) are all or none: a refusal gives back those admitted.
    context.drawRequest = async (count = 1) => {
      for (let drawn = 0; drawn < count; drawn++) {
        const more = await limiter.admit(subject);
        context.decisions = more.decisions;
        if (more.allowed) continue;
        reportRateLimitRefusals(context.scope, more.decisions);
        for (let i = 0; i < drawn; i++) await limiter.store.release([{ key: subject, policy: GLOBAL_POLICY }]);
        return retryAfter(more.decisions);
      }
      return null;
    };
    const response = await next();
    if (response.status === 401 && typeof context.credentials.token === 'string') {
      const byAddress = await limiter.admit(rateLimitSubject(null, context.ip));
      if (!byAddress.allowed) {
        reportRateLimitRefusals(context.scope, byAddress.decisions);
        context.decisions = byAddress.decisions;
        return tooManyRequests(context.decisions);
      }
    }
    return response;
  };
}
