import { Headers, Response } from '../http/fetch-api.js';
import type { Surface } from '../http/surfaces.js';
import type { Step } from './pipeline.js';

/**
 * CORS (Fetch standard, "CORS protocol") for the endpoints a browser app on another origin
 * calls with a bearer token: the surfaces whose `cors` rule is set (src/http/surfaces.ts), every
 * /api route, the OAuth metadata, JWKS, registration, token, revocation and introspection
 * endpoints. Pages (the consent screen, sign-in, /api/docs) get no CORS headers: they are for
 * this service's own origin.
 *
 * Never `Access-Control-Allow-Credentials`: a browser then refuses any cross-origin read made
 * with cookies, so the session cookie never works from another origin (and cookie-authenticated
 * writes still need this service as Origin, src/pipeline/csrf.ts). With every origin allowed the
 * answer is the literal `*`, which browsers refuse to combine with credentials whatever else
 * a later change might add.
 *
 * Written here rather than taken from itty-router's `cors()` (its `corsify` rebuilds the
 * response without its status: a 404 comes out as 200) or @whatwg-node/server's (it echoes
 * the Origin with `Access-Control-Allow-Credentials: true` unless told otherwise).
 */

/** Request headers a browser app may send: credentials, JSON bodies, retries, and MCP's Streamable HTTP (both eras). */
export const CORS_ALLOW_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'If-None-Match',
  'Last-Event-ID',
  'Mcp-Method',
  'Mcp-Name',
  'Mcp-Protocol-Version',
  'Mcp-Session-Id',
  'X-Auth-Token',
  'X-MCP-Readonly',
  'X-MCP-Toolsets',
  'X-Org-Id',
  'X-Request-Id',
] as const;

/** Response headers a browser app must be able to read (others but the CORS-safelisted ones are hidden from it). */
export const CORS_EXPOSE_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Link',
  'Location',
  'WWW-Authenticate',
  'X-Request-Id',
  'ETag',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
] as const;

const CORS_ALLOW_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** How long a browser may reuse a preflight's answer (Chromium caps it at 2 hours). */
const CORS_MAX_AGE_SECONDS = 7200;

/** `*`: any origin; otherwise the exact origins (`https://app.example.org`) CORS_ORIGINS lists. */
export type CorsOrigins = '*' | readonly string[];

export interface Cors {
  /** The answer to a CORS preflight on a CORS surface: 204 and nothing else done (no credential, no rate limit, no database). */
  preflight(request: Request, surface: Surface): Response | null;
  /** The pipeline's step that adds the CORS headers to the answers of a CORS surface. */
  step: Step;
}

/**
 * @example
 *   const cors = createCors('*');
 *   return cors.preflight(request, surfaceOf(path)) ?? runTheRest();
 */
export function createCors(origins: CorsOrigins): Cors {
  /** The Access-Control-Allow-Origin to send, or null when the request's origin is not allowed. */
  function allowOrigin(request: Request): string | null {
    if (origins === '*') return '*';
    const origin = request.headers.get('origin');
    return origin !== null && origins.includes(origin) ? origin : null;
  }
  function setOrigin(request: Request, headers: Headers): boolean {
    // With a list, the answer depends on Origin: shared caches must keep one copy per origin.
    if (origins !== '*') headers.append('vary', 'Origin');
    const allowed = allowOrigin(request);
    if (allowed) headers.set('access-control-allow-origin', allowed);
    return allowed !== null;
  }
  return {
    preflight(request, surface) {
      if (request.method !== 'OPTIONS' || !request.headers.has('access-control-request-method') || !surface.cors)
        return null;
      const headers = new Headers({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
      // An origin not allowed gets an answer without permissions: the browser then refuses the request.
      if (setOrigin(request, headers)) {
        headers.set('access-control-allow-methods', CORS_ALLOW_METHODS.join(', '));
        headers.set('access-control-allow-headers', CORS_ALLOW_HEADERS.join(', '));
        headers.set('access-control-max-age', String(CORS_MAX_AGE_SECONDS));
      }
      return new Response(null, { status: 204, headers });
    },
    async step(context, next) {
      const response = await next();
      if (!context.surface.cors) return response;
      if (setOrigin(context.request, response.headers))
        response.headers.set('access-control-expose-headers', CORS_EXPOSE_HEADERS.join(', '));
      return response;
    },
  };
}
