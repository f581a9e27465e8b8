import { UNMATCHED_ROUTE } from '../ops/observe.js';
import { reportRoute } from '../ops/request-scope.js';
import type { Step } from './pipeline.js';

/**
 * The pipeline's route step for the API: the route template is reported before the credentials
 * are checked, so a refused request is still counted under its route (src/ops/request-scope.ts).
 * GraphQL and MCP are one route each; pages report the route their router matched, after it.
 *
 * @param restTemplate the template of the REST route a method and path go to.
 */
export function routeLabel(restTemplate: (method: string, path: string) => string | undefined): Step {
  return (context, next) => {
    const { request, url, surface, scope } = context;
    if (surface.name === 'graphql' || surface.name === 'mcp') reportRoute(scope, url.pathname);
    else if (surface.name === 'rest') reportRoute(scope, restTemplate(request.method, url.pathname) ?? UNMATCHED_ROUTE);
    return next();
  };
}
