import { Response } from './fetch-api.js';

/** REST's media type: it says its charset. Other JSON answers (OAuth, health, MCP) use plain `application/json`. */
export const JSON_UTF8 = 'application/json; charset=utf-8';

/**
 * A JSON response, for every surface that answers JSON itself (REST, OAuth, health, MCP's own
 * refusals): its status, media type and headers (caching, links, challenges) are the caller's.
 */
export function json(
  body: unknown,
  init: { status?: number; type?: string; headers?: Record<string, string> } = {},
): Response {
  return new Response(JSON.stringify(body), {
    status: init.status ?? 200,
    headers: { 'content-type': init.type ?? 'application/json', ...init.headers },
  });
}

/** 204: done, nothing to say. */
export function noContent(): Response {
  return new Response(null, { status: 204 });
}
