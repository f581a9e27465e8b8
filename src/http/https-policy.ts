import { Response } from './fetch-api.js';
import { requestUrl } from './request-url.js';

/**
 * When the public address is https, a request that reached us over plain HTTP is sent to the
 * same path on the https address with 308 (method and body preserved). Behind a TLS-terminating
 * proxy the scheme comes from X-Forwarded-Proto, believed only when TRUST_PROXY is set.
 * The redirect goes to BASE_URL's host, never to the request's Host header.
 */
export function httpsRedirect(request: Request, baseUrl: string, trustProxy: boolean): Response | null {
  if (!/^https:/i.test(baseUrl)) return null;
  const base = new URL(baseUrl);
  const url = requestUrl(request);
  const forwarded = trustProxy
    ? request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase()
    : undefined;
  const scheme = forwarded || url.protocol.replace(':', '');
  if (scheme === 'https') return null;
  const basePath = base.pathname.replace(/\/+$/, '');
  const target = new URL(`${basePath}${url.pathname}${url.search}`, base.origin);
  return new Response(null, { status: 308, headers: { location: target.href } });
}
