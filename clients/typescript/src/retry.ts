/**
 * The spec's "recommended client behaviour" as a fetch function the generated client sends every
 * request through (one per client instance, so each instance keeps its own rate-limit budget):
 *
 * | answer                                | what the client does                                           |
 * |---------------------------------------|----------------------------------------------------------------|
 * | remaining < 10% of the limit          | spreads the rest over the time to reset before the next call   |
 * | 429 (first in a row)                  | waits X-RateLimit-Reset (or Retry-After, the longer) and retries once |
 * | 429 again                             | doubles that wait each time (capped at 30 s, never under the server's) |
 * | 6th try refused                       | gives up: the 429 is thrown as an ApiProblem                   |
 * | 503 with Retry-After (overloaded)     | as a 429                                                       |
 * | 409 idempotency_key_in_use            | waits Retry-After: the first try is still running              |
 * | connection lost, no answer            | retries safe methods and keyed POSTs: 1, 2, 4, 8, 16 s         |
 * | 401                                   | stops at once (an OAuth session refreshes its token once first) |
 *
 * Every POST carries an `Idempotency-Key` (the caller's, else a new UUID per call), the same on each
 * retry, so a POST whose answer was lost is retried without writing twice: the service replays the
 * first answer.
 */

/** Why the client waits before a request. */
export type WaitReason = 'slow_down' | 'rate_limited' | 'backoff' | 'key_in_use' | 'connection_lost';

export interface WaitEvent {
  reason: WaitReason;
  /** How long, in milliseconds. */
  ms: number;
  /** The try that comes after the wait (2 to 6), or the coming first try for `slow_down`. */
  attempt: number;
  method: string;
  url: string;
  /** The answer that caused the wait (none for `slow_down` and `connection_lost`). */
  status?: number;
}

/** Where a client gets its bearer token: a personal access token as is, or a session that can refresh. */
export interface TokenSource {
  /** The token to send now (an OAuth session refreshes a token that has expired first). */
  token(): string | Promise<string>;
  /** Called once on a 401: get a new token; the request is then tried again with it. */
  refresh?(): Promise<void>;
}

export interface RetryOptions {
  credentials: TokenSource;
  /** The fetch that sends (default: the global one). */
  fetch?: typeof fetch;
  /** How to wait (default: a timer). Tests pass one that advances a fake clock. */
  sleep?: (ms: number) => Promise<void>;
  /** Called before every wait, with its reason and length. */
  onWait?: (event: WaitEvent) => void;
}

export const MAX_TRIES = 6;
export const MAX_BACKOFF_MS = 30_000;
const SLOW_DOWN_BELOW = 0.1;
/** Methods that HTTP defines as safe to send twice; a POST joins them through its Idempotency-Key. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

const timer = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A header's number of seconds in milliseconds; null when absent or not a number. */
function secondsHeader(headers: Headers, name: string): number | null {
  const value = headers.get(name);
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : null;
}

/** How long the server asks to wait: the longer of X-RateLimit-Reset and Retry-After, at least 1 s. */
const serverWaitMs = (headers: Headers) =>
  Math.max(1000, secondsHeader(headers, 'x-ratelimit-reset') ?? 0, secondsHeader(headers, 'retry-after') ?? 0);

/**
 * The wait after the n-th refusal in a row: the server's wait the first time, then doubling from
 * it, capped at 30 s, and never shorter than the server's wait (Retry-After is honoured).
 */
export function refusalWaitMs(refusals: number, serverMs: number): number {
  if (refusals <= 1) return serverMs;
  return Math.max(serverMs, Math.min(MAX_BACKOFF_MS, serverMs * 2 ** (refusals - 1)));
}

/** A 409 saying only that the first try with this Idempotency-Key is still running. */
async function isKeyInUse(response: Response): Promise<boolean> {
  if (response.status !== 409) return false;
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { code?: unknown } | null;
  return body?.code === 'idempotency_key_in_use';
}

