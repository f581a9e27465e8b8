import { STATUS_CODES } from 'node:http';
import type {
  ComponentsObject,
  ExampleObject,
  HeaderObject,
  ParameterObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
  SecurityRequirementObject,
} from 'openapi3-ts/oas31';
import { SCOPES } from '../auth/oauth/scopes.js';
import { SCHEMES } from '../auth/security-schemes.js';
import { sessionCookieName } from '../auth/session.js';
import type { Config } from '../config.js';
import { QUERY_LIMITS } from '../limits/graphql-query.js';
import { BODY_LIMITS } from '../http/body-limit.js';
import { GLOBAL_POLICY } from '../limits/policy.js';
import { PROBLEM_LIMITS } from '../http/problem.js';
import { BULK_MAX } from '../schema/core/bulk.js';
import { ERROR_TABLE, type ProblemCode } from '../schema/core/error-table.js';

/**
 * The parts of the OpenAPI document that belong to the protocol rather than to a route: the
 * RFC 9457 problem bodies `problemBody` writes, the rate-limit and other response headers the
 * pipeline sets, the credentials `src/auth` accepts, and the GraphQL endpoint. Routes and their
 * resources are generated from their declarations (src/rest/openapi.ts).
 */

type Schema = SchemaObject | ReferenceObject;
type Header = HeaderObject;
type Reference = ReferenceObject;
type Response = ResponseObject;
type Example = ExampleObject;
type Parameter = ParameterObject;
type SecurityRequirement = SecurityRequirementObject;

const ref = (name: string): Reference => ({ $ref: `#/components/schemas/${name}` });

function exact(description: string, properties: Record<string, Schema>): SchemaObject {
  return { type: 'object', description, additionalProperties: false, required: Object.keys(properties), properties };
}

// ---- Headers ----

/** What every response of the API carries: the rate-limit fields and CORS's Allow-Origin (src/pipeline/cors.ts). */
const EVERY_RESPONSE_HEADER_NAMES = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'Access-Control-Allow-Origin',
] as const;

