/**
 * Every error code the service answers with, in one table: its HTTP status, where it is
 * answered, whether its message reaches the client, and the headers every answer with it
 * carries. Statuses are read from here (src/schema/core/errors.ts), the OpenAPI problem schemas
 * list the `problem` codes from here (src/rest/openapi-protocol.ts), and so does the error
 * table of docs/api.md (`npm run docs:tables`). test/error-table.test.ts fails on a code
 * written anywhere in src that is not a key.
 *
 * Keys are spelled as the code is written in the service: upper case for problems (whose
 * body carries the code in lower case), GraphQL `extensions.code` and MCP error data; RFC 6749
 * codes in lower case, as the RFC spells them.
 */

/**
 * Where a code is answered:
 * - `problem`: an RFC 9457 problem (REST, GraphQL before it runs, MCP tool results, every other
 *   non-OAuth HTTP refusal); GraphQL operations use the same codes in `extensions.code`.
 * - `graphql`: GraphQL only, in `extensions.code`.
 * - `oauth`: the `error` of an RFC 6749 answer (the OAuth endpoints and their error redirects).
 * - `mcp`: the `data.code` of a JSON-RPC error of an MCP batch.
 */
export type SurfaceOfError = 'problem' | 'graphql' | 'oauth' | 'mcp';

export interface ErrorEntry {
  /** The HTTP status of an answer with this code (200 where it travels inside a GraphQL result or a JSON-RPC batch). */
  readonly status: number;
  readonly surface: SurfaceOfError;
  /** For docs/api.md: when the code is answered. */
  readonly when: string;
  /** False for our own failures: the client gets a fixed sentence, the log gets the cause. */
  readonly expose?: false;
  /** Answered by the server before any request exists, so without `request_id`. */
  readonly beforeRequest?: true;
  /** Headers every answer with this code carries, beside those that depend on the request. */
  readonly headers?: Readonly<Record<string, string>>;
}

