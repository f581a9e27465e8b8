import type { Logger } from '../logger.js';
import { requestLogger, type RequestScope } from './request-scope.js';
import { withTimeout } from '../timeout.js';
import type { Response } from '../http/fetch-api.js';
import { json } from '../http/json.js';
import { problemResponse } from '../http/problem.js';
import { AppError } from '../schema/core/errors.js';
import { PATHS } from '../http/surfaces.js';

/** One dependency readiness depends on: resolves when it is usable, rejects (with the reason) when not. */
export interface ReadinessCheck {
  name: string;
  run(): Promise<void>;
  /** A check that cannot pass without this one (migrations need the database): skipped when it fails. */
  needs?: string;
}

/** Longest a readiness check may take before it counts as failed (a hung database must not hang the probe). */
const CHECK_TIMEOUT_MS = 2_000;
/** Probes within this span share one round of checks, so a flood of /readyz costs at most one query a second. */
const RESULT_TTL_MS = 1_000;

type Outcome =
  | { ok: true; checks: Record<string, 'ok'> }
  | { ok: false; failing: string[]; checks: Record<string, string> };

/** Probes' answers are never cached: each says how the process is now. */
const probeAnswer = (status: number, body: unknown) => json(body, { status, headers: { 'cache-control': 'no-store' } });

/**
 * Liveness and readiness, answered before authentication and rate limiting.
 * - `GET /healthz`: the process runs and its event loop turns; no I/O (a restart would not fix
 *   a database outage, so liveness must not depend on one).
 * - `GET /readyz`: every check passes (database answers, migrations applied, Redis answers when
 *   configured); else 503 naming the failing checks. 503 from the moment shutdown starts, so a
 *   load balancer stops sending new requests while those in flight finish.
 * Check failures are logged when readiness changes, not on every probe; the body names the
 * failing check but not the error (it is public, and errors can name hosts).
 */
export class Health {
  private shuttingDown = false;
  private last: { at: number; outcome: Promise<Outcome> } | null = null;
  private wasReady: boolean | null = null;

  constructor(
    private readonly checks: ReadinessCheck[],
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Readiness goes 503 for good: the process is shutting down. */
  startShutdown(): void {
    this.shuttingDown = true;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  live(): Response {
    return probeAnswer(200, { status: 'ok' });
  }

  /** `scope`: the probe's request, whose id is on the line when this probe finds readiness changed. */
  async ready(scope?: RequestScope): Promise<Response> {
    if (this.shuttingDown) return probeAnswer(503, { status: 'shutting_down' });
    const outcome = await this.outcome(scope);
    if (this.shuttingDown) return probeAnswer(503, { status: 'shutting_down' });
    return outcome.ok
      ? probeAnswer(200, { status: 'ready', checks: outcome.checks })
      : probeAnswer(503, { status: 'not_ready', failing: outcome.failing, checks: outcome.checks });
  }

  private outcome(scope: RequestScope | undefined): Promise<Outcome> {
    const now = this.now();
    if (!this.last || now - this.last.at >= RESULT_TTL_MS) this.last = { at: now, outcome: this.runChecks(scope) };
    return this.last.outcome;
  }

  private async runChecks(scope: RequestScope | undefined): Promise<Outcome> {
    const checks: Record<string, string> = {};
    const failing: string[] = [];
    const errors: Record<string, string> = {};
    for (const check of this.checks) {
      if (check.needs && failing.includes(check.needs)) {
        checks[check.name] = 'skipped';
        continue;
      }
      try {
        await withTimeout(check.run(), CHECK_TIMEOUT_MS, `no answer within ${CHECK_TIMEOUT_MS} ms`);
        checks[check.name] = 'ok';
      } catch (error) {
        checks[check.name] = 'failed';
        failing.push(check.name);
        errors[check.name] = error instanceof Error ? error.message : String(error);
      }
    }
    const ready = failing.length === 0;
    if (ready !== this.wasReady) {
      if (ready) requestLogger(this.logger, scope).info({ checks }, 'ready');
      else requestLogger(this.logger, scope).warn({ failing, errors }, 'not ready');
      this.wasReady = ready;
    }
    return ready ? { ok: true, checks: checks as Record<string, 'ok'> } : { ok: false, failing, checks };
  }
}

/**
 * The answer while the process starts (the port is bound before the database is opened and
 * migrated, so a port in use fails the start before anything changes): alive, not ready.
 */
export function startingResponse(request: Request): Response {
  const path = new URL(request.url).pathname;
  if (path === PATHS.healthz) return probeAnswer(200, { status: 'ok' });
  if (path === PATHS.readyz) return probeAnswer(503, { status: 'starting' });
  return problemResponse(new AppError('The service is starting. Retry in a moment.', 'UNAVAILABLE'));
}
