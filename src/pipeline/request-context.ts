import { presentedCredentials, type AuthDeps, type Credentials } from '../auth/authenticate.js';
import type { CredentialEpoch } from '../auth/credential-epoch.js';
import type { SigningKeys } from '../auth/oauth/signing-keys.js';
import { verifyAccessToken } from '../auth/oauth/tokens.js';
import type { PatCache } from '../auth/pat-cache.js';
import type { Claim } from '../idempotency/claim.js';
import { hashToken, PAT_PREFIX } from '../auth/pat-token.js';
import { anonymous, type Principal } from '../auth/principal.js';
import type { Config } from '../config.js';
import type { Context } from '../context.js';
import type { Db } from '../db/client.js';
import { clientIp } from '../http/client-ip.js';
import type { RequestInfo } from '../http/request-info.js';
import { requestUrl } from '../http/request-url.js';
import type { Surface } from '../http/surfaces.js';
import type { PolicyDecision } from '../limits/headers.js';
import type { RateLimiter } from '../limits/limiter.js';
import type { LiveUpdates } from '../live/live-updates.js';
import type { Mailer } from '../mail/mailer.js';
import type { RequestScope } from '../ops/request-scope.js';

/** What the app holds for every request: the pipeline's steps and the operations reach it through here. */
export interface Services {
  config: Config;
  prisma: Db;
  keys: SigningKeys;
  limiter: RateLimiter;
  credentialEpoch: CredentialEpoch;
  /** Verified PATs; null when PAT_CACHE resolves to off. */
  patCache: PatCache | null;
  liveUpdates: LiveUpdates;
  mailer?: Mailer;
}

/**
 * One request on its way through the pipeline (src/app.ts): what it is, which surface serves
 * it, and what the steps found out about it. Each field that changes has one step that writes
 * it, named beside it; no step writes another's.
 *
 * Two other objects exist per request, each for a reason:
 * - `scope` (src/ops/request-scope.ts) is made by the operations layer before the pipeline runs,
 *   since it also records requests the pipeline never sees (health checks, shed load), and the
 *   operations report into it (a refused rate limit) without knowing the pipeline;
 * - the operation `Context` (src/context.ts), which the schema's functions take, is derived from
 *   this one once the credentials are checked (`operationContext`): the same functions also run
 *   outside HTTP (the CLI, the webhook worker), where there is no request.
 */
export interface RequestContext {
  /** The request; the body step replaces it with one whose body is read within its surface's limit. */
  request: Request;
  readonly url: URL;
  /** The surface that serves the path (src/http/surfaces.ts). */
  readonly surface: Surface;
  readonly scope: RequestScope;
  /** The client's address (src/http/client-ip.ts). */
  readonly ip: string;
  /** What the request presents, read once from its headers. */
  readonly credentials: Credentials;
  /** What authentication needs, with this request's memoised token verification and epoch read. */
  readonly auth: Required<AuthDeps>;
  readonly services: Services;
  /** Who is calling: written by the credentials step; anonymous before it and on surfaces that take no credential. */
  principal: Principal;
  /** The global bucket's latest decisions: written by the rate-limit step, for the response's headers. */
  decisions: PolicyDecision[];
  /** Draws more requests from the global bucket (an MCP batch's later messages, a bulk call's items): written by the rate-limit step. */
  drawRequest?: (count?: number) => Promise<string | null>;
  /** Per-operation rate-limit decisions, appended by the operations this request runs (`Context.rateLimits`). */
  readonly operationDecisions: PolicyDecision[];
  /** The Idempotency-Key claim the request runs under: written by the idempotency step. */
  claim?: Claim;
}

/** The request context of a request that has just arrived, for `surface`. */
export function beginRequest(
  services: Services,
  request: Request,
  info: RequestInfo,
  scope: RequestScope,
  surface: Surface,
): RequestContext {
  const { config, keys, patCache, credentialEpoch } = services;
  const credentials = presentedCredentials(config, request.headers);
  // An access token is verified once per request: for its rate-limit bucket, then to authenticate.
  const verified = new Map<string, ReturnType<typeof verifyAccessToken>>();
  // A token's SHA-256 is made once per request: for its rate-limit bucket, then to look the PAT up.
  let hashed: { token: string; hash: Uint8Array<ArrayBuffer> } | undefined;
  // Started before the rate-limit admission: over Redis the two commands share one round trip.
  const patEpoch =
    patCache && typeof credentials.token === 'string' && credentials.token.startsWith(PAT_PREFIX)
      ? credentialEpoch.read()
      : null;
  const context: RequestContext = {
    request,
    url: requestUrl(request),
    surface,
    scope,
    ip: clientIp(request, info.remoteAddress, config.trustProxy),
    credentials,
    auth: {
      db: services.prisma,
      keys,
      config,
      patCache,
      patEpoch,
      tokenHash: (token) => {
        if (hashed?.token !== token) hashed = { token, hash: hashToken(token) };
        return hashed.hash;
      },
      verifyAccess: (token) => {
        if (!verified.has(token)) verified.set(token, verifyAccessToken(keys, config, token));
        return verified.get(token)!;
      },
    },
    services,
    principal: anonymous,
    decisions: [],
    operationDecisions: [],
  };
  // The access log and metrics read the principal from here after the response.
  scope.context = context;
  return context;
}

/** The context the operations of this request see, made once the credentials step has run. */
export function operationContext(request: RequestContext, extra: Pick<Context, 'reauthenticate'> = {}): Context {
  const { services } = request;
  return {
    principal: request.principal,
    prisma: request.claim?.guarded ?? services.prisma,
    idempotency: request.claim,
    config: services.config,
    clientIp: request.ip,
    limiter: services.limiter,
    rateLimits: request.operationDecisions,
    drawRequest: request.drawRequest,
    credentialEpoch: services.credentialEpoch,
    liveUpdates: services.liveUpdates,
    mailer: services.mailer,
    scope: request.scope,
    ...extra,
  };
}
