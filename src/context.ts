import type { CredentialEpoch } from './auth/credential-epoch.js';
import type { AuthError } from './auth/auth-error.js';
import type { Principal } from './auth/principal.js';
import type { Config } from './config.js';
import type { Db } from './db/client.js';
import type { Deadline } from './graphql/deadline.js';
import type { Claim } from './idempotency/claim.js';
import type { PolicyDecision } from './limits/headers.js';
import type { RateLimiter } from './limits/limiter.js';
import type { LiveUpdates } from './live/live-updates.js';
import type { Mailer } from './mail/mailer.js';
import type { RequestScope } from './ops/request-scope.js';

/** What every resolver sees, whichever surface (REST, GraphQL or a page) the request came through. */
export interface Context {
  principal: Principal;
  prisma: Db;
  config: Config;
  /** The client's address (see src/http/client-ip.ts). */
  clientIp: string;
  limiter: RateLimiter;
  /** Per-operation rate-limit decisions taken while serving this request, for its headers. */
  rateLimits: PolicyDecision[];
  /**
   * Draws `count` (default 1) more requests from this request's global bucket, all or none (each
   * message of an MCP batch after the first is a request of its own; a bulk call pays for its
   * items): the Retry-After seconds when refused, else null. Set by
   * the rate-limit step (src/pipeline/rate-limit.ts); absent outside an HTTP request.
   */
  drawRequest?: (count?: number) => Promise<string | null>;
  /** Bumped after a write that changes what a cached PAT says (revocation), before answering. */
  credentialEpoch: CredentialEpoch;
  /** Where committed changes are published for subscriptions (absent at the console). */
  liveUpdates?: LiveUpdates;
  /**
   * Authenticates the request's credential again, as it stands now (a revoked key, a removed
   * member): a subscription asks before each event. Absent outside API requests.
   */
  reauthenticate?: () => Promise<Principal | AuthError>;
  /** The request this context serves (its id, what the access log and metrics learn); absent outside a request. */
  scope?: RequestScope;
  /** Sends mail; absent without SMTP_URL (links are then only shown). */
  mailer?: Mailer;
  /**
   * The Idempotency-Key claim the request runs under (src/idempotency/claim.ts): its writes mark
   * it in their transaction (src/events/record.ts). `prisma` is then its guarded client. Absent
   * without a key.
   */
  idempotency?: Claim;
  /** The deadline of the GraphQL execution under way (src/graphql/query-bounds.ts); absent elsewhere. */
  deadline?: Pick<Deadline, 'check'>;
}
