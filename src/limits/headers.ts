import type { Policy } from './policy.js';
import type { Decision } from './store.js';

export interface PolicyDecision {
  policy: Policy;
  decision: Decision;
}

/** The bucket a client will hit first: fewest remaining, then the smaller limit. */
function tightest(decisions: PolicyDecision[]): PolicyDecision | undefined {
  let best: PolicyDecision | undefined;
  for (const d of decisions) {
    if (
      !best ||
      d.decision.remaining < best.decision.remaining ||
      (d.decision.remaining === best.decision.remaining && d.decision.limit < best.decision.limit)
    ) {
      best = d;
    }
  }
  return best;
}

/** An RFC 9651 sf-string: policy names are ours, but escape anyway rather than emit a malformed field. */
function sfString(value: string): string {
  return `"${value.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, '\\$&')}"`;
}

/** A policy as an item of RateLimit-Policy; the same for every response, so made once per policy. */
const policyItems = new WeakMap<Policy, string>();
function policyItem(policy: Policy): string {
  let item = policyItems.get(policy);
  if (item === undefined) {
    item = `${sfString(policy.name)};q=${policy.limit};w=${Math.ceil(policy.windowMs / 1000)}`;
    policyItems.set(policy, item);
  }
  return item;
}

/**
 * Headers for a limited response: the legacy X-RateLimit-* trio (what most clients read) for the
 * tightest bucket, and the IETF draft-ietf-httpapi-ratelimit-headers fields, where
 * RateLimit-Policy lists every bucket that applied and RateLimit reports the tightest one.
 */
export function rateLimitHeaders(decisions: PolicyDecision[]): Record<string, string> {
  const top = tightest(decisions);
  if (!top) return {};
  const { policy, decision } = top;
  return {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.resetSeconds),
    'RateLimit-Policy': decisions.map((d) => policyItem(d.policy)).join(', '),
    RateLimit: `${sfString(policy.name)};r=${decision.remaining};t=${decision.resetSeconds}`,
  };
}

/**
 * Retry-After (delta seconds) for a refused request: when every refusing bucket has a free slot
 * again. In a refused consumeAll the refusing buckets are exactly those with nothing remaining.
 */
export function retryAfter(decisions: PolicyDecision[]): string {
  const refusing = decisions.filter((d) => !d.decision.allowed && d.decision.remaining === 0);
  return String(Math.max(1, ...refusing.map((d) => d.decision.resetSeconds)));
}
