import type { IRequest, RouterType } from 'itty-router';
import { requestUrl } from './request-url.js';

/**
 * What an itty-router router is handed to match a request: its method and its URL without the
 * query string. itty-router builds `request.query` for every request by concatenating arrays
 * (`[].concat(previous, value)` per repeat), which is quadratic in a parameter's repeats: 70,000
 * `a=1` took over 200 s of CPU. Our handlers read the query themselves, once, with URLSearchParams
 * (src/rest/inputs.ts), so the router never sees it. The real request is the handler's last
 * argument; the matched params and route template are copied onto it, where handlers (and the
 * access log, through dispatch) read them.
 */
export async function routeWithoutQuery<Args extends unknown[]>(
  router: RouterType<IRequest, [...Args, Request], Response>,
  request: Request,
  ...args: Args
): Promise<Response> {
  const url = requestUrl(request);
  const routing = { method: request.method, url: `${url.origin}${url.pathname}` } as IRequest;
  const response = (await router.fetch(routing, ...args, request)) as Response;
  Object.assign(request, { params: routing.params, route: routing.route });
  return response;
}

/** A handler written for the real request: itty-router calls it with (routing, ...args, request). */
export function onRequest<Ctx, R>(handler: (request: Request & { params?: Record<string, string> }, ctx: Ctx) => R) {
  return (routing: IRequest, ctx: Ctx, request: Request) =>
    handler(Object.assign(request, { params: routing.params }), ctx);
}
