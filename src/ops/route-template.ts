import type { RouteEntry } from 'itty-router';

/**
 * The template of the route an itty-router router would dispatch `method path` to, without
 * dispatching it: requests refused before they reach the router (authentication) are still
 * counted under their route. Undefined when nothing matches.
 */
export function routeTemplate(router: { routes: RouteEntry[] }, method: string, path: string): string | undefined {
  for (const [routeMethod, pattern, , template] of router.routes) {
    if ((routeMethod === method || routeMethod === 'ALL') && pattern.test(path) && template !== undefined)
      return template;
  }
  return undefined;
}
