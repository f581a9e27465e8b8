import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import { directSql } from '../db/direct-sql.js';
import { appliedMigrations, committedMigrationNames } from '../db/migrations.js';
import { builder, rowsOf } from '../db/sql-builder.js';
import { clientIp } from '../http/client-ip.js';
import { requestIdFor } from '../http/request-id.js';
import type { RateLimiter } from '../limits/limiter.js';
import { RedisStore } from '../limits/redis-store.js';
import type { Logger } from '../logger.js';
import { problemResponse, problems, withRequestId } from '../http/problem.js';
import { AppError } from '../schema/core/errors.js';
import { logAccess } from './access-log.js';
import { Health, type ReadinessCheck } from './health.js';
import { LoadShedder } from './load-shedding.js';
import { hasMetricsToken, Metrics } from './metrics.js';
import { newScope, reportRoute, requestLogger, type RequestScope } from './request-scope.js';
import { traceRequest, tracingOn, type RequestTrace } from './tracing.js';
import type { RequestInfo } from '../http/request-info.js';
import { requestUrl } from '../http/request-url.js';
import { PATHS } from '../http/surfaces.js';

export type FetchHandler = (request: Request, info?: RequestInfo) => Promise<Response>;
/** The app inside the ops layer: also given the request's scope (src/ops/request-scope.ts). */
export type ScopedHandler = (request: Request, info: RequestInfo, scope: RequestScope) => Promise<Response>;

/** The route label of a request no router claimed (refused before routing, e.g. by the global rate limit). */
export const UNMATCHED_ROUTE = 'unmatched';

export interface OpsDeps {
  config: Config;
  logger: Logger;
  db: Database;
  limiter: RateLimiter;
}

/** The database answers a statement. */
const answers = builder.selectNoFrom((eb) => eb.lit(1).as('one'));

function readinessChecks(db: Database, limiter: RateLimiter, committed: string[]): ReadinessCheck[] {
  const checks: ReadinessCheck[] = [
    { name: 'database', run: async () => void (await rowsOf(directSql(db.prisma), answers)) },
    {
      name: 'migrations',
      needs: 'database',
      run: async () => {
        const rows = await rowsOf(directSql(db.prisma), appliedMigrations);
        const applied = new Set(rows.map((r) => r.migration_name));
        const missing = committed.filter((name) => !applied.has(name));
        if (missing.length) throw new Error(`not applied: ${missing.join(', ')}`);
      },
    },
  ];
  const store = limiter.store;
  if (store instanceof RedisStore) checks.push({ name: 'redis', run: async () => void (await store.redis.ping()) });
  return checks;
}

/**
 * The operations layer around the service's fetch handler: health and readiness, metrics,
 * request ids and the access log. `wrap(fetch)` answers /healthz, /readyz and (with
 * METRICS_TOKEN) /metrics itself, before authentication and rate limiting, and hands every
 * other request to `fetch` with a new request scope (src/ops/request-scope.ts), unless the event
 * loop lags (src/ops/load-shedding.ts): the operations endpoints answer then too, others get 503.
 */
export class Ops {
  readonly health: Health;
  /** Null unless metrics are served (METRICS_PORT or METRICS_TOKEN): no cost when nobody reads them. */
  readonly metrics: Metrics | null;
  private readonly logger: Logger;
  private readonly config: Config;
  private readonly db: Database;
  /** Null when LOAD_SHED_LAG_MS is 0. */
  private readonly shedder: LoadShedder | null;
  /** Whether the last request was shed: the log says when shedding starts and stops, not per request. */
  private shedding = false;

  private constructor(deps: OpsDeps, committed: string[]) {
    this.config = deps.config;
    this.logger = deps.logger;
    this.db = deps.db;
    this.health = new Health(readinessChecks(deps.db, deps.limiter, committed), deps.logger);
    this.shedder = deps.config.loadShedLagMs > 0 ? new LoadShedder(deps.config.loadShedLagMs) : null;
    this.metrics =
      deps.config.metricsPort !== undefined || deps.config.metricsToken !== undefined ? new Metrics() : null;
    if (this.metrics) deps.db.queries.timers?.add(this.metrics.queryObserved);
  }

  static async create(deps: OpsDeps): Promise<Ops> {
    return new Ops(deps, await committedMigrationNames());
  }

