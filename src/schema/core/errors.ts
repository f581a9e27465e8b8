import { GraphQLError } from 'graphql';
import { BULK_MAX } from './bulk.js';
import { ERROR_TABLE, type ErrorCode } from './error-table.js';

export interface FieldError {
  /** The input field, as the client named it (`title`, `projectId`). */
  field: string;
  message: string;
  /** In a call of many items (createIssues, updateIssues): the position of the item at fault, from 0. */
  index?: number;
}

export interface AppErrorOptions {
  /** What a GraphQL client reads besides `code` (`extensions`), e.g. `limit` for a bound reached. */
  extensions?: Record<string, unknown>;
  /** Headers of the answer besides the table's: those that depend on the request (`Allow`, a wait, a challenge). */
  headers?: Record<string, string>;
  /** Field errors a problem lists in `errors`, already named as the client named the fields. */
  errors?: FieldError[];
}

/**
 * Every expected failure, on every surface: a stable code (a key of ERROR_TABLE, which gives
 * its status), a sentence for people, and what the surface's renderer needs besides.
 * They are GraphQLErrors so that, thrown from a query, they reach the client with
 * `extensions.code` instead of being masked; from a mutation with `errors: { types }` the
 * errors plugin turns them into members of the result union.
 */
export class AppError extends GraphQLError {
  readonly headers: Record<string, string>;
  // Not named `errors`: graphql-yoga takes any thrown object with an `errors` property for an
  // AggregateError and masks what it cannot unpack (a deadline's error would reach the client
  // as INTERNAL_SERVER_ERROR).
  readonly fieldErrors: FieldError[] | undefined;
  constructor(
    message: string,
    readonly code: ErrorCode,
    options: AppErrorOptions = {},
  ) {
    super(message, { extensions: { code, ...options.extensions } });
    this.name = new.target.name;
    this.headers = options.headers ?? {};
    this.fieldErrors = options.errors;
  }

  /** The HTTP status of an answer with this error. */
  get status(): number {
    return ERROR_TABLE[this.code].status;
  }
}

/**
 * A ValidationError reports at most this many field errors (the first ones found): as many as a
 * bulk call has items (src/schema/issues/bulk.ts), so that every bad item is named at once.
 */
export const MAX_FIELD_ERRORS = BULK_MAX;

/** The message (REST: `detail`) quotes at most this many of them, so that it stays a sentence; the list holds them all. */
export const QUOTED_FIELD_ERRORS = 20;

/** The sentence of a validation failure: its first field errors, joined. */
export const fieldErrorsText = (errors: FieldError[]) =>
  errors
    .slice(0, QUOTED_FIELD_ERRORS)
    .map((e) => `${e.field}: ${e.message}`)
    .join('; ');

export class ValidationError extends AppError {
  override readonly fieldErrors: FieldError[];
  constructor(fieldErrors: FieldError[]) {
    const reported = fieldErrors.slice(0, MAX_FIELD_ERRORS);
    super(fieldErrorsText(reported), 'VALIDATION_FAILED', {
      extensions: { fieldErrors: reported },
      errors: reported,
    });
    this.fieldErrors = reported;
  }
}

export class NotFoundError extends AppError {
  constructor(readonly resource: string) {
    super(`No ${resource} with that id exists in this organization.`, 'NOT_FOUND');
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super(message, 'FORBIDDEN');
  }
}

export class ConflictError extends AppError {
  /** `extensions`: what a client needs besides the code (`limit`, for a bound reached). */
  constructor(
    message: string,
    code: 'CONFLICT' | Extract<ErrorCode, `${string}_LIMIT_REACHED`> = 'CONFLICT',
    extensions: Record<string, unknown> = {},
  ) {
    super(message, code, { extensions });
  }
}

export class RateLimitedError extends AppError {
  constructor(
    readonly retryAfterSeconds: string,
    message = `Too many requests for this operation. Wait ${retryAfterSeconds} seconds before retrying.`,
    extensions: Record<string, unknown> = {},
  ) {
    super(message, 'RATE_LIMITED', {
      extensions: { retryAfter: Number(retryAfterSeconds), ...extensions },
      headers: { 'retry-after': String(Number(retryAfterSeconds)) },
    });
  }
}

/**
 * A subscription beyond a cap of open streams (src/live/stream-slots.ts), refused before its
 * stream starts: graphql-yoga answers with the `http` status and header (and strips `http`
 * from the body). A slot frees only when one of the streams ends, which the server cannot
 * foresee; the wait asked for keeps a retrying client from spinning.
 */
export class TooManyStreamsError extends AppError {
  static readonly retryAfterSeconds = 5;
  constructor(
    readonly scope: 'credential' | 'organization',
    readonly limit: number,
  ) {
    const holder = scope === 'credential' ? 'This credential' : 'This organization';
    const retryAfter = TooManyStreamsError.retryAfterSeconds;
    const headers = { 'retry-after': String(retryAfter) };
    super(`${holder} already has ${limit} subscriptions open, the most allowed. Close one first.`, 'TOO_MANY_STREAMS', {
      extensions: { scope, limit, retryAfter, http: { status: ERROR_TABLE.TOO_MANY_STREAMS.status, headers } },
      headers,
    });
  }
}

/** An OAuth token without the scope an operation needs (RFC 6750 insufficient_scope). */
export class InsufficientScopeError extends AppError {
  constructor(readonly scope: string) {
    const headers = { 'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"` };
    super(`This token lacks the "${scope}" scope.`, 'INSUFFICIENT_SCOPE', {
      // graphql-yoga answers with this status and header (and strips `http` from the body).
      extensions: { scope, http: { status: ERROR_TABLE.INSUFFICIENT_SCOPE.status, headers } },
      headers,
    });
  }
}