const headers: Record<string, Header> = {
  'Idempotent-Replayed': {
    description:
      'Present (`true`) when this is the kept answer of an earlier request with the same `Idempotency-Key`, replayed.',
    required: false,
    schema: { const: 'true' },
  },
  'X-RateLimit-Limit': {
    description: 'Requests allowed in the window of the tightest bucket that applied (the global one: 600 per 60 s).',
    required: true,
    schema: { type: 'integer', minimum: 1 },
    example: GLOBAL_POLICY.limit,
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in that bucket. Slow down when it falls under 10% of the limit.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
    example: GLOBAL_POLICY.limit - 1,
  },
  'X-RateLimit-Reset': {
    description: 'Whole seconds until the next slot of that bucket opens.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
    example: 60,
  },
  RateLimit: {
    description: 'IETF RateLimit field for the tightest bucket: its policy name, `r` remaining, `t` seconds to reset.',
    required: true,
    schema: { type: 'string', maxLength: 128, pattern: '^"[^"]+";r=\\d+;t=\\d+$' },
    example: '"global";r=599;t=60',
  },
  'RateLimit-Policy': {
    description:
      'IETF RateLimit-Policy field: every bucket the request drew from, with `q` requests per `w` seconds. ' +
      'Some operations draw from a bucket of their own on top of the global one (see `x-rate-limit-policies`).',
    required: true,
    schema: { type: 'string', maxLength: 512, pattern: '^"[^"]+";q=\\d+;w=\\d+(, "[^"]+";q=\\d+;w=\\d+)*$' },
    example: `"${GLOBAL_POLICY.name}";q=${GLOBAL_POLICY.limit};w=${GLOBAL_POLICY.windowMs / 1000}`,
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying (equal to the reset of the bucket that refused).',
    required: true,
    schema: { type: 'integer', minimum: 1 },
    example: 12,
  },
  Link: {
    description:
      'RFC 8288 link to the next page (`rel="next"`), present only when there is one: the same filters and sort plus an opaque `cursor`. ' +
      'Follow it rather than building cursors.',
    required: false,
    schema: { type: 'string', maxLength: 4096, pattern: '^<[^>]+>; rel="next"$' },
    example:
      '<http://localhost:4000/api/issues?status=Todo&limit=50&cursor=eyJ2IjpbIjIwMjYtMDEtMzFUMTI6MDA6MDAuMDAwWiJdfQ>; rel="next"',
  },
  Location: {
    description: 'The URL of the created resource.',
    required: true,
    schema: { type: 'string', format: 'uri' },
  },
  'WWW-Authenticate': {
    description:
      'RFC 6750 challenge: `Bearer realm="<BASE_URL>/api", resource_metadata="<BASE_URL>/.well-known/oauth-protected-resource/api", scope="read write"` ' +
      '(plus `error="invalid_token"` when a token was sent). On 403 `insufficient_scope`: `Bearer error="insufficient_scope", scope="write", resource_metadata="..."`.',
    required: true,
    schema: { type: 'string', maxLength: 1024, pattern: '^Bearer ' },
  },
  Allow: {
    description: 'The methods this path answers.',
    required: true,
    schema: { type: 'string', maxLength: 64, pattern: '^[A-Z]+(, [A-Z]+)*$' },
    example: 'GET, PUT, DELETE',
  },
  'Accept-Post': {
    description: 'The media type to send.',
    required: true,
    schema: { type: 'string', maxLength: 64, pattern: '^[a-z]+/[a-z0-9.+-]+$' },
    example: 'application/json',
  },
  'Cache-Control': {
    description: 'How long caches may keep the document.',
    required: true,
    schema: { type: 'string', maxLength: 64, pattern: '^[a-z-]+(=\\d+)?(, [a-z-]+(=\\d+)?)*$' },
    example: 'public, max-age=300',
  },
  'Access-Control-Allow-Origin': {
    description:
      "CORS: `*` (any origin's page may read the answer, never with cookies), or the request's `Origin` when `CORS_ORIGINS` lists it; " +
      'absent for an origin not listed. Never with `Access-Control-Allow-Credentials`: the browser session does not work from other origins.',
    required: false,
    schema: { type: 'string', maxLength: 2048, pattern: '^(\\*|https?://[^/]+)$' },
    example: '*',
  },
  InsufficientScope: {
    description:
      'Only on `insufficient_scope`: `Bearer error="insufficient_scope", scope="write", resource_metadata="<BASE_URL>/.well-known/oauth-protected-resource/api"` (RFC 6750, RFC 9728 §5.1).',
    required: false,
    schema: {
      type: 'string',
      maxLength: 256,
      pattern: '^Bearer error="insufficient_scope", scope="(read|write)", resource_metadata="[^"]+"$',
    },
    example:
      'Bearer error="insufficient_scope", scope="write", resource_metadata="http://localhost:4000/.well-known/oauth-protected-resource/api"',
  },
  ETag: {
    description: 'Validator for `If-None-Match`.',
    required: true,
    schema: { type: 'string', maxLength: 64, pattern: '^"[A-Za-z0-9_-]+"$' },
  },
};

const headerRef = (name: string): Reference => ({ $ref: `#/components/headers/${name}` });

/**
 * Every response, whatever its outcome, carries the rate-limit fields (and CORS's Allow-Origin). `extra` names more header
 * components; `name=Component` when the header's name differs from its component's.
 */
export function withRateLimitHeaders(extra: string[] = []): Record<string, Reference> {
  return Object.fromEntries(
    [...EVERY_RESPONSE_HEADER_NAMES, ...extra].map((entry) => {
      const [name, component = name] = entry.split('=') as [string, string?];
      return [name, headerRef(component)];
    }),
  );
}

// ---- Parameters ----

