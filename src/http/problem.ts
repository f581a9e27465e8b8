import { STATUS_CODES } from 'node:http';
import { errorEntry } from '../schema/core/error-table.js';
import {
  AppError,
  fieldErrorsText,
  MAX_FIELD_ERRORS,
  QUOTED_FIELD_ERRORS,
  type FieldError,
} from '../schema/core/errors.js';
import { requestIds, type RequestScope } from '../ops/request-scope.js';
import { Headers, Response } from './fetch-api.js';

/**
 * The RFC 9457 renderer: every refusal that is not an OAuth endpoint's, a GraphQL result's or
 * a page's is this document (REST, GraphQL before it runs, MCP tool results, the pipeline's
 * steps, health, the server's own refusals). `code` is stable for programs; `detail` is for people.
 */
export function problemBody(error: AppError): Record<string, unknown> {
  const code = error.code.toLowerCase();
  const body: Record<string, unknown> = {
    type: `urn:workmgmt:problem:${code}`,
    title: STATUS_CODES[error.status] ?? 'Error',
    status: error.status,
    detail: error.message,
    code,
  };
  if (error.fieldErrors?.length) body.errors = error.fieldErrors;
  return body;
}

/** The headers of an answer with `error`: those every answer with its code carries, then its own. */
export function errorHeaders(error: AppError): Record<string, string> {
  return { ...errorEntry(error.code).headers, ...error.headers };
}

export function problemResponse(error: AppError): Response {
  return new Response(JSON.stringify(problemBody(error)), {
    status: error.status,
    headers: { 'content-type': 'application/problem+json', ...errorHeaders(error) },
  });
}

/**
 * The most a problem says, so that its size is bounded whatever the request held (a body of
 * 10,000 unknown fields, a field name of a megabyte): OpenAPI documents these numbers.
 */
export const PROBLEM_LIMITS = {
  /** Field errors listed (the first ones found), as GraphQL's ValidationError lists. */
  fieldErrors: MAX_FIELD_ERRORS,
  /** Characters of a field's name as the client sent it, and of the message about it. */
  fieldText: 256,
  /** Characters of `detail` (the first QUOTED_FIELD_ERRORS field errors joined, at most). */
  detail: QUOTED_FIELD_ERRORS * (2 * 256 + 2) + (QUOTED_FIELD_ERRORS - 1) * 2,
} as const;

const clip = (text: string) =>
  text.length > PROBLEM_LIMITS.fieldText ? `${text.slice(0, PROBLEM_LIMITS.fieldText - 1)}…` : text;

const isProblem = (response: Response) =>
  response.headers.get('content-type')?.startsWith('application/problem+json') === true;

/**
 * A problem response with `request_id`, an RFC 9457 extension member: the request's X-Request-Id,
 * to quote to an operator, and `trace_id` beside it when tracing is on (src/ops/tracing.ts). Added
 * where the request's ids are known (the ops layer, for every answer; the idempotency layer,
 * before it keeps an answer for replays, so that a replay names the request that ran) rather than
 * where a problem is made, deep in code that has no request. A body that names a request already
 * keeps it; any other response is returned as it is, at once.
 */
export function withRequestId(response: Response, scope: RequestScope): Response | Promise<Response> {
  return isProblem(response) ? stamped(response, scope) : response;
}

async function stamped(response: Response, scope: RequestScope): Promise<Response> {
  const body = JSON.parse(await response.text()) as Record<string, unknown>;
  if (body.request_id === undefined) Object.assign(body, requestIds(scope));
  const headers = new Headers(response.headers);
  // The body grew: a length set for the old one would cut it.
  headers.delete('content-length');
  return new Response(JSON.stringify(body), { status: response.status, statusText: response.statusText, headers });
}

/** The problems of HTTP itself, made in more than one place. */
export const problems = {
  // Not a ValidationError: its fields are already named as the client sent them, and the REST
  // router renames a ValidationError's fields (src/rest/errors.ts), which would rename them again.
  validation: (all: FieldError[]) => {
    const errors = all.slice(0, PROBLEM_LIMITS.fieldErrors).map((e) => ({
      field: clip(e.field),
      message: clip(e.message),
      ...(e.index === undefined ? {} : { index: e.index }),
    }));
    return new AppError(fieldErrorsText(errors), 'VALIDATION_FAILED', { errors });
  },
  notFound: (detail = 'No resource at this path.') => new AppError(detail, 'NOT_FOUND'),
  methodNotAllowed: (allow: string[]) =>
    new AppError(`Allowed methods: ${allow.join(', ')}.`, 'METHOD_NOT_ALLOWED', {
      headers: { allow: allow.join(', ') },
    }),
  unsupportedMediaType: () =>
    new AppError('Send the body as JSON with Content-Type: application/json.', 'UNSUPPORTED_MEDIA_TYPE', {
      headers: { 'accept-post': 'application/json' },
    }),
  internal: () => new AppError('Something went wrong on our side. It has been logged.', 'INTERNAL'),
};
