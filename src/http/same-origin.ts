import { requestUrl } from './request-url.js';

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function isUnsafeMethod(method: string): boolean {
  return UNSAFE.has(method.toUpperCase());
}

/**
 * CSRF defence for cookie-authenticated writes: the browser says where the request came from
 * (Origin, or Referer when an old browser omits Origin), and it must be our own BASE_URL.
 * A request that says nothing is refused: every browser we serve sends one of the two on a
 * cross-site POST, so silence is not evidence of safety. SameSite=Lax cookies are the second layer.
 */
export function isSameOrigin(request: Request, baseUrl: string): boolean {
  const expected = new URL(baseUrl).origin;
  const origin = request.headers.get('origin');
  if (origin !== null) return origin === expected;
  const referer = request.headers.get('referer');
  // Stryker disable next-line ConditionalExpression: new URL('') and new URL(null) throw, answered false below
  if (!referer) return false;
  try {
    return new URL(referer).origin === expected;
  } catch {
    return false;
  }
}

/** What decides whether a request names this service (src/pipeline/host-check.ts). */
export interface OwnHostRule {
  baseUrl: string;
  /** TRUST_PROXY: the proxy in front may rewrite Host; X-Forwarded-Host then carries the name the client used. */
  trustProxy: boolean;
  /** CORS_ORIGINS: the browser origins besides BASE_URL's that may call the API. */
  corsOrigins: '*' | readonly string[];
}

/**
 * Why a request does not name this service, or null when it does. A page on another site can
 * make a browser reach this service under the site's own name (DNS rebinding: attacker.example
 * resolved to our address), so the Host must be BASE_URL's host name (the port is not part of
 * the name a rebinding changes; a loopback BASE_URL is reached by any loopback name). Behind a trusted proxy the Host is the proxy's choice, and
 * X-Forwarded-Host, when it sends one, is the client's. An Origin, when a browser sends one,
 * must be BASE_URL's or one CORS_ORIGINS allows.
 */
export function foreignHostReason(request: Request, rule: OwnHostRule): string | null {
  const own = new URL(rule.baseUrl);
  const forwarded = rule.trustProxy ? request.headers.get('x-forwarded-host')?.split(',')[0]?.trim() : undefined;
  const host = rule.trustProxy ? forwarded : requestUrl(request).host;
  if (host !== undefined && !sameHostname(hostnameOf(host), own.hostname))
    return `Host ${host} is not this service's (${own.host}).`;
  const origin = request.headers.get('origin');
  if (origin === null || rule.corsOrigins === '*' || origin === own.origin || rule.corsOrigins.includes(origin))
    return null;
  return `Origin ${origin} is neither this service nor an allowed CORS origin.`;
}

/** The names of this machine's loopback interface: one service when BASE_URL names any of them. */
const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

function sameHostname(hostname: string, own: string): boolean {
  return hostname === own || (LOOPBACK.includes(hostname) && LOOPBACK.includes(own));
}

/** The host name of a Host header's value (`name[:port]`), lowercased; '' when it is not one. */
function hostnameOf(host: string): string {
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return '';
  }
}