const parameters: Record<string, Parameter> = {
  XOrgId: {
    name: 'X-Org-Id',
    in: 'header',
    required: false,
    description:
      "The organization to act in. With an API key or OAuth token: optional, and when sent must be the token's organization (else 403 `org_mismatch`). " +
      "With a session: one of the user's organizations (else 403 `org_forbidden`); needed when the user has more than one.",
    schema: { type: 'string', format: 'uuid' },
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'IETF httpapi Idempotency-Key: a unique value per request (a UUID), sent again unchanged when retrying it. Within 24 h, a retry with the same key, ' +
      'path and body gets the first answer again (status, headers, body; with `Idempotent-Replayed: true`) and writes nothing; the same key with another ' +
      'path or body is 422 `idempotency_key_reused`; a retry while the first still runs waits for it, else 409 `idempotency_key_in_use` (with `Retry-After`). ' +
      "Keys belong to the credential's user in its organization. Answers 406, 415, 429 and 5xx are not kept: a retry runs again.",
    schema: { type: 'string', minLength: 1, maxLength: 255 },
    example: '"8e03978e-40d5-43e8-bc93-6894a57f9324"',
  },
};

export const paramRef = (name: string): Reference => ({ $ref: `#/components/parameters/${name}` });

// ---- Problems (RFC 9457). One schema per status, each listing the codes that status carries. ----

/** The problem codes' statuses. */
export type ProblemStatus = (typeof ERROR_TABLE)[ProblemCode]['status'];

/** Every stable problem `code` (lower case, as the body has it), by HTTP status: from ERROR_TABLE, in its order. */
export const PROBLEM_CODES = Object.entries(ERROR_TABLE).reduce(
  (byStatus, [code, entry]) => {
    if (entry.surface !== 'problem') return byStatus;
    const status = entry.status as ProblemStatus;
    byStatus[status] = [...(byStatus[status] ?? []), code.toLowerCase()];
    return byStatus;
  },
  {} as Record<ProblemStatus, string[]>,
);

const PROBLEM_STATUSES = Object.keys(PROBLEM_CODES).map(Number) as ProblemStatus[];

const PROBLEM_SCHEMA_NAMES: Record<ProblemStatus, string> = {
  400: 'BadRequestProblem',
  401: 'UnauthorizedProblem',
  403: 'ForbiddenProblem',
  404: 'NotFoundProblem',
  405: 'MethodNotAllowedProblem',
  406: 'NotAcceptableProblem',
  408: 'RequestTimeoutProblem',
  409: 'ConflictProblem',
  413: 'PayloadTooLargeProblem',
  415: 'UnsupportedMediaTypeProblem',
  422: 'UnprocessableContentProblem',
  429: 'TooManyRequestsProblem',
  431: 'RequestHeaderFieldsTooLargeProblem',
  500: 'InternalProblem',
  503: 'ServiceUnavailableProblem',
};

/** Codes answered before any request exists (the server's own refusals): their bodies have no `request_id`. */
const BEFORE_ANY_REQUEST = new Set<string>(
  Object.entries(ERROR_TABLE)
    .filter(([, entry]) => 'beforeRequest' in entry && entry.beforeRequest)
    .map(([code]) => code.toLowerCase()),
);