/** An `Idempotency-Key` value: a Structured Field string, as the IETF draft writes it. */
const newIdempotencyKey = () => `"${globalThis.crypto.randomUUID()}"`;

/** The fetch function described above. Its `waitedMs` adds up every wait, for reports. */
export function retryingFetch(options: RetryOptions): typeof fetch & { readonly waitedMs: number } {
  const send = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? timer;
  let budget: { limit: number; remaining: number; resetMs: number } | null = null;
  let waitedMs = 0;

  const wait = async (event: WaitEvent) => {
    if (event.ms <= 0) return;
    options.onWait?.(event);
    waitedMs += event.ms;
    await sleep(event.ms);
  };

  /** Below 10% remaining, the rest of the window spread evenly over the time until it refills. */
  const paceMs = () =>
    budget && budget.remaining < budget.limit * SLOW_DOWN_BELOW
      ? Math.ceil(budget.resetMs / Math.max(budget.remaining, 1))
      : 0;

  const remember = (headers: Headers) => {
    const limit = Number(headers.get('x-ratelimit-limit'));
    const remaining = Number(headers.get('x-ratelimit-remaining'));
    if (headers.has('x-ratelimit-limit') && limit > 0 && Number.isFinite(remaining))
      budget = { limit, remaining, resetMs: secondsHeader(headers, 'x-ratelimit-reset') ?? 0 };
  };

  const behaving = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const original = new Request(input, init);
    const method = original.method.toUpperCase();
    const headers = new Headers(original.headers);
    if (method === 'POST' && !headers.has('idempotency-key')) headers.set('idempotency-key', newIdempotencyKey());
    const retriesLostAnswers = IDEMPOTENT.has(method) || headers.has('idempotency-key');
    // Read once: every try sends the same bytes.
    const body = original.body ? await original.arrayBuffer() : undefined;
    const url = original.url;
    let refusals = 0;
    let lostAnswers = 0;
    let refreshed = false;

    for (let attempt = 1; ; attempt++) {
      await wait({ reason: 'slow_down', ms: paceMs(), attempt, method, url });
      const sent = new Headers(headers);
      if (!sent.has('authorization')) sent.set('authorization', `Bearer ${await options.credentials.token()}`);
      let response: Response;
      try {
        response = await send(
          new Request(url, { method, headers: sent, body, signal: original.signal, redirect: original.redirect }),
        );
      } catch (error) {
        // No answer: the request may or may not have run. Safe to send again only when running it
        // twice changes nothing (a keyed POST is replayed by the server).
        if (original.signal.aborted || !retriesLostAnswers || attempt >= MAX_TRIES) throw error;
        lostAnswers++;
        await wait({
          reason: 'connection_lost',
          ms: Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (lostAnswers - 1)),
          attempt: attempt + 1,
          method,
          url,
        });
        continue;
      }
      remember(response.headers);
      const { status } = response;
      if (status === 401 && options.credentials.refresh && !refreshed) {
        // An OAuth access token lasts an hour: one refresh, then the answer stands.
        refreshed = true;
        await response.body?.cancel();
        await options.credentials.refresh();
        continue;
      }
      if (attempt >= MAX_TRIES) return response;
      if (await isKeyInUse(response)) {
        await response.body?.cancel();
        await wait({
          reason: 'key_in_use',
          ms: serverWaitMs(response.headers),
          attempt: attempt + 1,
          method,
          url,
          status,
        });
        continue;
      }
      const refused = status === 429 || (status === 503 && response.headers.has('retry-after'));
      if (!refused) return response;
      refusals++;
      await response.body?.cancel();
      await wait({
        reason: refusals === 1 ? 'rate_limited' : 'backoff',
        ms: refusalWaitMs(refusals, serverWaitMs(response.headers)),
        attempt: attempt + 1,
        method,
        url,
        status,
      });
      // That wait was for this bucket: pacing on the refused answer's numbers would wait twice.
      budget = null;
    }
  };

  return Object.defineProperty(behaving as typeof fetch & { readonly waitedMs: number }, 'waitedMs', {
    get: () => waitedMs,
  });
}