export const ERROR_TABLE = {
  // ---- 400 ----
  VALIDATION_FAILED: {
    status: 400,
    surface: 'problem',
    when: 'Bad input: every bad field or parameter is listed in `errors`.',
  },
  MALFORMED_JSON: { status: 400, surface: 'problem', when: 'The body is not JSON, or not a JSON object.' },
  BAD_USER_INPUT: { status: 400, surface: 'problem', when: 'An undecodable value (a cursor, a connection argument).' },
  CONFLICTING_CREDENTIALS: { status: 400, surface: 'problem', when: 'More than one credential in one request.' },
  INVALID_IDEMPOTENCY_KEY: {
    status: 400,
    surface: 'problem',
    when: 'An `Idempotency-Key` that is not 1 to 255 visible characters.',
  },
  BODY_INCOMPLETE: {
    status: 400,
    surface: 'problem',
    when: 'The body broke off before its end (the client went away, or a broken chunked encoding).',
    headers: { connection: 'close' },
  },
  BAD_REQUEST: {
    status: 400,
    surface: 'problem',
    beforeRequest: true,
    when: 'Not HTTP/1.1: answered by the server before any request exists (no `request_id`).',
  },
  // ---- 401 ----
  UNAUTHENTICATED: { status: 401, surface: 'problem', when: 'No credential.' },
  TOKEN_MALFORMED: { status: 401, surface: 'problem', when: 'A token that is not well-formed.' },
  TOKEN_INVALID: { status: 401, surface: 'problem', when: 'A token that is not valid.' },
  TOKEN_REVOKED: { status: 401, surface: 'problem', when: 'A revoked token.' },
  TOKEN_EXPIRED: { status: 401, surface: 'problem', when: 'An expired token.' },
  TOKEN_IN_URL: {
    status: 401,
    surface: 'problem',
    when: 'A token in the URL (`access_token`), where it ends up in logs.',
  },
  // ---- 403 ----
  FORBIDDEN: { status: 403, surface: 'problem', when: 'The role is too low, or an operation API keys may not do.' },
  INSUFFICIENT_SCOPE: {
    status: 403,
    surface: 'problem',
    when: 'An OAuth token without the scope the operation needs.',
  },
  ORG_MISMATCH: { status: 403, surface: 'problem', when: "`X-Org-Id` differs from the token's organization." },
  ORG_FORBIDDEN: { status: 403, surface: 'problem', when: 'Not a member of the organization named by `X-Org-Id`.' },
  CSRF_REJECTED: {
    status: 403,
    surface: 'problem',
    when: 'A cross-site form post (its Origin or Referer is not this service).',
  },
  // ---- 404 to 431 ----
  NOT_FOUND: {
    status: 404,
    surface: 'problem',
    when: "An unknown route, or a resource that does not exist in the caller's organization (another organization's resource gets exactly the same answer, on every method).",
  },
  METHOD_NOT_ALLOWED: { status: 405, surface: 'problem', when: 'A method the path does not serve (with `Allow`).' },
  NOT_ACCEPTABLE: {
    status: 406,
    surface: 'problem',
    when: 'A GraphQL request whose `Accept` allows no JSON, refused before it runs.',
  },
  REQUEST_TIMEOUT: {
    status: 408,
    surface: 'problem',
    beforeRequest: true,
    when: 'The request took too long to arrive: answered by the server, which closes the connection (no `request_id`).',
  },
  CONFLICT: {
    status: 409,
    surface: 'problem',
    when: 'The change clashes with the current state (a project key or slug in use, a project that still has issues).',
  },
  KEY_LIMIT_REACHED: { status: 409, surface: 'problem', when: 'The most active API keys a user may have.' },
  WEBHOOK_LIMIT_REACHED: { status: 409, surface: 'problem', when: 'The most webhooks an organization may have.' },
  INVITATION_LIMIT_REACHED: {
    status: 409,
    surface: 'problem',
    when: 'The most pending invitations an organization may have.',
  },
  IDEMPOTENCY_KEY_IN_USE: {
    status: 409,
    surface: 'problem',
    when: 'A retry while the first request with its `Idempotency-Key` still runs.',
    headers: { 'retry-after': '1' },
  },
  IDEMPOTENCY_REQUEST_APPLIED: {
    status: 409,
    surface: 'problem',
    when: 'The first request with this `Idempotency-Key` took effect, but its server stopped before answering.',
  },
  IDEMPOTENCY_OUTCOME_UNKNOWN: {
    status: 409,
    surface: 'problem',
    when: 'The first request with this `Idempotency-Key` did not finish, after a write that cannot tell whether it ran.',
  },
  IDEMPOTENCY_ANSWER_TOO_LARGE: {
    status: 409,
    surface: 'problem',
    when: 'The first answer to this `Idempotency-Key` was too large to keep for retries.',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    surface: 'problem',
    when: 'A body over its limit (1 MiB on `/api`, GraphQL too).',
    headers: { connection: 'close' },
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    surface: 'problem',
    when: 'A REST body that is not JSON, or a GraphQL POST that is not JSON, form or multipart.',
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    surface: 'problem',
    when: 'The same `Idempotency-Key` with another path or body.',
  },
  RATE_LIMITED: { status: 429, surface: 'problem', when: 'Too many requests (with `Retry-After`).' },
  IDEMPOTENCY_QUOTA_EXCEEDED: {
    status: 429,
    surface: 'problem',
    when: "The user's kept answers for `Idempotency-Key` retries are at their quota (with `Retry-After`).",
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    surface: 'problem',
    beforeRequest: true,
    when: 'Headers over 16 KiB: answered by the server, which closes the connection (no `request_id`).',
  },
  // ---- 5xx ----
  INTERNAL: {
    status: 500,
    surface: 'problem',
    expose: false,
    when: 'Our failure (logged; never for a client mistake).',
  },
  OVERLOADED: {
    status: 503,
    surface: 'problem',
    when: 'The service is overloaded (with `Retry-After`).',
    headers: { 'retry-after': '1', 'cache-control': 'no-store' },
  },
  TOO_MANY_CONNECTIONS: {
    status: 503,
    surface: 'problem',
    beforeRequest: true,
    when: 'Too many open connections (from the address, or in all): the connection is closed (no `request_id`).',
    headers: { 'Retry-After': '1' },
  },
  UNAVAILABLE: {
    status: 503,
    surface: 'problem',
    beforeRequest: true,
    when: 'The service is starting (with `Retry-After`).',
    headers: { 'retry-after': '1', 'cache-control': 'no-store' },
  },

  // ---- GraphQL only (`extensions.code`) ----
  TOO_MANY_STREAMS: {
    status: 429,
    surface: 'graphql',
    when: 'A subscription beyond the open streams a credential or organization may hold (with `Retry-After`).',
  },
  PERSISTED_QUERY_ONLY: {
    status: 400,
    surface: 'graphql',
    when: 'A credential that may send registered documents only sent a document.',
  },
  PERSISTED_QUERY_NOT_FOUND: { status: 400, surface: 'graphql', when: 'No registered document has this hash.' },
  COST_LIMIT_EXCEEDED: {
    status: 200,
    surface: 'graphql',
    when: 'The query costs more than the limit (in the GraphQL result).',
  },
  DEADLINE_EXCEEDED: {
    status: 200,
    surface: 'graphql',
    when: 'The query did not finish within its deadline (in the GraphQL result).',
  },
  RESPONSE_TOO_LARGE: {
    status: 200,
    surface: 'graphql',
    when: 'The result would be larger than the limit (in the GraphQL result).',
  },
  INTERNAL_SERVER_ERROR: { status: 500, surface: 'graphql', expose: false, when: 'Our failure, masked (logged).' },

  // ---- MCP batches (JSON-RPC error `data.code`) ----
  BATCH_ANSWER_TOO_LARGE: {
    status: 200,
    surface: 'mcp',
    when: 'A batch message not run: the answers before it passed their byte limit.',
  },

  // ---- OAuth (RFC 6749 `error`) ----
  invalid_request: {
    status: 400,
    surface: 'oauth',
    when: 'A parameter missing, repeated or malformed (404 for an unknown endpoint, 405 with `Allow`, 413 for a body over 16 KiB).',
  },
  invalid_client: {
    status: 401,
    surface: 'oauth',
    when: 'Client authentication failed.',
    headers: { 'www-authenticate': 'Basic realm="oauth"' },
  },
  invalid_grant: {
    status: 400,
    surface: 'oauth',
    when: 'The code or refresh token is invalid, expired, used or not this client’s.',
  },
  invalid_scope: { status: 400, surface: 'oauth', when: 'An unknown scope, or a refresh that widens it.' },
  invalid_target: { status: 400, surface: 'oauth', when: '`resource` is not this API (RFC 8707).' },
  unsupported_grant_type: {
    status: 400,
    surface: 'oauth',
    when: 'A grant type other than `authorization_code` and `refresh_token`.',
  },
  unsupported_response_type: {
    status: 400,
    surface: 'oauth',
    when: 'A `response_type` other than `code` (an error redirect).',
  },
  unauthorized_client: { status: 400, surface: 'oauth', when: 'The client is not registered for the grant.' },
  access_denied: { status: 400, surface: 'oauth', when: 'The user denied the request (an error redirect).' },
  invalid_client_metadata: {
    status: 400,
    surface: 'oauth',
    when: 'A registration whose metadata is not valid (RFC 7591).',
  },
  invalid_redirect_uri: {
    status: 400,
    surface: 'oauth',
    when: 'A registration with a redirect URI that cannot be used (RFC 7591).',
  },
  temporarily_unavailable: {
    status: 429,
    surface: 'oauth',
    when: 'Too many registrations or token requests (with `Retry-After`).',
  },
  server_error: { status: 500, surface: 'oauth', expose: false, when: 'Our failure (logged).' },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERROR_TABLE;

type CodeOf<S extends SurfaceOfError> = {
  [C in ErrorCode]: (typeof ERROR_TABLE)[C]['surface'] extends S ? C : never;
}[ErrorCode];

/** A code answered as an RFC 9457 problem (and by GraphQL operations). */
export type ProblemCode = CodeOf<'problem'>;
/** A code of an RFC 6749 answer. */
export type OAuthErrorCode = CodeOf<'oauth'>;

export const errorEntry = (code: ErrorCode): ErrorEntry => ERROR_TABLE[code];

/** Whether `code` is a key of the table (for codes that arrive as strings). */
export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ERROR_TABLE, code);