/** The problem body `problemBody` (src/http/problem.ts) writes: `codes` are those this schema admits. */
function problemSchema(status: ProblemStatus, codes: readonly string[], description: string, errors?: Schema): Schema {
  const properties: Record<string, Schema> = {
    type: {
      type: 'string',
      format: 'uri',
      pattern: `^urn:workmgmt:problem:(${codes.join('|')})$`,
      description: '`urn:workmgmt:problem:<code>`.',
    },
    title: { const: STATUS_CODES[status], description: 'The HTTP reason phrase.' },
    status: { const: status },
    detail: {
      type: 'string',
      maxLength: PROBLEM_LIMITS.detail,
      description: 'For people: what went wrong and what to do.',
    },
    code:
      codes.length === 1
        ? { const: codes[0], description: 'Stable, for programs.' }
        : { type: 'string', enum: [...codes], description: 'Stable, for programs.' },
    request_id: {
      type: 'string',
      maxLength: 128,
      description: "The request's `X-Request-Id` (the client's, or one the service made): quote it to an operator.",
    },
    trace_id: {
      type: 'string',
      pattern: '^[0-9a-f]{32}$',
      maxLength: 32,
      description:
        "The request's W3C trace id, when the service exports traces (OpenTelemetry): quote it with `request_id`.",
    },
    ...(errors ? { errors } : {}),
  };
  const beforeAnyRequest = codes.some((code) => BEFORE_ANY_REQUEST.has(code));
  const required = Object.keys(properties).filter(
    (name) => name !== 'trace_id' && (name !== 'request_id' || !beforeAnyRequest),
  );
  return { type: 'object', description, additionalProperties: false, required, properties };
}

// The table lists VALIDATION_FAILED first among the 400s.
const [VALIDATION_FAILED = 'validation_failed', ...OTHER_400_CODES] = PROBLEM_CODES[400];

const problemSchemas: Record<string, Schema> = {
  FieldError: {
    ...exact('One bad input: the field as the client named it (`title`, `project_id`, `limit`) and why.', {
      field: { type: 'string', maxLength: PROBLEM_LIMITS.fieldText },
      message: { type: 'string', maxLength: PROBLEM_LIMITS.fieldText },
      index: {
        type: 'integer',
        minimum: 0,
        maximum: BULK_MAX - 1,
        description: 'In a bulk call (`POST /issues/bulk`): the position of the item at fault, from 0.',
      },
    }),
    required: ['field', 'message'],
  },
  // 400 is the one status with two shapes: validation_failed lists the fields at fault, always; the others have no `errors`.
  BadRequestProblem: {
    description: 'An RFC 9457 problem with status 400.',
    oneOf: [ref('ValidationProblem'), ref('MalformedRequestProblem')],
  },
  ValidationProblem: problemSchema(
    400,
    [VALIDATION_FAILED],
    'Bad input: every bad field or parameter is in `errors`.',
    {
      type: 'array',
      minItems: 1,
      maxItems: PROBLEM_LIMITS.fieldErrors,
      description: `The first ${PROBLEM_LIMITS.fieldErrors} bad fields found.`,
      items: ref('FieldError'),
    },
  ),
  MalformedRequestProblem: problemSchema(
    400,
    OTHER_400_CODES,
    'A request that could not be read: not JSON, an undecodable value, conflicting credentials, not HTTP (`bad_request`, without `request_id`).',
  ),
  ...Object.fromEntries(
    PROBLEM_STATUSES.filter((status) => status !== 400).map((status) => [
      PROBLEM_SCHEMA_NAMES[status],
      problemSchema(status, PROBLEM_CODES[status], `An RFC 9457 problem with status ${status}.`),
    ]),
  ),
};

// ---- GraphQL, loosely: the request and the result as GraphQL over HTTP defines them. ----

