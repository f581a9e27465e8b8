import type {
  BadRequestProblem,
  ConflictProblem,
  FieldError,
  ForbiddenProblem,
  InternalProblem,
  MethodNotAllowedProblem,
  NotAcceptableProblem,
  NotFoundProblem,
  PayloadTooLargeProblem,
  RequestHeaderFieldsTooLargeProblem,
  RequestTimeoutProblem,
  ServiceUnavailableProblem,
  TooManyRequestsProblem,
  UnauthorizedProblem,
  UnprocessableContentProblem,
  UnsupportedMediaTypeProblem,
} from './generated/types.gen.js';

/** Every RFC 9457 problem the API answers, as its OpenAPI document declares them. */
export type Problem =
  | BadRequestProblem
  | UnauthorizedProblem
  | ForbiddenProblem
  | NotFoundProblem
  | MethodNotAllowedProblem
  | NotAcceptableProblem
  | RequestTimeoutProblem
  | ConflictProblem
  | PayloadTooLargeProblem
  | UnsupportedMediaTypeProblem
  | UnprocessableContentProblem
  | TooManyRequestsProblem
  | RequestHeaderFieldsTooLargeProblem
  | InternalProblem
  | ServiceUnavailableProblem;

/** The stable codes programs branch on (`validation_failed`, `token_revoked`, `not_found`, ...). */
export type ProblemCode = Problem['code'];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * The service refused a call: every non-2xx answer is thrown as one of these, built from its
 * `application/problem+json` body. `code` is stable (branch on it), `errors` lists every bad field
 * of a `validation_failed`, `request_id` is what an operator needs to find the request in the logs.
 * An answer that is not a problem (a proxy's page, say) gets the code `unknown` and its text as detail.
 *
 * @example
 * try {
 *   await wm.createIssue({ body: { project_id: 'WEB', title: '' } });
 * } catch (error) {
 *   if (error instanceof ApiProblem && error.code === 'validation_failed') console.log(error.errors);
 * }
 */
export class ApiProblem extends Error {
  readonly status: number;
  readonly code: ProblemCode | 'unknown';
  readonly title: string;
  readonly detail: string;
  /** The bad fields of a `validation_failed` (empty for other codes). */
  readonly errors: FieldError[];
  /** The service's id of the request (its `X-Request-Id`); null when the answer carried none. */
  readonly request_id: string | null;
  /** The body as the service sent it (the problem object, or the text of an answer that is not one). */
  readonly body: unknown;
  /** The answer's headers (`Retry-After`, `WWW-Authenticate`, the rate-limit fields). */
  readonly headers: Headers;

  constructor(status: number, body: unknown, headers: Headers = new Headers()) {
    const problem = isObject(body) ? body : {};
    const text = (key: string) => (typeof problem[key] === 'string' ? (problem[key] as string) : null);
    const detail = text('detail') ?? (typeof body === 'string' && body ? body.slice(0, 500) : `HTTP ${status}`);
    const code = (text('code') as ProblemCode | null) ?? 'unknown';
    super(`${status} ${code}: ${detail}`);
    this.name = 'ApiProblem';
    this.status = status;
    this.code = code;
    this.title = text('title') ?? '';
    this.detail = detail;
    this.errors = Array.isArray(problem.errors) ? (problem.errors as FieldError[]) : [];
    this.request_id = text('request_id') ?? headers.get('x-request-id');
    this.body = body;
    this.headers = headers;
  }
}