  wrap(handler: ScopedHandler): FetchHandler {
    return (request, info = {}) =>
      tracingOn()
        ? traceRequest(request, this.config.trustProxy, (trace) =>
            this.serve(newScope(requestIdFor(request.headers), trace!.traceId), request, info, handler, trace),
          )
        : this.serve(newScope(requestIdFor(request.headers)), request, info, handler, null);
  }

  /** GET /metrics on the metrics port (METRICS_PORT): the token, when set, is required there too. */
  async metricsEndpoint(request: Request): Promise<Response> {
    const path = requestUrl(request).pathname;
    if (!this.metrics || path !== PATHS.metrics) return problemResponse(problems.notFound());
    return this.metricsAnswer(request);
  }

  close(): void {
    this.shedder?.close();
    if (this.metrics) this.db.queries.timers?.delete(this.metrics.queryObserved);
  }

  private async serve(
    scope: RequestScope,
    request: Request,
    info: RequestInfo,
    handler: ScopedHandler,
    trace: RequestTrace | null,
  ): Promise<Response> {
    const started = performance.now();
    this.metrics?.requestStarted();
    let response: Response;
    try {
      const own = this.answerOwn(request, scope);
      response = (own && (await own)) ?? this.shed() ?? (await handler(request, info, scope));
    } catch (error) {
      requestLogger(this.logger, scope).error({ err: error }, 'unexpected error');
      response = problemResponse(problems.internal());
    }
    response = await withRequestId(response, scope);
    response.headers.set('x-request-id', scope.id);
    const seconds = (performance.now() - started) / 1000;
    // itty-router records the pattern it matched on the request it dispatched (see request-scope.ts).
    const route = scope.route ?? (request as { route?: unknown }).route;
    const template = typeof route === 'string' ? route : UNMATCHED_ROUTE;
    trace?.finish(template, response.status);
    if (this.metrics) {
      this.metrics.requestFinished(request.method, template, response.status, seconds);
      for (const policy of scope.refusedPolicies) this.metrics.rateLimitRefused(policy);
      if (scope.authFailure) this.metrics.authFailed(scope.authFailure);
    }
    logAccess(this.logger, {
      requestId: scope.id,
      traceId: scope.traceId,
      method: request.method,
      route: template,
      status: response.status,
      durationMs: seconds * 1000,
      principal: scope.context?.principal,
      clientIp: clientIp(request, info.remoteAddress, this.config.trustProxy),
    });
    return response;
  }

  /** The 503 of a request that arrives while the event loop lags, else null. */
  private shed(): Response | null {
    const refusal = this.shedder?.refusal() ?? null;
    if ((refusal !== null) !== this.shedding) {
      this.shedding = refusal !== null;
      if (refusal)
        this.logger.warn(
          { lagMs: Math.round(refusal.lagMs), maxLagMs: this.config.loadShedLagMs },
          'event loop lagging: new requests get 503 overloaded',
        );
      else this.logger.info('event loop caught up: serving new requests again');
    }
    return refusal?.response ?? null;
  }

  /** The operations endpoints' answer; null (not a promise, which every other request would wait a tick for) for everything else. */
  private answerOwn(request: Request, scope: RequestScope): Promise<Response> | null {
    if (request.method !== 'GET' && request.method !== 'HEAD') return null;
    const path = requestUrl(request).pathname;
    if (path === PATHS.healthz) {
      reportRoute(scope, path);
      return Promise.resolve(this.health.live());
    }
    if (path === PATHS.readyz) {
      reportRoute(scope, path);
      return this.health.ready(scope);
    }
    // Without METRICS_TOKEN, /metrics is not served on the main port at all (a 404 like any unknown path).
    if (path === PATHS.metrics && this.config.metricsToken !== undefined) {
      reportRoute(scope, path);
      return this.metricsAnswer(request);
    }
    return null;
  }

  private async metricsAnswer(request: Request): Promise<Response> {
    const token = this.config.metricsToken;
    if (token !== undefined && !hasMetricsToken(request.headers, token)) {
      return problemResponse(
        new AppError('Send Authorization: Bearer <METRICS_TOKEN>.', 'UNAUTHENTICATED', {
          headers: { 'www-authenticate': 'Bearer realm="metrics"' },
        }),
      );
    }
    return this.metrics!.response();
  }
}