const graphql: Record<string, Schema> = {
  GraphQLRequest: {
    type: 'object',
    required: ['query'],
    properties: {
      query: { type: 'string', maxLength: BODY_LIMITS.api, description: 'A GraphQL document (see `schema.graphql`).' },
      operationName: { type: ['string', 'null'], maxLength: BODY_LIMITS.api },
      variables: { type: ['object', 'null'] },
      extensions: { type: ['object', 'null'] },
    },
  },
  GraphQLResponse: {
    type: 'object',
    description:
      'A GraphQL result. Typed mutation errors are members of the result unions; others are in `errors` with `extensions.code`.',
    minProperties: 1,
    properties: {
      data: { type: ['object', 'null'] },
      errors: {
        type: 'array',
        // Each error comes from a part of the query, and a query has at most maxTokens tokens.
        maxItems: QUERY_LIMITS.maxTokens,
        items: {
          type: 'object',
          required: ['message'],
          properties: {
            message: { type: 'string', maxLength: BODY_LIMITS.api },
            locations: { type: 'array', maxItems: QUERY_LIMITS.maxTokens, items: { type: 'object' } },
            // A field name and at most one list index per level.
            path: {
              type: 'array',
              maxItems: 2 * QUERY_LIMITS.maxDepth,
              items: { type: ['string', 'integer'], maxLength: BODY_LIMITS.api, minimum: 0 },
            },
            extensions: { type: 'object' },
          },
        },
      },
      extensions: { type: 'object' },
    },
  },
  OpenApiDocument: {
    type: 'object',
    description: 'This document (OpenAPI 3.1).',
    required: ['openapi', 'info', 'paths'],
    properties: {
      openapi: { type: 'string', maxLength: 16, pattern: '^3\\.1\\.\\d+$' },
      info: { type: 'object' },
      paths: { type: 'object' },
    },
  },
};

// ---- Problem responses ----

const PROBLEM = 'application/problem+json';

export function problem(
  status: ProblemStatus,
  detail: string,
  code: string,
  errors?: { field: string; message: string }[],
) {
  return {
    type: `urn:workmgmt:problem:${code}`,
    title: STATUS_CODES[status]!,
    status,
    detail,
    code,
    request_id: 'b3a7c2de-5f14-4e8e-9a71-2c0f6d8e4b19',
    ...(errors ? { errors } : {}),
  };
}

/** A problem response with its schema, headers and examples. */
export function problemResponse(
  status: ProblemStatus,
  description: string,
  examples: Record<string, Example>,
  extraHeaders: string[] = [],
): Response {
  return {
    description,
    headers: withRateLimitHeaders(extraHeaders),
    content: { [PROBLEM]: { schema: ref(PROBLEM_SCHEMA_NAMES[status]), examples } },
  };
}

const REAUTH = 'Stop retrying this credential and re-authenticate to get a new one.';

