import { reauthenticate } from '../auth/authenticate.js';
import type { Context } from '../context.js';
import type { Yoga } from '../graphql/yoga.js';
import { reportRoute } from '../ops/request-scope.js';
import { problemResponse, problems } from '../http/problem.js';
import { notFoundPage } from '../web/org-page.js';
import { operationContext, type RequestContext } from './request-context.js';

/** A browser asking for a page (Accept names HTML before JSON): it gets the HTML 404 page, an API client problem+json. */
function wantsHtml(request: Request): boolean {
  const accept = request.headers.get('accept') ?? '';
  const html = accept.indexOf('text/html');
  const json = accept.search(/application\/(problem\+)?json/);
  return html >= 0 && (json < 0 || html < json);
}

const notFound = (request: Request) => (wantsHtml(request) ? notFoundPage() : problemResponse(problems.notFound()));

/** A router of its own (itty-router) that a surface's requests are handed to. */
interface Router {
  fetch(request: Request, ctx: Context): Promise<Response>;
}

/** What serves each surface of the table (src/http/surfaces.ts). */
export interface SurfaceHandlers {
  /** The API reference, its assets, GraphiQL's and the charts' files: null for a path none of them has. */
  publicDocuments(request: Request, path: string): Response | null;
  /** Pages for people (src/web). */
  pages: Router;
  /** The OAuth server (src/auth/oauth): its consent screen and its back channel. */
  oauth: Router;
  rest: Router;
  graphql: Yoga;
  /** The MCP endpoint (src/mcp). */
  mcp: Router;
}

/**
 * The pipeline's last step: hands the request to what serves its surface, with the operation
 * context made from the request context once every step before has run.
 */
export function createDispatch(handlers: SurfaceHandlers) {
  return async function dispatch(context: RequestContext): Promise<Response> {
    const { request, url, surface, scope } = context;
    switch (surface.name) {
      case 'public-documents':
        return handlers.publicDocuments(request, url.pathname) ?? notFound(request);
      case 'pages':
      case 'oauth-pages':
      case 'oauth': {
        const router = surface.name === 'pages' ? handlers.pages : handlers.oauth;
        const response = await router.fetch(request, operationContext(context));
        // itty-router records the pattern it matched on the request it served.
        const route = (request as { route?: unknown }).route;
        if (typeof route === 'string') reportRoute(scope, route);
        return response;
      }
      case 'graphql': {
        // A subscription checks its credential again before each event (src/schema/core/live.ts).
        const again = () => reauthenticate(context.auth, context.credentials, context.services.credentialEpoch);
        return handlers.graphql.handleRequest(request, operationContext(context, { reauthenticate: again }));
      }
      case 'mcp':
        return handlers.mcp.fetch(request, operationContext(context));
      case 'rest':
        return handlers.rest.fetch(request, operationContext(context));
      case 'operations':
      case 'none':
        return notFound(request);
    }
  };
}
