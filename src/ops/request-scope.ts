/**
 * What the operations layer learns about the request being served, collected while it runs.
 *
 * The ops wrapper (src/ops/observe.ts) opens a scope around each request; code deeper in the
 * pipeline reports facts into it with the small functions below, without a parameter threaded
 * through every call, and the wrapper turns them into the access-log line and the metrics when
 * the response is ready. The logger's mixin (src/logger.ts) reads the request id from here, so
 * every log line written while serving a request carries it, whichever module writes it.
 *
 * Contract for dispatchers (the REST, page and OAuth routers, GraphQL):
 * - the route template: itty-router records the pattern it matched on the request object
 *   (`request.route`, e.g. `/api/issues/:id`), which the wrapper reads; a surface that is not
 *   routed by itty-router calls `reportRoute('/api/graphql')`. Never report a raw path: the
 *   template is a metrics label and must come from a fixed set.
 * - `bindContext(ctx)` once the per-request Context exists: the access log reads the principal
 *   from it after the response (principal kind, user and organization).
 * - `reportAuthFailure(code)` where a presented credential is refused (src/auth/auth-error.ts codes).
 * - the rate limiter reports refusals itself (src/limits/limiter.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Principal } from '../auth/principal.js';

export interface RequestScope {
  /** X-Request-Id: the client's (validated) or ours. */
  readonly id: string;
  route?: string;
  context?: { principal: Principal };
  authFailure?: string;
  /** Names of the rate-limit policies that refused this request (usually none). */
  refusedPolicies: string[];
}

const storage = new AsyncLocalStorage<RequestScope>();

export function runInScope<T>(scope: RequestScope, work: () => T): T {
  return storage.run(scope, work);
}

export function currentScope(): RequestScope | undefined {
  return storage.getStore();
}

/** The request id of the request being served, if any. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.id;
}

/** The route template that answered (a pattern such as `/api/issues/:id`, never the raw path). */
export function reportRoute(template: string): void {
  const scope = storage.getStore();
  if (scope) scope.route = template;
}

export function bindContext(context: { principal: Principal }): void {
  const scope = storage.getStore();
  if (scope) scope.context = context;
}

/** A presented credential was refused; `reason` is the stable code the client sees. */
export function reportAuthFailure(reason: string): void {
  const scope = storage.getStore();
  if (scope) scope.authFailure = reason;
}

export function reportRateLimitRefusal(policy: string): void {
  storage.getStore()?.refusedPolicies.push(policy);
}