const responses: Record<string, Response> = {
  BadRequest: problemResponse(
    400,
    'The request is malformed: `validation_failed` lists every bad field or parameter in `errors`; `malformed_json` (the body is not a JSON object); ' +
      '`bad_user_input` (for example an undecodable cursor); `conflicting_credentials` (Authorization and X-Auth-Token differ, or either is sent twice); ' +
      '`invalid_idempotency_key` (an `Idempotency-Key` that is not one string of 1 to 255 visible ASCII characters); ' +
      '`body_incomplete` (the body broke off before its end). `bad_request`: not valid HTTP/1.1, answered by the HTTP server before the ' +
      'service sees the request, so without the rate-limit headers; the connection is closed.',
    {
      validation_failed: {
        summary: 'A missing field',
        value: problem(400, 'title: is required', 'validation_failed', [{ field: 'title', message: 'is required' }]),
      },
      malformed_json: {
        summary: 'A body that is not JSON',
        value: problem(400, 'The body is not valid JSON.', 'malformed_json'),
      },
    },
  ),
  Unauthorized: problemResponse(
    401,
    'No usable credential: missing (`unauthenticated`), malformed, unknown, revoked or expired (`token_*`), or sent in the URL (`token_in_url`). ' +
      'Do not retry: re-authenticate.',
    {
      unauthenticated: {
        summary: 'No credential',
        value: problem(401, 'Send a credential: Authorization: Bearer <token> (or X-Auth-Token).', 'unauthenticated'),
      },
      token_revoked: {
        summary: 'A revoked key',
        value: problem(401, `The token has been revoked. ${REAUTH}`, 'token_revoked'),
      },
    },
    ['WWW-Authenticate'],
  ),
  Forbidden: problemResponse(
    403,
    'Authenticated but not allowed: the role is too low, or API keys may not do this (`forbidden`); an OAuth token without the needed scope ' +
      '(`insufficient_scope`, with `WWW-Authenticate`); `X-Org-Id` names another organization (`org_mismatch`, `org_forbidden`); ' +
      'a cookie-authenticated write without this service as `Origin` (`csrf_rejected`).',
    {
      forbidden: {
        summary: 'Role too low',
        value: problem(403, 'Your role in this organization does not allow this operation.', 'forbidden'),
      },
      insufficient_scope: {
        summary: 'A read-only OAuth token',
        value: problem(403, 'This token lacks the "write" scope.', 'insufficient_scope'),
      },
      org_mismatch: {
        summary: 'X-Org-Id of another organization',
        value: problem(
          403,
          "X-Org-Id differs from the organization this token is bound to. Omit the header or send the token's organization.",
          'org_mismatch',
        ),
      },
    },
    ['WWW-Authenticate=InsufficientScope'],
  ),
  NotFound: problemResponse(
    404,
    "No such resource in the caller's organization. Another organization's resources get exactly this answer.",
    {
      not_found: {
        summary: 'Missing or foreign',
        value: problem(404, 'No project with that id exists in this organization.', 'not_found'),
      },
    },
  ),
  MethodNotAllowed: problemResponse(
    405,
    'The path exists but does not answer this method; `Allow` lists those it does.',
    { method_not_allowed: { value: problem(405, 'Allowed methods: GET, PUT, DELETE.', 'method_not_allowed') } },
    ['Allow'],
  ),
  RequestHeaderFieldsTooLarge: {
    // Answered by the HTTP server before any request exists (src/http/node-server.ts): no bucket drawn, no headers.
    description:
      "The request headers are over 16 KiB (Node's default). Answered before the service sees the request, " +
      'so without the rate-limit headers; the connection is closed.',
    content: {
      [PROBLEM]: {
        schema: ref(PROBLEM_SCHEMA_NAMES[431]),
        examples: {
          headers_too_large: { value: problem(431, 'The request headers are too large.', 'headers_too_large') },
        },
      },
    },
  },
  PayloadTooLarge: problemResponse(413, 'The body is over 1 MiB.', {
    payload_too_large: { value: problem(413, 'The body is larger than 1048576 bytes.', 'payload_too_large') },
  }),
  UnsupportedMediaType: problemResponse(
    415,
    'The body is not JSON (`Content-Type: application/json`).',
    {
      unsupported_media_type: {
        value: problem(415, 'Send the body as JSON with Content-Type: application/json.', 'unsupported_media_type'),
      },
    },
    ['Accept-Post'],
  ),
  IdempotencyConflict: problemResponse(
    409,
    'The `Idempotency-Key` is taken: the first request with it is still running (`idempotency_key_in_use`, retry after `Retry-After`); ' +
      'or its server stopped after its write took effect, so its answer was lost (`idempotency_request_applied`: read the resource, do not send it again); ' +
      'or it never finished after a write that cannot tell whether it ran, so its effect is unknown (`idempotency_outcome_unknown`). ' +
      'A first request whose server stopped before its write is run again by a retry once its lease (10 s) has run out.',
    {
      idempotency_key_in_use: {
        value: problem(
          409,
          'A request with this Idempotency-Key is still being processed. Retry after it finishes.',
          'idempotency_key_in_use',
        ),
      },
      idempotency_request_applied: {
        value: problem(
          409,
          'The first request with this Idempotency-Key took effect, but the server stopped before it answered, so its answer was not kept. Read the resource to see its state; do not send the request again.',
          'idempotency_request_applied',
        ),
      },
    },
    ['Retry-After'],
  ),
  IdempotencyKeyReused: problemResponse(
    422,
    'The `Idempotency-Key` was used in the last 24 hours for a different request (another path or body).',
    {
      idempotency_key_reused: {
        value: problem(
          422,
          'This Idempotency-Key was used in the last 24 hours for a different request (another path or body). Send a new key with a new request.',
          'idempotency_key_reused',
        ),
      },
    },
  ),
  TooManyRequests: problemResponse(
    429,
    'A rate-limit bucket is empty; the request had no effect. Wait `Retry-After` (= `X-RateLimit-Reset`) seconds, then retry once; back off exponentially after that.',
    {
      rate_limited: {
        value: problem(429, 'Too many requests. Wait 12 seconds (X-RateLimit-Reset) before retrying.', 'rate_limited'),
      },
    },
    ['Retry-After'],
  ),
  InternalError: problemResponse(500, 'Our mistake (logged); never the answer to a client mistake.', {
    internal: { value: problem(500, 'Something went wrong on our side. It has been logged.', 'internal') },
  }),
};

