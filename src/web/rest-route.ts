import type { Context } from '../context.js';
import { queryObject } from '../rest/inputs.js';
import type { Route, RouteResult } from '../rest/route.js';
import { ROUTES } from '../rest/routes/index.js';
import { ValidationError } from '../schema/core/errors.js';
import { fieldErrors, messages } from '../schema/core/validate.js';

/**
 * A page that shows what a REST GET answers (the issue list: its filters, sorts and cursors in
 * the page's own URL, so a page address is as shareable as an API one) runs the route
 * declaration itself: the same query parameters, the same checks and messages, the same
 * operation. A mistake in the query is the operation's ValidationError, as on the API.
 */
export async function runGetRoute(
  operationId: string,
  ctx: Context,
  url: URL,
): Promise<{ body: unknown; headers: Record<string, string> }> {
  const route: Route | undefined = ROUTES.find((r) => r.operationId === operationId && r.method === 'get');
  if (!route?.query) throw new Error(`no GET route with a query for ${operationId}`);
  await route.operation?.admit(ctx);
  const parsed = route.query.safeParse(queryObject(url), { error: messages });
  if (!parsed.success) throw new ValidationError(fieldErrors(parsed.error));
  const result = (await route.handle(ctx, {
    params: {},
    query: parsed.data as Record<string, unknown>,
    body: {},
    url,
    request: new Request(url),
  })) as RouteResult;
  return { body: result.body, headers: (result.headers ?? {}) as Record<string, string> };
}
