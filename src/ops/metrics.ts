import { createHash, timingSafeEqual } from 'node:crypto';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { Response } from '../http/fetch-api.js';

/** Methods kept as a label value; anything else a client invents is counted as OTHER (bounded labels). */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The service's Prometheus metrics, in a registry of its own (not prom-client's global one):
 * each app instance has its own, so tests that build many apps in one process do not collide.
 */
export class Metrics {
  readonly registry = new Registry();

  private readonly requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer a request (until the response headers are ready), by route template, method and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  private readonly inFlight = new Gauge({
    name: 'http_requests_in_flight',
    help: 'Requests being answered now.',
    registers: [this.registry],
  });

  private readonly rateLimitRefusals = new Counter({
    name: 'rate_limit_refusals_total',
    help: 'Requests refused with 429, by the rate-limit policy that refused them.',
    labelNames: ['policy'] as const,
    registers: [this.registry],
  });

  private readonly authFailures = new Counter({
    name: 'auth_failures_total',
    help: 'Requests whose credential was missing or refused, by reason (the problem code the client got).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  private readonly queryDuration = new Histogram({
    name: 'db_query_duration_seconds',
    help: 'Time the database driver took for one SQL statement.',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  requestStarted(): void {
    this.inFlight.inc();
  }

  requestFinished(method: string, route: string, status: number, seconds: number): void {
    this.inFlight.dec();
    this.requestDuration.observe(
      { method: KNOWN_METHODS.has(method) ? method : 'OTHER', route, status: String(status) },
      seconds,
    );
  }

  rateLimitRefused(policy: string): void {
    this.rateLimitRefusals.inc({ policy });
  }

  authFailed(reason: string): void {
    this.authFailures.inc({ reason });
  }

  /** A listener for the database's query timer (src/db/query-counter.ts). */
  readonly queryObserved = (seconds: number): void => this.queryDuration.observe(seconds);

  /** The text exposition format, for GET /metrics. */
  async response(): Promise<Response> {
    return new Response(await this.registry.metrics(), {
      headers: { 'content-type': this.registry.contentType, 'cache-control': 'no-store' },
    });
  }
}

/**
 * Whether a request carries `Authorization: Bearer <METRICS_TOKEN>`. Both sides are hashed
 * before the constant-time comparison, so neither the token's content nor its length leaks
 * through timing (timingSafeEqual needs equal lengths).
 */
export function hasMetricsToken(headers: Headers, token: string): boolean {
  const match = /^Bearer[ ]+(\S+)$/i.exec(headers.get('authorization') ?? '');
  if (!match) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(match[1]!), digest(token));
}