export const responseRef = (name: string): Reference => ({ $ref: `#/components/responses/${name}` });

// ---- Security ----

/** Any credential: a key (either header), an OAuth token with `scope`, or the browser session. */
export function anyCredential(scope: 'read' | 'write'): SecurityRequirement[] {
  return [{ [SCHEMES.bearer]: [] }, { [SCHEMES.header]: [] }, { [SCHEMES.oauth2]: [scope] }, { [SCHEMES.session]: [] }];
}

/** Operations API keys may not do (403 for them): an OAuth token with `scope` or the browser session. */
export function notApiKey(scope: 'read' | 'write'): SecurityRequirement[] {
  return [{ [SCHEMES.oauth2]: [scope] }, { [SCHEMES.session]: [] }];
}

function securitySchemes(config: Config): ComponentsObject['securitySchemes'] {
  const base = config.baseUrl;
  return {
    [SCHEMES.bearer]: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'tok_live_ + 32 base62 characters (personal access token), or a JWT (OAuth access token)',
      description:
        'A personal access token (API key): `Authorization: Bearer tok_live_...`. A key is bound to one organization and acts as the user who ' +
        "created it, with that user's current role there. OAuth access tokens (see `oauth2`) are sent the same way: JWTs handled per RFC8725 " +
        '(JWT Best Current Practices), as `oauth2` says.',
    },
    [SCHEMES.header]: {
      type: 'apiKey',
      in: 'header',
      name: 'X-Auth-Token',
      description:
        'The same token (`tok_live_...` or an OAuth access token) for when a proxy strips `Authorization`. Sent with `Authorization`, both must carry the same token (else 400 `conflicting_credentials`).',
    },
    [SCHEMES.oauth2]: {
      type: 'oauth2',
      description:
        `OAuth 2.1 authorization code with PKCE (S256 required) and \`resource=${base}/api\` (RFC 8707) on both the authorization and the token request. ` +
        `Clients register at \`${base}/oauth/register\` (RFC 7591); metadata at \`${base}/.well-known/oauth-authorization-server\`. ` +
        'The consent page picks one organization, fixed for every token of the grant. Access tokens are JWTs valid 1 hour, sent as `Authorization: Bearer`; ' +
        'refresh tokens rotate on every use. Without `write`, mutations get 403 `insufficient_scope`.\n\n' +
        'Access tokens follow RFC8725 (JSON Web Token Best Current Practices) and the RFC 9068 profile: signed with ES256 only ' +
        `(keys at \`${base}/oauth/jwks\`), never \`none\` or another algorithm; explicitly typed \`at+jwt\`, so no other kind of JWT passes ` +
        `for one; \`iss\` must be \`${base}\` and \`aud\` \`${base}/api\`; \`exp\` is checked on every request. Treat them as opaque: they may change form.`,
      flows: {
        authorizationCode: {
          authorizationUrl: `${base}/oauth/authorize`,
          tokenUrl: `${base}/oauth/token`,
          refreshUrl: `${base}/oauth/token`,
          scopes: { ...SCOPES },
        },
      },
      'x-pkce-required': true,
      'x-code-challenge-methods-supported': ['S256'],
    },
    [SCHEMES.session]: {
      type: 'apiKey',
      in: 'cookie',
      name: sessionCookieName(config),
      description:
        'The browser session from `/login` (HttpOnly, SameSite=Lax; 30 days from last use, at most 90). Writes must carry an `Origin` (or `Referer`) ' +
        'of this service (else 403 `csrf_rejected`). With several organizations, pick one with `X-Org-Id`.',
    },
  };
}

