import { AuthError } from '../auth/auth-error.js';
import { authenticate, reauthenticate } from '../auth/authenticate.js';
import { resourceMetadataUrl } from '../auth/oauth/metadata.js';
import type { Config } from '../config.js';
import { boundedBody } from '../http/body-limit.js';
import { graphqlAuthResponse } from '../graphql/auth-errors.js';
import type { Yoga } from '../graphql/yoga.js';
import { UNMATCHED_ROUTE } from '../ops/observe.js';
import { reportAuthFailure, reportRoute } from '../ops/request-scope.js';
import { HttpProblem, problems } from '../rest/problem.js';
import { isPublicPath } from '../rest/router.js';
import { serveApiDocs } from '../web/api-docs.js';
import type { Exchange } from './exchange.js';

/** A surface the dispatcher hands requests to. */
export interface Surface {
  serves(path: string): boolean;
  fetch(request: Request, ctx: Exchange['ctx']): Promise<Response>;
}

export interface Surfaces {
  /** Pages for people (src/web) and the OAuth server (src/auth/oauth); `isPage`: answered with the session only. */
  pages: Surface[];
  isPage(path: string): boolean;
  rest: {
    fetch(request: Request, ctx: Exchange['ctx']): Promise<Response>;
    /** The template of the route a method and path go to (for metrics and the access log). */
    template(method: string, path: string): string | undefined;
  };
  graphql: Yoga;
}

function bearerChallenge(config: Config, error?: AuthError): string {
  const parts = [`realm="${config.baseUrl}/api"`, `resource_metadata="${resourceMetadataUrl(config)}"`];
  if (error?.bearerError) parts.push(`error="${error.bearerError}"`, `error_description="${error.detail.replace(/"/g, "'")}"`);
  return `Bearer ${parts.join(', ')}`;
}

/** An AuthError as the API's problem, with the RFC 6750 challenge on a 401 (RFC 9728 `resource_metadata`). */
function authProblem(config: Config, error: AuthError): HttpProblem {
  reportAuthFailure(error.code);
  const headers: Record<string, string> = error.status === 401 ? { 'www-authenticate': bearerChallenge(config, error) } : {};
  return new HttpProblem(error.status, error.code.toUpperCase(), error.detail, undefined, headers);
}

/**
 * Hands the request to the surface that serves its path, after authenticating it as that
 * surface needs: pages with the session cookie only (a bearer token is not a browser's), the
 * API with any credential; public API documents without one.
 */
export function createDispatch(config: Config, surfaces: Surfaces) {
  return async function dispatch(exchange: Exchange): Promise<Response> {
    const { request, url, ctx, credentials, auth } = exchange;
    const path = url.pathname;
    // The API reference and its assets are public: answered before any credential is looked at.
    const docs = serveApiDocs(request, path, config);
    if (docs) return docs;
    const page = surfaces.pages.find((surface) => surface.serves(path));
    if (page) {
      if (surfaces.isPage(path)) {
        const principal = await authenticate(auth, { ...credentials, token: null });
        if (!(principal instanceof AuthError)) ctx.principal = principal;
      }
      const bounded = await boundedBody(request, surfaces.isPage(path) ? 'page' : 'oauth');
      if (bounded instanceof Response) return bounded;
      const response = await page.fetch(bounded, ctx);
      // itty-router records the pattern it matched on the request it served: the bounded copy.
      const route = (bounded as { route?: unknown }).route;
      if (typeof route === 'string') reportRoute(route);
      return response;
    }
    if (path !== '/api' && !path.startsWith('/api/')) return problems.notFound().toResponse();
    reportRoute(path === '/api/graphql' ? path : (surfaces.rest.template(request.method, path) ?? UNMATCHED_ROUTE));
    // The API description is public: answered before any credential check (a credential sent with it is ignored).
    if (isPublicPath(path)) return surfaces.rest.fetch(request, ctx);
    // A token in the URL ends up in logs: refused with what the client did wrong, whatever else it sent (RFC 6750 §5.3).
    if (url.searchParams.has('access_token')) {
      const error = new AuthError(401, 'token_in_url', 'Send tokens in the Authorization header, never in the URL (where they end up in logs).', 'invalid_request');
      return authProblem(config, error).toResponse();
    }
    const principal = await authenticate(auth, credentials);
    // GraphQL-over-HTTP clients get the same status and challenge in a GraphQL response body.
    const refuse = (problem: HttpProblem) => (path === '/api/graphql' && graphqlAuthResponse(request, problem)) || problem.toResponse();
    if (principal instanceof AuthError) return refuse(authProblem(config, principal));
    ctx.principal = principal;
    if (principal.kind === 'anonymous') {
      reportAuthFailure('unauthenticated');
      return refuse(
        new HttpProblem(401, 'UNAUTHENTICATED', 'Send a credential: Authorization: Bearer <token> (or X-Auth-Token).', undefined, {
          'www-authenticate': bearerChallenge(config),
        }),
      );
    }
    const bounded = await boundedBody(request, 'api');
    if (bounded instanceof Response) return bounded;
    if (path === '/api/graphql') {
      // A subscription checks its credential again before each event (src/schema/live.ts).
      ctx.reauthenticate = () => reauthenticate(exchange);
      return surfaces.graphql.handleRequest(bounded, ctx);
    }
    return surfaces.rest.fetch(bounded, ctx);
  };
}
