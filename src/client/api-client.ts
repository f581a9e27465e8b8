/**
 * A client for this service that behaves as the spec's "recommended client behaviour" asks:
 * - slow down when X-RateLimit-Remaining falls below 10% of X-RateLimit-Limit, spreading the
 *   remaining requests over the time until the bucket refills;
 * - on a 429, wait X-RateLimit-Reset (or Retry-After) seconds and retry once;
 * - after two consecutive 429s, back off exponentially (1, 2, 4 ... seconds, at least the
 *   server's reset, capped at 30 s), and give up after 6 tries;
 * - on a 401, stop: the credential is revoked or expired and retrying cannot help;
 * - every POST carries an `Idempotency-Key` (a new UUID per call, the same on each of its
 *   retries), so a request whose answer was lost (the connection broke) is retried, with the
 *   same back-off, without writing twice: the server replays the first answer. A 409
 *   `idempotency_key_in_use` (the first try still running) is waited out the same way.
 */

/** The service refused a call: its status and body (a problem, whose `detail` the message quotes). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    message = `HTTP ${status}: ${typeof body === 'object' && body && 'detail' in body ? String(body.detail) : JSON.stringify(body)}`,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Still refused with 429 after the most tries the client makes. */
export class GaveUpError extends ApiError {
  constructor(readonly tries: number) {
    super(429, null, `Still rate limited after ${tries} tries; giving up.`);
  }
}

export interface ApiClientOptions {
  baseUrl: string;
  token: string;
  fetch?: typeof fetch;
  /** Waits; tests pass one that advances a fake clock. */
  sleep?: (ms: number) => Promise<void>;
}

const MAX_TRIES = 6;
const MAX_BACKOFF_MS = 30_000;
const SLOW_DOWN_BELOW = 0.1;

/** A 409 that only says the first try with this Idempotency-Key is still running (its body is read: clone). */
async function isKeyInUse(response: Response): Promise<boolean> {
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { code?: unknown } | null;
  return body?.code === 'idempotency_key_in_use';
}

export class ApiClient {
  private readonly fetchImpl: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  /** What the last response said about our bucket. */
  private budget: { limit: number; remaining: number; resetSeconds: number } | null = null;
  /** Total time spent waiting, for reports and tests. */
  waitedMs = 0;

  constructor(private readonly options: ApiClientOptions) {
    this.fetchImpl = options.fetch ?? fetch;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  private async wait(ms: number): Promise<void> {
    if (ms <= 0) return;
    this.waitedMs += ms;
    await this.sleep(ms);
  }

  /** Pacing before a request: below 10% remaining, spread what is left over the reset time. */
  private paceMs(): number {
    const b = this.budget;
    if (!b || b.remaining >= b.limit * SLOW_DOWN_BELOW) return 0;
    return Math.ceil((b.resetSeconds * 1000) / Math.max(b.remaining, 1));
  }

  private remember(response: Response): void {
    const limit = Number(response.headers.get('x-ratelimit-limit'));
    const remaining = Number(response.headers.get('x-ratelimit-remaining'));
    const resetSeconds = Number(response.headers.get('x-ratelimit-reset'));
    if (Number.isFinite(limit) && limit > 0 && Number.isFinite(remaining))
      this.budget = { limit, remaining, resetSeconds: Number.isFinite(resetSeconds) ? resetSeconds : 0 };
  }

  /**
   * Sends a request with the rate-limit and retry behaviour above; returns the first response
   * that is not a 429 (nor a 409 `idempotency_key_in_use`). `idempotencyKey` defaults to a new
   * UUID for a POST; pass one to make retries across calls (or processes) the same request.
   */
  async request(
    method: string,
    path: string,
    body?: unknown,
    options: { idempotencyKey?: string } = {},
  ): Promise<Response> {
    const key =
      options.idempotencyKey ?? (method.toUpperCase() === 'POST' ? globalThis.crypto.randomUUID() : undefined);
    let consecutive429 = 0;
    for (let attempt = 1; attempt <= MAX_TRIES; attempt++) {
      await this.wait(this.paceMs());
      let response: Response;
      try {
        response = await this.fetchImpl(`${this.options.baseUrl}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${this.options.token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(key === undefined ? {} : { 'idempotency-key': `"${key}"` }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (error) {
        // No answer (the connection broke): every method here is safe to send again, a POST
        // because its Idempotency-Key makes the server replay the first answer if there was one.
        if (attempt === MAX_TRIES) throw error;
        await this.wait(Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (attempt - 1)));
        continue;
      }
      this.remember(response);
      if (response.status === 409 && key !== undefined && (await isKeyInUse(response))) {
        if (attempt === MAX_TRIES) break;
        await this.wait(1000 * Number(response.headers.get('retry-after') ?? 1));
        continue;
      }
      if (response.status !== 429) return response;
      consecutive429++;
      await response.body?.cancel();
      if (attempt === MAX_TRIES) break;
      const resetMs =
        1000 * Number(response.headers.get('x-ratelimit-reset') ?? response.headers.get('retry-after') ?? 1);
      // The first refusal waits exactly what the server says; later ones back off, capped.
      await this.wait(
        consecutive429 >= 2 ? Math.min(MAX_BACKOFF_MS, Math.max(resetMs, 1000 * 2 ** (consecutive429 - 2))) : resetMs,
      );
      // That wait was for this bucket; pacing on the refused response's numbers would wait twice.
      this.budget = null;
    }
    throw new GaveUpError(MAX_TRIES);
  }

  /** A JSON call: the parsed body, or ApiError (401 and other failures are not retried). */
  async json<T>(
    method: string,
    path: string,
    body?: unknown,
    options: { idempotencyKey?: string } = {},
  ): Promise<{ body: T; response: Response }> {
    const response = await this.request(method, path, body, options);
    const parsed = response.status === 204 ? null : await response.json().catch(() => null);
    if (!response.ok) throw new ApiError(response.status, parsed);
    return { body: parsed as T, response };
  }

  /** Every issue of a project (or of the org), following the Link header page by page. */
  async *issues(projectId?: string, pageSize = 100): AsyncGenerator<Record<string, unknown>> {
    const query = new URLSearchParams({ limit: String(pageSize), ...(projectId ? { project_id: projectId } : {}) });
    let path: string | null = `/api/issues?${query}`;
    while (path) {
      const page: { body: Record<string, unknown>[]; response: Response } = await this.json('GET', path);
      yield* page.body;
      const next: string | undefined = /<([^>]+)>;\s*rel="next"/.exec(page.response.headers.get('link') ?? '')?.[1];
      path = next ? new URL(next).pathname + new URL(next).search : null;
    }
  }
}
