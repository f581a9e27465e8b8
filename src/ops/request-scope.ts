/**
 * What the operations layer learns about the request being served, collected while it runs.
 *
 * The ops wrapper (src/ops/observe.ts) makes a scope for each request and hands it to the app,
 * which keeps it on the request context and the operation Context; code deeper in the pipeline reports
 * facts into it, and the wrapper turns them into the access-log line and the metrics when the
 * response is ready.
 *
 * The scope travels as an argument, not in an AsyncLocalStorage: on Node 22 a storage turns on
 * promise hooks for every promise of the process, which cost a quarter of the CPU of a
 * `GET /api/me` in process (bench/SUMMARY.md; Node 24 keeps it in an async context frame instead).
 * Tracing, when on, uses one anyway (src/ops/tracing.ts). So a log line carries the request's
 * id when it is written through `requestLogger(logger, scope)`: every handler that logs about
 * a request does.
 *
 * Contract for dispatchers (the REST, page and OAuth routers, GraphQL):
 * - the route template: itty-router records the pattern it matched on the request object
 *   (`request.route`, e.g. `/api/issues/:id`), which the wrapper reads; a surface that is not
 *   routed by itty-router (GraphQL, MCP) is reported by src/pipeline/route-label.ts. Never report a raw path:
 *   the template is a metrics label and must come from a fixed set.
 * - `scope.context`: the request context (src/pipeline/request-context.ts), set when it is made:
 *   the access log reads the principal from it after the response (principal kind, user and
 *   organization).
 * - `reportAuthFailure(scope, code)` where a presented credential is refused (src/auth/auth-error.ts codes).
 * - `reportRateLimitRefusals(scope, decisions)` where a rate limit refused (src/limits/limiter.ts).
 */
import type { Principal } from '../auth/principal.js';
import type { PolicyDecision } from '../limits/headers.js';
import type { Logger } from '../logger.js';

export interface RequestScope {
  /** X-Request-Id: the client's (validated) or ours. */
  readonly id: string;
  /** The request's trace id when tracing is on (src/ops/tracing.ts): beside `request_id` in logs and problems. */
  readonly traceId?: string;
  route?: string;
  context?: { principal: Principal };
  authFailure?: string;
  /** Names of the rate-limit policies that refused this request (usually none). */
  refusedPolicies: string[];
}

export function newScope(id: string, traceId?: string): RequestScope {
  return traceId === undefined ? { id, refusedPolicies: [] } : { id, traceId, refusedPolicies: [] };
}

/** The ids a problem body or an MCP error names the request by: `request_id`, and `trace_id` when traced. */
export function requestIds(scope: RequestScope): { request_id: string; trace_id?: string } {
  return scope.traceId === undefined ? { request_id: scope.id } : { request_id: scope.id, trace_id: scope.traceId };
}

/** The route template that answered (a pattern such as `/api/issues/:id`, never the raw path). */
export function reportRoute(scope: RequestScope | undefined, template: string): void {
  if (scope) scope.route = template;
}

/** A presented credential was refused; `reason` is the stable code the client sees. */
export function reportAuthFailure(scope: RequestScope | undefined, reason: string): void {
  if (scope) scope.authFailure = reason;
}

/** The policies of a limiter's answer that refused (in a refused admission, those with nothing left), for the metrics. */
export function reportRateLimitRefusals(scope: RequestScope | undefined, decisions: PolicyDecision[]): void {
  for (const { policy, decision } of decisions) {
    if (!decision.allowed && decision.remaining === 0) scope?.refusedPolicies.push(policy.name);
  }
}

/**
 * `logger`, with the request's id on every line (`request_id`, and `trace_id`); `logger` itself outside a
 * request. Made where a line is written (errors, warnings, the access log), never per request.
 */
export function requestLogger(logger: Logger, scope: RequestScope | undefined): Logger {
  return scope ? logger.child(requestIds(scope)) : logger;
}
