import { createHash } from 'node:crypto';
import type { Config } from '../config.js';
import type { Context } from '../context.js';
import { anyCredential, components } from './openapi/components.js';
import { paths } from './openapi/paths.js';
import type { OpenApiDocument } from './openapi/types.js';

/**
 * The OpenAPI 3.1 description of the REST surface, as a typed object. Enumerations and limits
 * come from the code that enforces them (workflow, roles, scopes, rate-limit policies, GraphQL
 * enums), so the document follows the service; test/openapi.test.ts checks real responses
 * against it.
 */
export function openApiDocument(config: Config): OpenApiDocument {
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'workmgmt API',
      version: '1.0.0',
      summary: 'Multi-tenant work management: organizations > projects > issues.',
      description:
        'Every route needs a credential (a personal access token, an OAuth access token or the browser session), except this document. ' +
        'Everything a request does happens inside one organization (the token\'s, or the one `X-Org-Id` picks for a session); another ' +
        'organization\'s resources answer 404 exactly like missing ones.\n\n' +
        'Bodies are JSON; unknown fields are refused (400). Errors are RFC 9457 `application/problem+json` with a stable `code` ' +
        '(and `errors[]` for `validation_failed`). An unknown path is 404 `not_found`; a known path with another method is 405 ' +
        '`method_not_allowed` with `Allow`.\n\n' +
        'Every response carries the rate-limit headers: a global bucket of 600 requests per 60 s per credential, plus a bucket of their own ' +
        'for some operations (`x-rate-limit-policies`). On 429 wait `Retry-After` seconds.',
    },
    servers: [{ url: `${config.baseUrl}/api`, description: 'This service' }],
    // The default; every operation states its own (reads, writes, not with an API key, public).
    security: anyCredential('read'),
    tags: [
      { name: 'Me', description: 'The caller.' },
      { name: 'Projects', description: 'Projects of the organization.' },
      { name: 'Issues', description: 'Issues of the organization\'s projects.' },
      { name: 'API keys', description: 'Personal access tokens.' },
      { name: 'Organizations', description: 'Organizations, the public directory and invitations.' },
      { name: 'Search', description: 'People and command-palette search.' },
      { name: 'GraphQL', description: 'The GraphQL API every REST route runs on.' },
      { name: 'Meta', description: 'This document.' },
    ],
    paths: paths(),
    components: components(config),
  };
}

/** The serialized document and its ETag, per base URL (the document depends on nothing else). */
const serialized = new Map<string, { body: string; etag: string }>();

function documentFor(config: Config): { body: string; etag: string } {
  let entry = serialized.get(config.baseUrl);
  if (!entry) {
    const body = JSON.stringify(openApiDocument(config));
    entry = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    serialized.set(config.baseUrl, entry);
  }
  return entry;
}

const etagMatches = (header: string | null, etag: string) =>
  !!header && header.split(',').some((tag) => ['*', etag, `W/${etag}`].includes(tag.trim()));

/** GET /api/openapi.json: public (app.ts serves it before the credential check), cacheable. */
export async function getOpenApiDocument(request: Request, ctx: Context): Promise<Response> {
  const { body, etag } = documentFor(ctx.config);
  const headers = {
    'cache-control': 'public, max-age=300',
    etag,
    // A public description that browser tools (Swagger UI, Redoc) on other origins may load.
    'access-control-allow-origin': '*',
  };
  if (etagMatches(request.headers.get('if-none-match'), etag)) return new Response(null, { status: 304, headers });
  return new Response(body, { status: 200, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
}
