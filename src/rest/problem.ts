import { STATUS_CODES } from 'node:http';
import { currentRequestId } from '../ops/request-scope.js';
import type { FieldError } from '../schema/errors.js';

/** Status for each stable error code; the one place GraphQL errors meet HTTP statuses. */
const STATUS_BY_CODE: Record<string, number> = {
  VALIDATION_FAILED: 400,
  BAD_USER_INPUT: 400,
  FORBIDDEN: 403,
  INSUFFICIENT_SCOPE: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  KEY_LIMIT_REACHED: 409,
  RATE_LIMITED: 429,
};

export function statusForCode(code: string): number {
  return STATUS_BY_CODE[code] ?? 500;
}

/**
 * An RFC 9457 problem: thrown anywhere in a REST handler, answered by the router.
 * `code` is stable for programs; `detail` is for people.
 */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }

  toResponse(): Response {
    const body: Record<string, unknown> = {
      type: `urn:workmgmt:problem:${this.code.toLowerCase()}`,
      title: STATUS_CODES[this.status] ?? 'Error',
      status: this.status,
      detail: this.detail,
      code: this.code.toLowerCase(),
    };
    if (this.errors?.length) body.errors = this.errors;
    // An RFC 9457 extension member: the X-Request-Id of the request, to quote to an operator.
    const requestId = currentRequestId();
    if (requestId !== undefined) body.request_id = requestId;
    return new Response(JSON.stringify(body), {
      status: this.status,
      headers: { 'content-type': 'application/problem+json', ...this.headers },
    });
  }
}

export const problems = {
  validation: (errors: FieldError[]) =>
    new HttpProblem(400, 'VALIDATION_FAILED', errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors),
  notFound: (detail = 'No resource at this path.') => new HttpProblem(404, 'NOT_FOUND', detail),
  methodNotAllowed: (allow: string[]) =>
    new HttpProblem(405, 'METHOD_NOT_ALLOWED', `Allowed methods: ${allow.join(', ')}.`, undefined, { allow: allow.join(', ') }),
  internal: () => new HttpProblem(500, 'INTERNAL', 'Something went wrong on our side. It has been logged.'),
};
