import { AuthError } from './auth/auth-error.js';
import { authenticate, presentedCredentials, type AuthDeps, type Credentials } from './auth/authenticate.js';
import { localEpoch, RedisEpoch, type CredentialEpoch } from './auth/credential-epoch.js';
import { resourceMetadataUrl } from './auth/oauth/metadata.js';
import { createOAuthRouter } from './auth/oauth/router.js';
import { SigningKeys } from './auth/oauth/signing-keys.js';
import { looksLikeJwt, verifyAccessToken } from './auth/oauth/tokens.js';
import { PatCache } from './auth/pat-cache.js';
import { PAT_PREFIX } from './auth/pat-token.js';
import type { Principal } from './auth/principal.js';
import { sessionCookie } from './auth/session.js';
import type { Config } from './config.js';
import type { Context } from './context.js';
import { openDatabase, type Database } from './db/client.js';
import { applyMigrations } from './db/migrations.js';
import { createGraphQLServer } from './graphql/yoga.js';
import { clientIp } from './http/client-ip.js';
import { httpsRedirect } from './http/https-policy.js';
import { isSameOrigin, isUnsafeMethod } from './http/same-origin.js';
import { retryAfter, type PolicyDecision } from './limits/headers.js';
import { applyRateLimitHeaders, createLimiterStore, RateLimiter, rateLimitSubject } from './limits/limiter.js';
import { RedisStore } from './limits/redis-store.js';
import type { LimiterStore } from './limits/store.js';
import { createLogger, type Logger } from './logger.js';
import { Ops, UNMATCHED_ROUTE } from './ops/observe.js';
import { bindContext, reportAuthFailure, reportRoute } from './ops/request-scope.js';
import { routeTemplate } from './ops/route-template.js';
import { HttpProblem, problems } from './rest/problem.js';
import { createRestRouter } from './rest/router.js';
import { createWebRouter } from './web/router.js';

export interface RequestInfo {
  /** The socket's peer address (the Node adapter passes it; tests may). */
  remoteAddress?: string;
}

export interface App {
  /** The whole service as one fetch handler. */
  fetch(request: Request, info?: RequestInfo): Promise<Response>;
  config: Config;
  db: Database;
  logger: Logger;
  limiter: RateLimiter;
  /** Where credential writes are announced (Redis when the limiter uses it, else this process). */
  credentialEpoch: CredentialEpoch;
  /** Verified PATs; null when PAT_CACHE resolves to off. */
  patCache: PatCache | null;
  /** Health, readiness and metrics (src/ops). */
  ops: Ops;
  close(): Promise<void>;
}

export interface AppOptions {
  /** An already open database (tests share one across apps); otherwise config.databaseUrl is opened. */
  db?: Database;
  logger?: Logger;
  /** Rate-limit storage (tests pass one with a fake clock); otherwise from config.redisUrl. */
  limiterStore?: LimiterStore;
  /**
   * The credential epoch; otherwise a Redis key over the limiter's connection when the limiter
   * store is Redis, else this process's counter (tests pass one with a key of their own).
   */
  credentialEpoch?: CredentialEpoch;
}

function bearerChallenge(config: Config, error?: AuthError): string {
  const parts = [`realm="${config.baseUrl}/api"`, `resource_metadata="${resourceMetadataUrl(config)}"`];
  if (error?.bearerError) parts.push(`error="${error.bearerError}"`, `error_description="${error.detail.replace(/"/g, "'")}"`);
  return `Bearer ${parts.join(', ')}`;
}

function authProblem(config: Config, error: AuthError): HttpProblem {
  reportAuthFailure(error.code);
  const headers: Record<string, string> = error.status === 401 ? { 'www-authenticate': bearerChallenge(config, error) } : {};
  return new HttpProblem(error.status, error.code.toUpperCase(), error.detail, undefined, headers);
}

