import type { Principal } from '../auth/principal.js';
import type { Db } from '../db/client.js';
import { problemResponse } from '../http/problem.js';
import { AppError } from '../schema/core/errors.js';
import { parseIdempotencyKey } from './key.js';
import { isGraphqlQuery } from './graphql-reads.js';
import { MAX_ANSWER_BYTES } from './quota.js';
import { fingerprint, idempotent, keyScope, type IdempotencyOptions } from './run.js';
import type { Claim } from './claim.js';
import type { StoredResponse } from './store.js';
import { Response } from '../http/fetch-api.js';
import { surfaceOf } from '../http/surfaces.js';

/** Set on a replayed answer, so a client (and its logs) can tell it from a first one. */
export const REPLAYED_HEADER = 'idempotent-replayed';

export const idempotencyProblems = {
  invalid: (detail: string) => new AppError(detail, 'INVALID_IDEMPOTENCY_KEY'),
  mismatch: () =>
    new AppError(
      'This Idempotency-Key was used in the last 24 hours for a different request (another path or body). Send a new key with a new request.',
      'IDEMPOTENCY_KEY_REUSED',
    ),
  inProgress: () =>
    new AppError(
      'A request with this Idempotency-Key is still being processed. Retry after it finishes.',
      'IDEMPOTENCY_KEY_IN_USE',
    ),
  applied: () =>
    new AppError(
      'The first request with this Idempotency-Key took effect, but the server stopped before it answered, so its answer was not kept. Read the resource to see its state; do not send the request again.',
      'IDEMPOTENCY_REQUEST_APPLIED',
    ),
  unknown: () =>
    new AppError(
      'The first request with this Idempotency-Key did not finish (the server stopped while it ran), so whether it took effect is unknown. Check, then send a new key.',
      'IDEMPOTENCY_OUTCOME_UNKNOWN',
    ),
  answerTooLarge: (status: number) =>
    new AppError(
      `The first request with this Idempotency-Key ran and answered ${status}, but its answer was larger than the ${MAX_ANSWER_BYTES} bytes kept for retries, so it cannot be sent again. Read the resource to see its state; send a new key with a new request.`,
      'IDEMPOTENCY_ANSWER_TOO_LARGE',
    ),
  quotaExceeded: (retryAfterSeconds: number) =>
    new AppError(
      `Your requests with an Idempotency-Key in the last 24 hours hold as many kept answers as one user may have. Nothing ran. Retry after ${retryAfterSeconds} seconds, or send the request without a key.`,
      'IDEMPOTENCY_QUOTA_EXCEEDED',
      { headers: { 'retry-after': String(retryAfterSeconds) } },
    ),
};

/**
 * Statuses that are not final, so a retry runs again: a rate limit, a server error, and a
 * refusal of the request's headers (Accept, Content-Type), which are not part of the key's
 * fingerprint and which the retry may have fixed. Nothing ran for any of them.
 */
const RETRYABLE = new Set([406, 415, 429]);

/** Whether an answer is final, so that retries get it again. */
function isFinal(path: string, response: StoredResponse): boolean {
  if (response.status >= 500 || RETRYABLE.has(response.status)) return false;
  // GraphQL answers 200 with top-level errors for requests that did not run (rate limited, timed
  // out, refused before execution); a retry may succeed. Typed results (in `data`) are final.
  if (surfaceOf(path).name === 'graphql') {
    try {
      return !('errors' in (JSON.parse(response.body) as object));
    } catch {
      return false;
    }
  }
  return true;
}

const toResponse = (stored: StoredResponse, extra: Record<string, string> = {}) =>
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a kept 204/304 body is '', sent as none
  new Response(stored.status === 204 || stored.status === 304 ? null : stored.body, {
    status: stored.status,
    headers: { ...stored.headers, ...extra },
  });

/**
 * A write to the API (a REST POST, a GraphQL mutation) with an `Idempotency-Key` header runs at most once per key:
 * a retry with the same key and the same method, path and body within 24 h gets the first answer
 * (status, headers, body) again, with `Idempotent-Replayed: true`. The same key with another
 * request is 422; a retry while the first still runs waits for it, then 409. Other methods
 * (idempotent by definition, or PATCH as a merge patch), GraphQL queries (reads: repeating one
 * is safe, and keeping its answer would store pages of data per key) and requests without the
 * header are passed through. `principal` is the authenticated caller: keys are per user and
 * organization, and their kept answers count against the user's quota (src/idempotency/quota.ts).
 */
export async function idempotentRequest(
  db: Db,
  principal: Principal,
  request: Request,
  handle: (request: Request, claim?: Claim) => Promise<Response>,
  options?: IdempotencyOptions,
): Promise<Response> {
  if (request.method !== 'POST') return handle(request);
  const parsed = parseIdempotencyKey(request.headers);
  if (parsed === null) return handle(request);
  if ('error' in parsed) return problemResponse(idempotencyProblems.invalid(parsed.error));
  const scope = keyScope(principal, parsed.key);
  if (!scope) return handle(request);
  const url = new URL(request.url);
  // The body was read into memory within its limit (src/http/body-limit.ts): a clone costs a copy.
  const body = new Uint8Array(await request.clone().arrayBuffer());
  if (surfaceOf(url.pathname).name === 'graphql' && isGraphqlQuery(body)) return handle(request);
  const print = fingerprint(request.method, url.pathname + url.search, body);
  const outcome = await idempotent(
    db,
    scope,
    print,
    async (claim) => {
      const response = await handle(request, claim);
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      return { status: response.status, headers, body: await response.text() };
    },
    (response) => isFinal(url.pathname, response),
    options,
  );
  switch (outcome.kind) {
    case 'fresh':
      return toResponse(outcome.response);
    case 'replay':
      return toResponse(outcome.response, { [REPLAYED_HEADER]: 'true' });
    case 'mismatch':
      return problemResponse(idempotencyProblems.mismatch());
    case 'in_progress':
      return problemResponse(idempotencyProblems.inProgress());
    case 'applied':
      return problemResponse(idempotencyProblems.applied());
    case 'unknown':
      return problemResponse(idempotencyProblems.unknown());
    case 'answer_too_large':
      return problemResponse(idempotencyProblems.answerTooLarge(outcome.status));
    case 'quota_exceeded':
      return problemResponse(idempotencyProblems.quotaExceeded(outcome.retryAfterSeconds));
  }
}
