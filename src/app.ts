import { AuthError } from './auth/auth-error.js';
import { authenticate, presentedToken } from './auth/authenticate.js';
import type { Config } from './config.js';
import type { Context } from './context.js';
import { openDatabase, type Database } from './db/client.js';
import { applyMigrations } from './db/migrations.js';
import { createGraphQLServer } from './graphql/yoga.js';
import { clientIp } from './http/client-ip.js';
import { httpsRedirect } from './http/https-policy.js';
import { retryAfter } from './limits/headers.js';
import { applyRateLimitHeaders, createLimiterStore, RateLimiter, rateLimitSubject } from './limits/limiter.js';
import type { LimiterStore } from './limits/store.js';
import { createLogger, type Logger } from './logger.js';
import { HttpProblem, problems } from './rest/problem.js';
import { createRestRouter } from './rest/router.js';

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
  close(): Promise<void>;
}

export interface AppOptions {
  /** An already open database (tests share one across apps); otherwise config.databaseUrl is opened. */
  db?: Database;
  logger?: Logger;
  /** Rate-limit storage (tests pass one with a fake clock); otherwise from config.redisUrl. */
  limiterStore?: LimiterStore;
}

function bearerChallenge(config: Config, error?: AuthError): string {
  const parts = [`realm="${config.baseUrl}/api"`];
  if (error?.bearerError) parts.push(`error="${error.bearerError}"`, `error_description="${error.detail.replace(/"/g, "'")}"`);
  return `Bearer ${parts.join(', ')}`;
}

function authProblem(config: Config, error: AuthError): HttpProblem {
  const headers: Record<string, string> = error.status === 401 ? { 'www-authenticate': bearerChallenge(config, error) } : {};
  return new HttpProblem(error.status, error.code.toUpperCase(), error.detail, undefined, headers);
}

function tooManyRequests(decisions: Parameters<typeof retryAfter>[0]): Response {
  const wait = retryAfter(decisions);
  return new HttpProblem(429, 'RATE_LIMITED', `Too many requests. Wait ${wait} seconds (X-RateLimit-Reset) before retrying.`, undefined, {
    'retry-after': wait,
  }).toResponse();
}

export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const db = options.db ?? (await openDatabase(config.databaseUrl));
  if (config.migrateOnStart && !options.db) {
    const applied = await applyMigrations(db.adapterFactory);
    if (applied.length) logger.info({ applied }, 'applied database migrations');
  }
  const limiter = new RateLimiter(options.limiterStore ?? (await createLimiterStore(config.redisUrl, logger)));
  const rest = createRestRouter(logger);
  const graphql = createGraphQLServer(config, logger);

  async function handleApi(request: Request, token: ReturnType<typeof presentedToken>): Promise<Response> {
    const principal = await authenticate(db.prisma, request.headers, token);
    if (principal instanceof AuthError) return authProblem(config, principal).toResponse();
    if (principal.kind === 'anonymous') {
      return new HttpProblem(401, 'UNAUTHENTICATED', 'Send a credential: Authorization: Bearer <token> (or X-Auth-Token).', undefined, {
        'www-authenticate': bearerChallenge(config),
      }).toResponse();
    }
    const ctx: Context = { principal, prisma: db.prisma, config };
    const path = new URL(request.url).pathname;
    if (path === '/api/graphql') return graphql.handleRequest(request, ctx);
    return (await rest.fetch(request, ctx)) as Response;
  }

  function route(request: Request, token: ReturnType<typeof presentedToken>): Promise<Response> | Response {
    const redirect = httpsRedirect(request, config.baseUrl, config.trustProxy);
    if (redirect) return redirect;
    const path = new URL(request.url).pathname;
    if (path === '/api' || path.startsWith('/api/')) return handleApi(request, token);
    return problems.notFound().toResponse();
  }

  async function fetch(request: Request, info: RequestInfo = {}): Promise<Response> {
    const ip = clientIp(request, info.remoteAddress, config.trustProxy);
    const token = presentedToken(request.headers);
    let response: Response;
    let decisions: Awaited<ReturnType<RateLimiter['admit']>>['decisions'] = [];
    try {
      // Counted before any other work, so a refused request costs no database query.
      const admission = await limiter.admit(rateLimitSubject(typeof token === 'string' ? token : null, ip));
      decisions = admission.decisions;
      response = admission.allowed ? await route(request, token) : tooManyRequests(decisions);
      // A refused credential is charged to its address too: rotating made-up tokens
      // must not buy a fresh bucket per request.
      if (response.status === 401 && typeof token === 'string') {
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
    applyRateLimitHeaders(response, decisions);
    response.headers.set('x-content-type-options', 'nosniff');
    if (!response.headers.has('cache-control')) response.headers.set('cache-control', 'no-store');
    return response;
  }

  return {
    fetch,
    config,
    db,
    logger,
    limiter,
    async close() {
      await limiter.close();
      if (!options.db) await db.close();
    },
  };
}