function tooManyRequests(decisions: PolicyDecision[]): Response {
  const wait = retryAfter(decisions);
  return new HttpProblem(429, 'RATE_LIMITED', `Too many requests. Wait ${wait} seconds (X-RateLimit-Reset) before retrying.`, undefined, {
    'retry-after': wait,
  }).toResponse();
}

const isApiPath = (path: string) => path === '/api' || path.startsWith('/api/');

export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const db = options.db ?? (await openDatabase(config.databaseUrl));
  if (config.migrateOnStart && !options.db) {
    const applied = await applyMigrations(db.adapterFactory);
    if (applied.length) logger.info({ applied }, 'applied database migrations');
  }
  const limiter = new RateLimiter(options.limiterStore ?? (await createLimiterStore(config.redisUrl, logger)));
  // One connection for both: the epoch read of a request is pipelined with its rate-limit admission.
  const credentialEpoch =
    options.credentialEpoch ??
    (limiter.store instanceof RedisStore
      ? new RedisEpoch(limiter.store.redis, {
          readTimeoutMs: limiter.store.timeoutMs,
          onBumpError: (error) =>
            logger.error({ err: error }, 'could not announce a credential change through Redis: other instances may accept the changed key for up to 60 s (the cache TTL)'),
        })
      : localEpoch);
  const patCache = config.patCache ? new PatCache() : null;
  const ops = await Ops.create({ config, logger, db, limiter });
  const rest = createRestRouter(logger);
  const graphql = createGraphQLServer(config, logger);
  const web = createWebRouter(logger);
  const keys = await SigningKeys.open(db.prisma);
  const oauth = createOAuthRouter(logger, keys);
  const authDeps = { db: db.prisma, keys, config, patCache } satisfies AuthDeps;

  const contextFor = (principal: Principal, clientIp: string): Context => ({
    principal,
    prisma: db.prisma,
    config,
    clientIp,
    limiter,
    rateLimits: [],
    credentialEpoch,
  });

  async function handleApi(request: Request, url: URL, principal: Principal | AuthError, ctx: Context): Promise<Response> {
    // The API description is public: answered before any credential check (a credential sent with it is ignored).
    if (url.pathname === '/api/openapi.json') return (await rest.fetch(request, ctx)) as Response;
    if (principal instanceof AuthError) return authProblem(config, principal).toResponse();
    if (principal.kind === 'anonymous') {
      reportAuthFailure('unauthenticated');
      return new HttpProblem(401, 'UNAUTHENTICATED', 'Send a credential: Authorization: Bearer <token> (or X-Auth-Token).', undefined, {
        'www-authenticate': bearerChallenge(config),
      }).toResponse();
    }
    if (url.searchParams.has('access_token')) {
      return authProblem(config, new AuthError(401, 'token_in_url', 'Send tokens in the Authorization header, never in the URL (where they end up in logs).', 'invalid_request')).toResponse();
    }
    if (url.pathname === '/api/graphql') return graphql.handleRequest(request, ctx);
    return (await rest.fetch(request, ctx)) as Response;
  }

  async function route(request: Request, credentials: Credentials, deps: AuthDeps, ctx: Context): Promise<Response> {
    const redirect = httpsRedirect(request, config.baseUrl, config.trustProxy);
    if (redirect) return redirect;
    const url = new URL(request.url);
    const path = url.pathname;
    const api = isApiPath(path);
    // Writes that a browser could be tricked into sending: cookie-authenticated API calls and page forms.
    // (The OAuth back-channel endpoints authenticate clients, not cookies.)
    const page = web.serves(path) || oauth.isPage(path);
    if (isUnsafeMethod(request.method) && credentials.token === null && ((api && credentials.sessionToken !== null) || page)) {
      if (!isSameOrigin(request, config.baseUrl)) {
        return new HttpProblem(403, 'CSRF_REJECTED', 'Cross-site request refused: Origin (or Referer) must be this service.').toResponse();
      }
    }
    if (web.serves(path) || oauth.serves(path)) {
      if (page) {
        const principal = await authenticate(deps, { ...credentials, token: null });
        if (!(principal instanceof AuthError)) ctx.principal = principal;
      }
      return web.serves(path) ? web.fetch(request, ctx) : oauth.fetch(request, ctx);
    }
    if (!api) return problems.notFound().toResponse();
    reportRoute(path === '/api/graphql' ? path : (routeTemplate(rest, request.method, path) ?? UNMATCHED_ROUTE));
    const principal = await authenticate(deps, credentials);
    if (!(principal instanceof AuthError)) ctx.principal = principal;
    return handleApi(request, url, principal, ctx);
  }

  /** The bucket of a request: an OAuth grant (all its access tokens share one), another credential, or the address. */
  async function subjectOf(credentials: Credentials, ip: string, deps: Required<AuthDeps>): Promise<string> {
    const token = typeof credentials.token === 'string' ? credentials.token : null;
    if (token && looksLikeJwt(token)) {
      const claims = await deps.verifyAccess(token).catch(() => null);
      if (claims) return `grant:${claims.grant_id}`;
    }
    return rateLimitSubject(token ?? credentials.sessionToken, ip);
  }

  async function fetch(request: Request, info: RequestInfo = {}): Promise<Response> {
    const ip = clientIp(request, info.remoteAddress, config.trustProxy);
    const credentials = presentedCredentials(config, request.headers);
    const ctx = contextFor({ kind: 'anonymous' }, ip);
    bindContext(ctx);
    // An access token is verified once per request: for its rate-limit bucket, then reused to authenticate.
    const verified = new Map<string, ReturnType<typeof verifyAccessToken>>();
    // Started before the rate-limit admission: over Redis the two commands share one round trip.
    const patEpoch = patCache && typeof credentials.token === 'string' && credentials.token.startsWith(PAT_PREFIX) ? credentialEpoch.read() : null;
    const deps: Required<AuthDeps> = {
      ...authDeps,
      patEpoch,
      verifyAccess: (token) => {
        if (!verified.has(token)) verified.set(token, verifyAccessToken(keys, config, token));
        return verified.get(token)!;
      },
    };
    let response: Response;
    let decisions: PolicyDecision[] = [];
    try {
      // Counted before any other work, so a refused request costs no database query.
      const admission = await limiter.admit(await subjectOf(credentials, ip, deps));
      decisions = admission.decisions;
      response = admission.allowed ? await route(request, credentials, deps, ctx) : tooManyRequests(decisions);
      // A refused credential is charged to its address too: rotating made-up tokens
      // must not buy a fresh bucket per request.
      if (response.status === 401 && typeof credentials.token === 'string') {
        const byAddress = await limiter.admit(rateLimitSubject(null, ip));
        if (!byAddress.allowed) {
          decisions = byAddress.decisions;
          response = tooManyRequests(decisions);
        }
      }
    } catch (error) {
      logger.error({ err: error }, 'unexpected error');
      response = problems.internal().toResponse();
    }
    applyRateLimitHeaders(response, [...decisions, ...ctx.rateLimits]);
    const refreshed = ctx.principal.kind === 'user' ? ctx.principal.sessionRefreshedUntil : null;
    if (refreshed && credentials.sessionToken && !response.headers.has('set-cookie')) {
      response.headers.append('set-cookie', sessionCookie(config, credentials.sessionToken, refreshed));
    }
    response.headers.set('x-content-type-options', 'nosniff');
    if (!response.headers.has('cache-control')) response.headers.set('cache-control', 'no-store');
    return response;
  }

  return {
    // Request ids, the access log, metrics, /healthz and /readyz: around everything else.
    fetch: ops.wrap(fetch),
    config,
    db,
    logger,
    limiter,
    credentialEpoch,
    patCache,
    ops,
    async close() {
      ops.close();
      await limiter.close();
      if (!options.db) await db.close();
    },
  };
}
