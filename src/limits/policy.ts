/** One sliding-window bucket: at most `limit` requests in any `windowMs` span. */
export interface Policy {
  /** Stable name: part of the storage key and shown to clients in RateLimit-Policy. */
  name: string;
  limit: number;
  windowMs: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Spec: "600 requests per 60-second sliding window per token" — applies to every API request. */
export const GLOBAL_POLICY: Policy = { name: 'global', limit: 600, windowMs: MINUTE };

/** Per-route buckets, consumed together with GLOBAL_POLICY (a request must fit in both). */
export const ROUTE_POLICIES = {
  /** Spec row "API key creation": 10 per hour — minting credentials is rare and worth slowing down if a token leaks. */
  apiKeyCreate: { name: 'api-keys.create', limit: 10, windowMs: HOUR },
  /** Spec row "search": 30 per minute — search queries are the most expensive reads. */
  search: { name: 'search', limit: 30, windowMs: MINUTE },
  /** Spec row "project writes": 30 per minute. */
  projectWrite: { name: 'projects.write', limit: 30, windowMs: MINUTE },
  /** GraphQL subscriptions started (issue 18): each holds a connection and hears every change of its organization. */
  subscriptionStart: { name: 'subscriptions.start', limit: 30, windowMs: MINUTE },
  /** Spec row "OAuth dynamic client registration": 5 per hour — unauthenticated and creates rows. */
  oauthRegister: { name: 'oauth.register', limit: 5, windowMs: HOUR },
  /** Spec row "OAuth token endpoint": 60 per minute — bounds code/refresh-token guessing. */
  oauthToken: { name: 'oauth.token', limit: 60, windowMs: MINUTE },
} as const satisfies Record<string, Policy>;
