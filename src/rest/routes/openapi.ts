import { createHash } from 'node:crypto';
import type { Config } from '../../config.js';
import type { OpenAPIObject } from 'openapi3-ts/oas31';
import { route } from '../route.js';
import { Response } from '../../http/fetch-api.js';

const etagMatches = (header: string | null, etag: string) =>
  !!header && header.split(',').some((tag) => ['*', etag, `W/${etag}`].includes(tag.trim()));

/**
 * GET /api/openapi.json: public (answered before the credential check), cacheable. `document`
 * makes the document of every route, this one included (src/rest/routes/index.ts), so the
 * route does not import the list it is part of.
 */
export function openApiRoute(document: (config: Config) => OpenAPIObject) {
  /** The serialized document and its ETag, per base URL (the document depends on nothing else). */
  const serialized = new Map<string, { body: string; etag: string }>();
  function documentFor(config: Config): { body: string; etag: string } {
    let entry = serialized.get(config.baseUrl);
    if (!entry) {
      const body = JSON.stringify(document(config));
      entry = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
      serialized.set(config.baseUrl, entry);
    }
    return entry;
  }
  return route({
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI document',
    description: 'Public: no credential needed (one sent is ignored). Cacheable, with an ETag.',
    tag: 'Meta',
    success: { status: 200, description: 'The document.' },
    async handle(ctx, { request }) {
      const { body, etag } = documentFor(ctx.config);
      const headers = {
        'cache-control': 'public, max-age=300',
        etag,
      };
      if (etagMatches(request.headers.get('if-none-match'), etag)) return new Response(null, { status: 304, headers });
      return new Response(body, {
        status: 200,
        headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
      });
    },
  });
}
