import { presentedCredentials } from './auth/authenticate.js';
import { FirstRunLink } from './auth/first-run.js';
import { localEpoch, RedisEpoch, type CredentialEpoch } from './auth/credential-epoch.js';
import { createOAuthRouter } from './auth/oauth/router.js';
import { SigningKeys } from './auth/oauth/signing-keys.js';
import { verifyAccessToken } from './auth/oauth/tokens.js';
import { PatCache } from './auth/pat-cache.js';
import { hashToken, PAT_PREFIX } from './auth/pat-token.js';
import { anonymous } from './auth/principal.js';
import type { Config } from './config.js';
import type { Context } from './context.js';
import { openDatabase, type Database } from './db/client.js';
import { applyMigrations } from './db/migrations.js';
import { createGraphQLServer } from './graphql/yoga.js';
import { clientIp } from './http/client-ip.js';
import { httpsRedirect } from './http/https-policy.js';
import { createLimiterStore, RateLimiter } from './limits/limiter.js';
import { RedisStore } from './limits/redis-store.js';
import { LiveUpdates } from './live/live-updates.js';
import type { LimiterStore } from './limits/store.js';
import { createLogger, type Logger } from './logger.js';
import { createMcpEndpoint } from './mcp/server.js';
import { Ops } from './ops/observe.js';
import { requestLogger, type RequestScope } from './ops/request-scope.js';
import { routeTemplate } from './ops/route-template.js';
import { createCors } from './pipeline/cors.js';
import { csrf } from './pipeline/csrf.js';
import { createDispatch } from './pipeline/dispatch.js';
import type { Exchange } from './pipeline/exchange.js';
import { rateLimit } from './pipeline/rate-limit.js';
import { responseHeaders } from './pipeline/response-headers.js';
import { problems } from './rest/problem.js';
import { problemResponse } from './http/problem.js';
import { createRestRouter } from './rest/router.js';
import { API_DOCS_PAGE_PATH } from './web/api-docs.js';
import { createWebRouter } from './web/router.js';
import { DeliveryWorker } from './webhooks/worker.js';
import { requestUrl } from './http/request-url.js';
import { createMailer } from './mail/mailer.js';

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
  /** On an empty database, the one-time first-run setup link (printed at start); else null. */
  setupUrl: string | null;
  /** Sends webhook deliveries; null when WEBHOOKS_WORKER=false. */
  deliveryWorker: DeliveryWorker | null;
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
  const liveUpdates = LiveUpdates.create(config.redisUrl, logger, config.liveStreams);
  const mailer = createMailer(config.mail, (fields, message) => logger.warn(fields, message));
  const ops = await Ops.create({ config, logger, db, limiter });
  // An empty database gets a one-time setup link for its first owner (src/auth/first-run.ts).
  const firstRun = (await db.prisma.user.count()) === 0 ? FirstRunLink.create() : null;
  const web = createWebRouter(logger, { firstRun: firstRun?.link ?? null });
  const keys = await SigningKeys.open(db.prisma);
  const oauth = createOAuthRouter(logger, keys, config);
  const rest = createRestRouter(logger);
  const isPage = (path: string) => web.serves(path) || oauth.isPage(path);
  // What browser apps on other origins may call: the API and the authorization server's back-channel, not pages.
  const cors = createCors(
    config.corsOrigins,
    (path) => ((path === '/api' || path.startsWith('/api/')) && path !== API_DOCS_PAGE_PATH) || (oauth.serves(path) && !oauth.isPage(path)),
  );
  const dispatch = createDispatch(config, {
    pages: [web, oauth],
    isPage,
    rest: {
      fetch: async (request, ctx) => (await rest.fetch(request, ctx)) as Response,
      template: (method, path) => routeTemplate(rest, method, path),
    },
    graphql: createGraphQLServer(config, logger),
    mcp: createMcpEndpoint(config, logger),
  });

  /** The request as the steps see it: its credentials read once, and what authentication needs. */
  function begin(request: Request, info: RequestInfo, scope: RequestScope): Exchange {
    const ip = clientIp(request, info.remoteAddress, config.trustProxy);
    const credentials = presentedCredentials(config, request.headers);
    // An access token is verified once per request: for its rate-limit bucket, then to authenticate.
    const verified = new Map<string, ReturnType<typeof verifyAccessToken>>();
    // A token's SHA-256 is made once per request: for its rate-limit bucket, then to look the PAT up.
    let hashed: { token: string; hash: Uint8Array<ArrayBuffer> } | undefined;
    // Started before the rate-limit admission: over Redis the two commands share one round trip.
    const patEpoch = patCache && typeof credentials.token === 'string' && credentials.token.startsWith(PAT_PREFIX) ? credentialEpoch.read() : null;
    const ctx: Context = { principal: anonymous, prisma: db.prisma, config, clientIp: ip, limiter, rateLimits: [], credentialEpoch, liveUpdates, mailer, scope };
    // The access log and metrics read the principal from here once dispatch has set it.
    scope.context = ctx;
    return {
      request,
      scope,
      url: requestUrl(request),
      ip,
      credentials,
      auth: {
        db: db.prisma,
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
      ctx,
      decisions: [],
    };
  }

  /**
   * The whole service, as named steps: CORS preflights (answered before anything else, so
   * they cost no credential check, rate-limit slot or database query), https policy, credentials
   * (read in `begin`, checked by dispatch), the global rate limit, CSRF, dispatch to the
   * surface, and the response headers (CORS among them).
   */
  async function fetch(request: Request, info: RequestInfo, scope: RequestScope): Promise<Response> {
    const path = requestUrl(request).pathname;
    const preflight = cors.preflight(request, path);
    if (preflight) return preflight;
    const exchange = begin(request, info, scope);
    let response: Response;
    try {
      response =
        httpsRedirect(request, config.baseUrl, config.trustProxy) ??
        (await rateLimit(limiter, exchange, async () => csrf(exchange, config.baseUrl, isPage) ?? (await dispatch(exchange))));
    } catch (error) {
      requestLogger(logger, scope).error({ err: error }, 'unexpected error');
      response = problemResponse(problems.internal());
    }
    return cors.decorate(request, path, responseHeaders(config, exchange, response));
  }

  const deliveryWorker = config.webhooks.worker ? new DeliveryWorker(db.prisma, config.webhooks, logger) : null;
  deliveryWorker?.start();
  if (config.production && !config.webhooks.secretKey) {
    logger.warn('WEBHOOKS_SECRET_KEY is not set: webhook signing secrets are sealed with a development key');
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
    setupUrl: firstRun ? `${config.baseUrl}/setup?token=${firstRun.token}` : null,
    deliveryWorker,
    async close() {
      await deliveryWorker?.stop();
      ops.close();
      await liveUpdates.close();
      mailer?.close();
      await limiter.close();
      if (!options.db) await db.close();
    },
  };
}
