import { FirstRunLink } from './auth/first-run.js';
import { localEpoch, RedisEpoch, type CredentialEpoch } from './auth/credential-epoch.js';
import { createOAuthRouter } from './auth/oauth/router.js';
import { SigningKeys } from './auth/oauth/signing-keys.js';
import { PatCache } from './auth/pat-cache.js';
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/client.js';
import { migrateDatabase } from './db/migrations.js';
import { VacuumSchedule } from './db/vacuum.js';
import { serveGraphiQLAsset } from './graphql/graphiql.js';
import { createGraphQLServer } from './graphql/yoga.js';
import { httpsRedirect } from './http/https-policy.js';
import type { RequestInfo } from './http/request-info.js';
import { requestUrl } from './http/request-url.js';
import { asPublic, surfaceOf } from './http/surfaces.js';
import { createLimiterStore, RateLimiter } from './limits/limiter.js';
import { RedisStore } from './limits/redis-store.js';
import { LiveUpdates } from './live/live-updates.js';
import type { LimiterStore } from './limits/store.js';
import { createLogger, type Logger } from './logger.js';
import { createMailer } from './mail/mailer.js';
import { createMcpEndpoint } from './mcp/server.js';
import { Ops } from './ops/observe.js';
import { requestLogger, type RequestScope } from './ops/request-scope.js';
import { inSpan, stopTracing, traceStep, tracingOn } from './ops/tracing.js';
import { routeTemplate } from './ops/route-template.js';
import { body } from './pipeline/body.js';
import { createCors } from './pipeline/cors.js';
import { credentials } from './pipeline/credentials.js';
import { csrf } from './pipeline/csrf.js';
import { hostCheck } from './pipeline/host-check.js';
import { createDispatch } from './pipeline/dispatch.js';
import { idempotency } from './pipeline/idempotency.js';
import { pipeline, type Step } from './pipeline/pipeline.js';
import { rateLimit } from './pipeline/rate-limit.js';
import { beginRequest, type Services } from './pipeline/request-context.js';
import { responseHeaders } from './pipeline/response-headers.js';
import { routeLabel } from './pipeline/route-label.js';
import { problemResponse, problems } from './http/problem.js';
import { createRestRouter, isPublicPath } from './rest/router.js';
import { ROUTES } from './rest/routes/index.js';
import { serveApiDocs } from './web/api-docs.js';
import { serveChartAssets } from './web/dashboard.js';
import { createWebRouter } from './web/router.js';
import { DeliveryWorker } from './webhooks/worker.js';

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
  /** The embedded database's VACUUM schedule (src/db/vacuum.ts); null on PostgreSQL, with VACUUM_INTERVAL_MINUTES=0, or on a database passed in. */
  vacuum: VacuumSchedule | null;
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
    const applied = await migrateDatabase(db, config.migrationDatabaseUrl);
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
            logger.error(
              { err: error },
              'could not announce a credential change through Redis: other instances may accept the changed key for up to 60 s (the cache TTL)',
            ),
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
  // The consent page describes a token's powers with the REST route declarations' areas and summaries.
  const oauth = createOAuthRouter(logger, keys, config, ROUTES);
  const rest = createRestRouter(logger);
  const services: Services = {
    config,
    prisma: db.prisma,
    keys,
    limiter,
    credentialEpoch,
    patCache,
    liveUpdates,
    mailer,
  };
  const cors = createCors(config.corsOrigins);

  /** An unexpected error below is logged with the request's id and answered 500; the headers above still apply. */
  const unexpectedErrors: Step = async (context, next) => {
    try {
      return await next();
    } catch (error) {
      requestLogger(logger, context.scope).error({ err: error }, 'unexpected error');
      return problemResponse(problems.internal());
    }
  };
  const httpsPolicy: Step = (context, next) => {
    const redirect = httpsRedirect(context.request, config.baseUrl, config.trustProxy);
    return redirect ? Promise.resolve(redirect) : next();
  };

  /**
   * The whole service, as named steps in order, each reading the rules of the request's surface
   * (src/http/surfaces.ts). The first three wrap the answer of the others: CORS headers, the
   * response headers (rate-limit fields, the refreshed session cookie), and the 500 of an
   * unexpected error.
   */
  const steps: Record<string, Step> = {
    cors: cors.step,
    'response-headers': responseHeaders,
    'unexpected-errors': unexpectedErrors,
    'https-policy': httpsPolicy,
    'host-check': hostCheck(config),
    'rate-limit': rateLimit(limiter),
    csrf: csrf(config.baseUrl),
    'route-label': routeLabel((method, path) => routeTemplate(rest, method, path)),
    credentials: credentials(config),
    body,
    idempotency: idempotency(config),
  };
  const dispatch = createDispatch({
    publicDocuments: (request, path) =>
      serveApiDocs(request, path, config) ?? serveGraphiQLAsset(request, path) ?? serveChartAssets(request, path),
    pages: web,
    oauth,
    rest,
    graphql: createGraphQLServer(config, logger),
    mcp: createMcpEndpoint(config, logger),
  });
  // With tracing on, each step is a span of its own, and the dispatch one named for its surface.
  const serve = tracingOn()
    ? pipeline(
        Object.entries(steps).map(([name, step]) => traceStep(name, step)),
        (context) => inSpan(`dispatch ${context.surface.name}`, {}, () => dispatch(context)),
      )
    : pipeline(Object.values(steps), dispatch);

  async function fetch(request: Request, info: RequestInfo, scope: RequestScope): Promise<Response> {
    const path = requestUrl(request).pathname;
    // REST routes declared without an operation (the OpenAPI document) are public within the API.
    const surface = isPublicPath(path) ? asPublic(surfaceOf(path)) : surfaceOf(path);
    // A CORS preflight is answered before anything else: it costs no credential check, rate-limit slot or database query.
    return cors.preflight(request, surface) ?? serve(beginRequest(services, request, info, scope, surface));
  }

  // PGlite has no autovacuum: the app that opened the embedded database vacuums it.
  const vacuum =
    db.kind === 'pglite' && !options.db && config.vacuumIntervalMs > 0
      ? new VacuumSchedule(db.prisma, config.vacuumIntervalMs, logger)
      : null;
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
    vacuum,
    async close() {
      await deliveryWorker?.stop();
      await vacuum?.stop();
      ops.close();
      await liveUpdates.close();
      mailer?.close();
      await limiter.close();
      if (!options.db) await db.close();
      await stopTracing();
    },
  };
}