/** The components every route refers to; the generator adds the routes' own schemas. */
export function protocolComponents(config: Config): ComponentsObject {
  return {
    schemas: { ...problemSchemas, ...graphql },
    responses,
    parameters,
    headers,
    securitySchemes: securitySchemes(config),
  };
}

/** The rate-limit policies an operation draws from, for `x-rate-limit-policies`. */
export function policies(...route: { name: string; limit: number; windowMs: number }[]) {
  return [GLOBAL_POLICY, ...route].map((p) => ({ name: p.name, limit: p.limit, window_seconds: p.windowMs / 1000 }));
}

const JSON_TYPE = 'application/json';

/** POST /graphql: not a REST route, but the same credentials, limits and problems. */
export function graphqlPathItem() {
  return {
    post: {
      operationId: 'graphql',
      summary: 'GraphQL',
      description:
        'GraphQL over HTTP with the same credentials and rules as REST (every REST route and GraphQL field calls the same operation). The schema is `schema.graphql`; ' +
        'GraphiQL answers a browser here when not in production. Answered as `application/graphql-response+json` when the client accepts it, else `application/json`.',
      tags: ['GraphQL'],
      security: anyCredential('read'),
      parameters: [paramRef('XOrgId')],
      requestBody: {
        required: true,
        content: {
          [JSON_TYPE]: {
            schema: ref('GraphQLRequest'),
            examples: { me: { value: { query: '{ me { id username } }' } } },
          },
        },
      },
      responses: {
        '200': {
          description: 'A GraphQL result (which may hold `errors`).',
          headers: withRateLimitHeaders(),
          content: {
            [JSON_TYPE]: {
              schema: ref('GraphQLResponse'),
              examples: {
                me: { value: { data: { me: { id: '5b0c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3', username: 'olivia' } } } },
              },
            },
            'application/graphql-response+json': { schema: ref('GraphQLResponse') },
          },
        },
        '400': {
          description: 'A request GraphQL refused before running it (unparsable, invalid, over a query limit).',
          headers: withRateLimitHeaders(),
          content: {
            [JSON_TYPE]: { schema: ref('GraphQLResponse') },
            'application/graphql-response+json': {
              schema: ref('GraphQLResponse'),
              examples: {
                syntax: {
                  value: {
                    errors: [
                      { message: 'Syntax Error: Expected Name, found <EOF>.', locations: [{ line: 1, column: 3 }] },
                    ],
                  },
                },
              },
            },
          },
        },
        '401': responseRef('Unauthorized'),
        '406': problemResponse(406, '`Accept` names no format this endpoint answers in; nothing ran.', {
          not_acceptable: {
            value: problem(
              406,
              'This endpoint answers in JSON: accept application/graphql-response+json or application/json.',
              'not_acceptable',
            ),
          },
        }),
        '403': {
          description:
            'As for REST (a problem); or, for a mutation with a read-only OAuth token, a GraphQL result with `extensions.code = "INSUFFICIENT_SCOPE"`.',
          headers: withRateLimitHeaders(),
          content: {
            'application/problem+json': { schema: ref('ForbiddenProblem') },
            [JSON_TYPE]: { schema: ref('GraphQLResponse') },
            'application/graphql-response+json': { schema: ref('GraphQLResponse') },
          },
        },
        '413': responseRef('PayloadTooLarge'),
        '415': responseRef('UnsupportedMediaType'),
        '429': responseRef('TooManyRequests'),
        '431': responseRef('RequestHeaderFieldsTooLarge'),
        '500': responseRef('InternalError'),
      },
      'x-rate-limit-policies': policies(),
    },
  };
}
