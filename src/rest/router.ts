import { Router, type IRequest, type RouteEntry } from 'itty-router';
import type { z } from 'zod';
import type { Context } from '../context.js';
import { routeWithoutQuery } from '../http/routing.js';
import type { Logger } from '../logger.js';
import { requestLogger } from '../ops/request-scope.js';
import { AppError, type FieldError } from '../schema/core/errors.js';
import { inputShapeError } from '../schema/core/input-shape.js';
import { fieldErrors, messages } from '../schema/core/validate.js';
import { readJsonObject } from './body.js';
import { problemFrom } from './errors.js';
import { queryObject } from './inputs.js';
import { JSON_UTF8, json, noContent } from '../http/json.js';
import { problemResponse, problems } from '../http/problem.js';
import type { Route, RouteInput, RouteResult } from './route.js';
import { ROUTES } from './routes/index.js';
import { Response } from '../http/fetch-api.js';
import { requestUrl } from '../http/request-url.js';
import { PATHS } from '../http/surfaces.js';

/** `/issues/{id}` (OpenAPI) -> `/issues/:id` (itty-router). */
const ittyPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/** Path segments as sent are percent-encoded; one that does not decode names nothing here. */
function decodeParams(params: Record<string, string | undefined>): Record<string, string> {
  try {
    return Object.fromEntries(Object.entries(params).map(([name, value]) => [name, decodeURIComponent(value ?? '')]));
  } catch {
    throw problems.notFound();
  }
}

/** Parses one part of a request with its schema, adding every mistake to `errors`. */
function parsePart(
  schema: z.ZodObject | undefined,
  value: unknown,
  errors: FieldError[],
  items?: readonly string[],
): Record<string, unknown> {
  if (!schema) return {};
  const result = schema.safeParse(value, { error: messages });
  if (result.success) return result.data as Record<string, unknown>;
  errors.push(...fieldErrors(result.error, items));
  return {};
}

/** The parts of a request a route reads, before validation: path parameters, query (text, as a URL gives it), JSON body. */
export interface RawRouteInput {
  /** A function, like body: REST decodes the path (a malformed one is 404) after the caller is admitted. */
  params: () => Record<string, string>;
  query: Record<string, string | string[]>;
  /** Read only once the operation admitted the caller, so a caller who may not call it learns that first. */
  body: () => Promise<unknown>;
}

/**
 * Runs one declared route: the operation's checks first (who may call it, its bucket), then the
 * input's size and shape, then every part of the input at once (one 400 lists every mistake),
 * then the operation itself.
 * Throws an AppError, in its REST form, for every expected failure. REST and the MCP tools (src/mcp) both call it,
 * so a tool obeys exactly what the route obeys.
 */
export async function runRoute(
  route: Route,
  ctx: Context,
  raw: RawRouteInput,
  url: URL,
  request: Request,
): Promise<RouteResult | Response> {
  try {
    await route.operation?.admit(ctx);
    const body = route.body ? await raw.body() : undefined;
    // Before any rule walks them (src/schema/core/input-shape.ts): one error, at the first excess.
    const excess = inputShapeError(raw.query, 'query') ?? (route.body ? inputShapeError(body, 'body') : null);
    if (excess) throw problems.validation([excess]);
    const errors: FieldError[] = [];
    const input: RouteInput = {
      params: parsePart(route.params, raw.params(), errors),
      query: parsePart(route.query, raw.query, errors),
      body: route.body ? parsePart(route.body, body, errors, route.operation?.items) : {},
      url,
      request,
    };
    if (errors.length) throw problems.validation(errors);
    return await route.handle(ctx, input);
  } catch (error) {
    if (error instanceof AppError) throw problemFrom(error, route.names);
    throw error;
  }
}

/** Serves one declared route over HTTP. */
async function serve(
  route: Route,
  request: Request,
  ctx: Context,
  params: Record<string, string | undefined>,
): Promise<Response> {
  const url = requestUrl(request);
  const raw = { params: () => decodeParams(params), query: queryObject(url), body: () => readJsonObject(request) };
  const result = await runRoute(route, ctx, raw, url, request);
  if (result instanceof Response) return result;
  if (route.success.status === 204) return noContent();
  return json(result.body, {
    status: route.success.status,
    type: JSON_UTF8,
    headers: result.headers as Record<string, string>,
  });
}

/** The REST surface under /api, made from the route declarations (src/rest/routes). */
export function createRestRouter(logger: Logger): {
  routes: RouteEntry[];
  fetch(request: Request, ctx: Context): Promise<Response>;
} {
  const router = Router<IRequest, [Context, Request]>({
    base: PATHS.api,
    catch: (error: unknown, _routing: IRequest, ctx: Context) => {
      if (error instanceof AppError) return problemResponse(error);
      requestLogger(logger, ctx.scope).error({ err: error }, 'unexpected error in a REST route');
      return problemResponse(problems.internal());
    },
  });
  for (const route of ROUTES) {
    router[route.method](ittyPath(route.path), (routing: IRequest, ctx: Context, request: Request) =>
      serve(route, request, ctx, routing.params),
    );
  }
  // itty-router lets every route match with trailing slashes too (`/projects/` is `/projects`).
  // A REST path names one resource, so `/api/projects/` is an unknown path like any other.
  for (const entry of router.routes) entry[1] = new RegExp(entry[1].source.replace(/\\?\/\*\$$/, '$'));
  router.all('*', (request: IRequest) => {
    const path = requestUrl(request).pathname;
    const allow = router.routes
      .filter(([method, pattern]) => method !== 'ALL' && pattern.test(path))
      .map(([method]) => method);
    throw allow.length ? problems.methodNotAllowed([...new Set(allow)]) : problems.notFound();
  });
  return { routes: router.routes, fetch: (request, ctx) => routeWithoutQuery(router, request, ctx) };
}

/** Routes anyone may read, answered before the credential check. */
export const isPublicPath = (path: string) => PUBLIC_PATHS.has(path);
const PUBLIC_PATHS = new Set(ROUTES.filter((route) => !route.operation).map((route) => `/api${route.path}`));
