import { AuthError } from '../auth/auth-error.js';
import { authenticate, reauthenticate } from '../auth/authenticate.js';
import { resourceMetadataUrl } from '../auth/oauth/metadata.js';
import { SCOPE_NAMES } from '../auth/oauth/scopes.js';
import type { Config } from '../config.js';
import { boundedBody } from '../http/body-limit.js';
import { graphqlAuthResponse } from '../graphql/auth-errors.js';
import type { Yoga } from '../graphql/yoga.js';
import { idempotentRequest } from '../idempotency/http.js';
import { UNMATCHED_ROUTE } from '../ops/observe.js';
import { reportAuthFailure, reportRoute, type RequestScope } from '../ops/request-scope.js';
import { problems, withRequestId } from '../rest/problem.js';
import { problemResponse } from '../http/problem.js';
import { AppError } from '../schema/errors.js';
import { isPublicPath } from '../rest/router.js';
import { serveApiDocs } from '../web/api-docs.js';
import { serveChartAssets } from '../web/dashboard.js';
import { serveGraphiQLAsset } from '../web/graphiql.js';
import { notFoundPage } from '../web/org-page.js';
import type { Exchange } from './exchange.js';
import { Response } from '../http/fetch-api.js';

export const MCP_PATH = '/api/mcp';
/** A GraphQL subscription over SSE (yoga's transport): the client accepts an event stream. */
const wantsEventStream = (request: Request) => (request.headers.get('accept') ?? '').includes('text/event-stream');

/** A browser asking for a page (Accept names HTML before JSON): it gets the HTML 404 page, an API client problem+json. */
function wantsHtml(request: Request): boolean {
  const accept = request.headers.get('accept') ?? '';
  const html = accept.indexOf('text/html');
  const json = accept.search(/application\/(problem\+)?json/);
  return html >= 0 && (json < 0 || html < json);
}

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
  /** The MCP endpoint at /api/mcp (src/mcp), authenticated like every /api path. */
  mcp: { fetch(request: Request, ctx: Exchange['ctx']): Promise<Response> };
}

function bearerChallenge(config: Config, error?: AuthError): string {
  const parts = [`realm="${config.baseUrl}/api"`, `resource_metadata="${resourceMetadataUrl(config)}"`, `scope="${SCOPE_NAMES.join(' ')}"`];
  if (error?.bearerError) parts.push(`error="${error.bearerError}"`, `error_description="${error.detail.replace(/"/g, "'")}"`);
  return `Bearer ${parts.join(', ')}`;
}

/** An AuthError as the API's problem, with the RFC 6750 challenge on a 401 (RFC 9728 `resource_metadata`). */
function authProblem(config: Config, error: AuthError, scope: RequestScope): AppError {
  reportAuthFailure(scope, error.code);
  const headers: Record<string, string> = error.status === 401 ? { 'www-authenticate': bearerChallenge(config, error) } : {};
  return new AppError(error.detail, error.problemCode, { headers });
}

/**
 * A 403 insufficient_scope challenge also says where the resource's metadata is (RFC 9728 §5.1),
 * so a client can step up: the operation that refused (src/schema/errors.ts) does not know our URL.
 */
function withResourceMetadata(config: Config, response: Response): Response {
  const challenge = response.headers.get('www-authenticate');
  if (response.status === 403 && challenge?.includes('error="insufficient_scope"') && !challenge.includes('resource_metadata=')) {
    response.headers.set('www-authenticate', `${challenge}, resource_metadata="${resourceMetadataUrl(config)}"`);
  }
  return response;
}

/**
 * Hands the request to the surface that serves its path, after authenticating it as that
 * surface needs: pages with the session cookie only (a bearer token is not a browser's), the
 * API with any credential; public API documents without one.
 */
export function createDispatch(config: Config, surfaces: Surfaces) {
  return async function dispatch(exchange: Exchange): Promise<Response> {
    const { request, url, ctx, credentials, auth, scope } = exchange;
    const path = url.pathname;
    // The API reference and its assets are public: answered before any credential is looked at.
    const docs = serveApiDocs(request, path, config) ?? serveGraphiQLAsset(request, path) ?? serveChartAssets(request, path);
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
      if (typeof route === 'string') reportRoute(scope, route);
      return response;
    }
    if (path !== '/api' && !path.startsWith('/api/')) return wantsHtml(request) ? notFoundPage() : problemResponse(problems.notFound());
    reportRoute(scope, path === '/api/graphql' || path === MCP_PATH ? path : (surfaces.rest.template(request.method, path) ?? UNMATCHED_ROUTE));
    // The API description is public: answered before any credential check (a credential sent with it is ignored).
    if (isPublicPath(path)) return surfaces.rest.fetch(request, ctx);
    // A token in the URL ends up in logs: refused with what the client did wrong, whatever else it sent (RFC 6750 §5.3).
    if (url.searchParams.has('access_token')) {
      const error = new AuthError('token_in_url', 'Send tokens in the Authorization header, never in the URL (where they end up in logs).', 'invalid_request');
      return problemResponse(authProblem(config, error, scope));
    }
    const principal = await authenticate(auth, credentials);
    // GraphQL-over-HTTP clients get the same status and challenge in a GraphQL response body.
    const refuse = (problem: AppError) => (path === '/api/graphql' && graphqlAuthResponse(request, problem)) || problemResponse(problem);
    if (principal instanceof AuthError) return refuse(authProblem(config, principal, scope));
    ctx.principal = principal;
    if (principal.kind === 'anonymous') {
      reportAuthFailure(scope, 'unauthenticated');
      return refuse(
        new AppError('Send a credential: Authorization: Bearer <token> (or X-Auth-Token).', 'UNAUTHENTICATED', {
          headers: { 'www-authenticate': bearerChallenge(config) },
        }),
      );
    }
    const bounded = await boundedBody(request, 'api');
    if (bounded instanceof Response) return bounded;
    if (path === MCP_PATH) return surfaces.mcp.fetch(bounded, ctx);
    if (path === '/api/graphql') {
      // A subscription checks its credential again before each event (src/schema/live.ts).
      ctx.reauthenticate = () => reauthenticate(exchange);
      // A subscription's stream never ends: there is no answer to keep for a retry.
      if (wantsEventStream(bounded)) return surfaces.graphql.handleRequest(bounded, ctx);
    }
    // A POST with an Idempotency-Key runs once; its retries get the first answer (src/idempotency),
    // whose problem names the request that ran.
    return idempotentRequest(ctx.prisma, principal, bounded, async (request) => {
      const response = path === '/api/graphql' ? await surfaces.graphql.handleRequest(request, ctx) : await surfaces.rest.fetch(request, ctx);
      return withRequestId(withResourceMetadata(config, response), scope.id);
    });
  };
}
