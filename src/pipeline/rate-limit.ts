import { looksLikeJwt } from '../auth/oauth/tokens.js';
import { retryAfter, type PolicyDecision } from '../limits/headers.js';
import { credentialSubject, rateLimitSubject, type RateLimiter } from '../limits/limiter.js';
import { reportRateLimitRefusals } from '../ops/request-scope.js';
import { problemResponse } from '../http/problem.js';
import { AppError } from '../schema/errors.js';
import type { Exchange } from './exchange.js';

function tooManyRequests(decisions: PolicyDecision[]): Response {
  const wait = retryAfter(decisions);
  return problemResponse(new AppError(`Too many requests. Wait ${wait} seconds (X-RateLimit-Reset) before retrying.`, 'RATE_LIMITED', { headers: { 'retry-after': wait } }));
}

/** The bucket of a request: an OAuth grant (all its access tokens share one), another credential, or the address. */
async function subjectOf(exchange: Exchange): Promise<string> {
  const { credentials, ip, auth } = exchange;
  const token = typeof credentials.token === 'string' ? credentials.token : null;
  if (token && looksLikeJwt(token)) {
    const claims = await auth.verifyAccess(token).catch(() => null);
    if (claims) return `grant:${claims.grant_id}`;
  }
  // The token's hash is the PAT lookup's too: made once for both.
  return token ? credentialSubject(auth.tokenHash(token)) : rateLimitSubject(credentials.sessionToken, ip);
}

/**
 * The global bucket, counted before any other work so that a refused request costs no database
 * query; `next` runs only when it admits. A refused credential is charged to its address too:
 * rotating made-up tokens must not buy a fresh bucket per request.
 */
export async function rateLimit(limiter: RateLimiter, exchange: Exchange, next: () => Promise<Response>): Promise<Response> {
  const subject = await subjectOf(exchange);
  const admission = await limiter.admit(subject);
  exchange.decisions = admission.decisions;
  if (!admission.allowed) {
    reportRateLimitRefusals(exchange.scope, admission.decisions);
    return tooManyRequests(exchange.decisions);
  }
  // The latest decision is the one the response's headers report: what is left after every draw.
  exchange.ctx.drawRequest = async () => {
    const more = await limiter.admit(subject);
    exchange.decisions = more.decisions;
    if (more.allowed) return null;
    reportRateLimitRefusals(exchange.scope, more.decisions);
    return retryAfter(more.decisions);
  };
  const response = await next();
  if (response.status === 401 && typeof exchange.credentials.token === 'string') {
    const byAddress = await limiter.admit(rateLimitSubject(null, exchange.ip));
    if (!byAddress.allowed) {
      reportRateLimitRefusals(exchange.scope, byAddress.decisions);
      exchange.decisions = byAddress.decisions;
      return tooManyRequests(exchange.decisions);
    }
  }
  return response;
}
