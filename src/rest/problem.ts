import { STATUS_CODES } from 'node:http';
import { currentRequestId } from '../ops/request-scope.js';
import type { FieldError } from '../schema/errors.js';

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

  /** The problem+json document. */
  body(): Record<string, unknown> {
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
    return body;
  }

  toResponse(): Response {
    return new Response(JSON.stringify(this.body()), {
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
  unsupportedMediaType: () =>
    new HttpProblem(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with Content-Type: application/json.', undefined, {
      'accept-post': 'application/json',
    }),
  internal: () => new HttpProblem(500, 'INTERNAL', 'Something went wrong on our side. It has been logged.'),
};
