import { GraphQLError } from 'graphql';

export interface FieldError {
  /** The input field, as the client named it (`title`, `projectId`). */
  field: string;
  message: string;
}

/**
 * Expected failures. They are GraphQLErrors so that, thrown from a query, they reach the client
 * with `extensions.code` instead of being masked; from a mutation with `errors: { types }`
 * the errors plugin turns them into members of the result union.
 */
export class AppError extends GraphQLError {
  constructor(message: string, readonly code: string, extensions: Record<string, unknown> = {}) {
    super(message, { extensions: { code, ...extensions } });
    this.name = new.target.name;
  }
}

/** A ValidationError reports at most this many field errors (the first ones found). */
export const MAX_FIELD_ERRORS = 20;

export class ValidationError extends AppError {
  readonly fieldErrors: FieldError[];
  constructor(fieldErrors: FieldError[]) {
    const reported = fieldErrors.slice(0, MAX_FIELD_ERRORS);
    super(reported.map((e) => `${e.field}: ${e.message}`).join('; '), 'VALIDATION_FAILED', { fieldErrors: reported });
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
  constructor(message: string, code = 'CONFLICT', extensions: Record<string, unknown> = {}) {
    super(message, code, extensions);
  }
}

export class RateLimitedError extends AppError {
  constructor(
    readonly retryAfterSeconds: string,
    message = `Too many requests for this operation. Wait ${retryAfterSeconds} seconds before retrying.`,
    extensions: Record<string, unknown> = {},
  ) {
    super(message, 'RATE_LIMITED', { retryAfter: Number(retryAfterSeconds), ...extensions });
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
  constructor(readonly scope: 'credential' | 'organization', readonly limit: number) {
    const holder = scope === 'credential' ? 'This credential' : 'This organization';
    const retryAfter = TooManyStreamsError.retryAfterSeconds;
    super(`${holder} already has ${limit} subscriptions open, the most allowed. Close one first.`, 'TOO_MANY_STREAMS', {
      scope,
      limit,
      retryAfter,
      http: { status: 429, headers: { 'retry-after': String(retryAfter) } },
    });
  }
}

/** An OAuth token without the scope an operation needs (RFC 6750 insufficient_scope). */
export class InsufficientScopeError extends AppError {
  constructor(readonly scope: string) {
    const challenge = `Bearer error="insufficient_scope", scope="${scope}"`;
    super(`This token lacks the "${scope}" scope.`, 'INSUFFICIENT_SCOPE', {
      scope,
      // graphql-yoga answers with this status and header (and strips `http` from the body).
      http: { status: 403, headers: { 'www-authenticate': challenge } },
    });
  }
}

/** The HTTP status of each stable code: the one place the operations' errors meet HTTP (REST problems, pages). */
const STATUS_BY_CODE: Record<string, number> = {
  VALIDATION_FAILED: 400,
  BAD_USER_INPUT: 400,
  FORBIDDEN: 403,
  INSUFFICIENT_SCOPE: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  KEY_LIMIT_REACHED: 409,
  WEBHOOK_LIMIT_REACHED: 409,
  INVITATION_LIMIT_REACHED: 409,
  RATE_LIMITED: 429,
  TOO_MANY_STREAMS: 429,
};

export function statusForCode(code: string): number {
  return STATUS_BY_CODE[code] ?? 500;
}
