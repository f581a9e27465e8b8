import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig } from '@asteasolutions/zod-to-openapi';
import type { InfoObject, OpenAPIObject, OperationObject, ReferenceObject } from 'openapi3-ts/oas31';
import type { Config } from '../config.js';
import { restAnswerSentence } from './answer-shape.js';
import { withImpliedBounds } from './openapi-bounds.js';
import {
  anyCredential,
  graphqlPathItem,
  notApiKey,
  paramRef,
  policies,
  problem,
  problemResponse,
  protocolComponents,
  responseRef,
  withRateLimitHeaders,
} from './openapi-protocol.js';
import type { Route } from './route.js';

const JSON_TYPE = 'application/json';

function security(route: Route) {
  if (!route.operation) return [];
  return route.operation.access.notPat ? notApiKey(route.operation.kind) : anyCredential(route.operation.kind);
}

/** What a route answers: its success, its own errors, and those every request can get. */
function responses(route: Route): Record<string, ResponseConfig | ReferenceObject> {
  const { success } = route;
  const documented: Record<string, ResponseConfig | ReferenceObject> = {
    [success.status]: {
      description: success.description,
      headers: withRateLimitHeaders(success.headers ?? []),
      ...(success.schema
        ? {
            content: {
              [JSON_TYPE]: {
                schema: success.schema,
                examples: Object.fromEntries(
                  Object.entries(success.examples ?? {}).map(([name, value]) => [name, { value }]),
                ),
              },
            },
          }
        : {}),
    },
  };
  if (!route.operation) {
    const document = {
      description: success.description,
      headers: withRateLimitHeaders(['Cache-Control', 'ETag']),
      content: { [JSON_TYPE]: { schema: { $ref: '#/components/schemas/OpenApiDocument' } } },
    };
    // No credential is read, so no 400 or 401; the global rate limit still applies.
    return {
      '200': document,
      '304': {
        description: 'Not modified (`If-None-Match`).',
        headers: withRateLimitHeaders(['Cache-Control', 'ETag']),
      },
      '429': responseRef('TooManyRequests'),
      '431': responseRef('RequestHeaderFieldsTooLarge'),
      '500': responseRef('InternalError'),
    };
  }
  const own = Object.entries(route.errors ?? {}).map(([status, description]) => {
    const code = status === '404' ? 'not_found' : 'conflict';
    const example = problem(Number(status) as 404 | 409, description!, code);
    return [
      status,
      problemResponse(Number(status) as 404 | 409, description!, { [code]: { value: example } }),
    ] as const;
  });
  Object.assign(documented, {
    '400': responseRef('BadRequest'),
    '401': responseRef('Unauthorized'),
    '403': responseRef('Forbidden'),
    ...Object.fromEntries(own),
    ...(route.body ? { '413': responseRef('PayloadTooLarge'), '415': responseRef('UnsupportedMediaType') } : {}),
    '429': responseRef('TooManyRequests'),
    '431': responseRef('RequestHeaderFieldsTooLarge'),
    '500': responseRef('InternalError'),
  });
  if (route.method === 'post') idempotencyResponses(documented);
  return Object.fromEntries(Object.entries(documented).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * What an `Idempotency-Key` adds to a POST: 422 and the 409s (merged into a route's own 409),
 * and `Idempotent-Replayed` on the success.
 */
function idempotencyResponses(documented: Record<string, ResponseConfig | ReferenceObject>): void {
  for (const response of Object.values(documented)) {
    if ('headers' in response && response.headers && !('$ref' in response))
      (response.headers as Record<string, unknown>)['Idempotent-Replayed'] = {
        $ref: '#/components/headers/Idempotent-Replayed',
      };
  }
  documented['422'] = responseRef('IdempotencyKeyReused');
  const own = documented['409'];
  if (!own) documented['409'] = responseRef('IdempotencyConflict');
  else if (!('$ref' in own))
    own.description +=
      ' Or the `Idempotency-Key` is taken (`idempotency_key_in_use`, with `Retry-After`; `idempotency_request_applied`; `idempotency_outcome_unknown`).';
}

// OpenAPI 3.1 has info.summary; openapi3-ts' InfoObject does not declare it.
const INFO: InfoObject = {
  title: 'workmgmt API',
  version: '1.0.0',
  ...{ summary: 'Multi-tenant work management: organizations > projects > issues.' },
  description:
    'Every route needs a credential (a personal access token, an OAuth access token or the browser session), except this document. ' +
    "Everything a request does happens inside one organization (the token's, or the one `X-Org-Id` picks for a session); another " +
    "organization's resources answer 404 exactly like missing ones.\n\n" +
    'Bodies are JSON; unknown fields are refused (400). Errors are RFC 9457 `application/problem+json` with a stable `code` ' +
    '(and `errors[]` for `validation_failed`, listing every bad field of the request at once). An unknown path is 404 `not_found`; a known path with another method is 405 ' +
    '`method_not_allowed` with `Allow`.\n\n' +
    'Every response carries the rate-limit headers: a global bucket of 600 requests per 60 s per credential, plus a bucket of their own ' +
    'for some operations (`x-rate-limit-policies`). On 429 wait `Retry-After` seconds.',
};

const TAGS = [
  { name: 'Me', description: 'The caller.' },
  { name: 'Projects', description: 'Projects of the organization.' },
  { name: 'Issues', description: "Issues of the organization's projects." },
  { name: 'Labels', description: "The organization's labels, which its issues carry." },
  { name: 'API keys', description: 'Personal access tokens.' },
  { name: 'Organizations', description: 'Organizations, the public directory and invitations.' },
  { name: 'Search', description: 'People and command-palette search.' },
  {
    name: 'Webhooks',
    description: "Signed notifications of the organization's issue and project changes, and their deliveries.",
  },
  { name: 'GraphQL', description: 'The GraphQL API, over the same operations.' },
  { name: 'Meta', description: 'This document.' },
];

/**
 * The OpenAPI 3.1 description of the REST surface, generated from the route declarations (and
 * the zod schemas they are made of), so it documents exactly what the router serves and
 * validates. test/openapi.test.ts checks real responses of every route against it. `routes` is
 * every route (ROUTES of src/rest/routes/index.ts), passed in because the document is one of them.
 */
export function openApiDocument(config: Config, routes: readonly Route[]): OpenAPIObject {
  const registry = new OpenAPIRegistry();
  for (const route of routes) {
    registry.registerPath({
      method: route.method,
      path: route.path,
      operationId: route.operationId,
      summary: route.summary,
      description:
        [restAnswerSentence(route), route.description ?? route.operation?.description].filter(Boolean).join(' ') ||
        undefined,
      tags: [route.tag],
      security: security(route),
      request: {
        ...(route.params ? { params: route.params } : {}),
        ...(route.query ? { query: route.query } : {}),
        ...(route.body
          ? {
              body: {
                required: true,
                content: Object.fromEntries(
                  (route.bodyTypes ?? [JSON_TYPE]).map((type) => [type, { schema: route.body! }]),
                ),
              },
            }
          : {}),
      },
      responses: responses(route),
      'x-rate-limit-policies': policies(...(route.operation?.rateLimit ? [route.operation.rateLimit.policy] : [])),
    });
  }
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { ...INFO, contact: { name: 'The API reference', url: `${config.baseUrl}/api/docs` } },
    servers: [
      {
        url: `${config.baseUrl}/api`,
        // OWASP API9 (inventory): who the server is for, and which environment it is.
        description: `This service (${config.production ? 'production' : 'local development or test'}), at BASE_URL.`,
        'x-internal': false,
      },
    ],
    security: anyCredential('read'),
    tags: TAGS,
  });
  Object.assign(document, { jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base' });
  const protocol = protocolComponents(config);
  const generated = document.components ?? {};
  document.components = {
    ...protocol,
    schemas: { ...generated.schemas, ...protocol.schemas },
    parameters: { ...generated.parameters, ...protocol.parameters },
  };
  delete document.webhooks;
  // Every operation may name the organization to act in.
  for (const item of Object.values(document.paths ?? {})) {
    for (const op of Object.values(item) as OperationObject[]) {
      if (op.operationId !== 'getOpenApiDocument') op.parameters = [...(op.parameters ?? []), paramRef('XOrgId')];
    }
    if (item.post) item.post.parameters = [...(item.post.parameters ?? []), paramRef('IdempotencyKey')];
  }
  const graphqlItem = graphqlPathItem();
  graphqlItem.post.parameters = [...graphqlItem.post.parameters, paramRef('IdempotencyKey')];
  idempotencyResponses(graphqlItem.post.responses as Record<string, ResponseConfig | ReferenceObject>);
  document.paths = { ...document.paths, '/graphql': graphqlItem };
  return withImpliedBounds(document);
}
