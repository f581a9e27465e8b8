/**
 * Which redirect URIs a client may register (RFC 7591 section 2, `invalid_redirect_uri`).
 * One function, two layers of rules:
 *
 * 1. Shape, for every scheme: an absolute URI (RFC 6749 section 3.1.2), without a fragment
 *    (3.1.2), without userinfo, and whose host, when it has one, is a plain DNS name or IP
 *    literal. Redirect URIs are compared exactly at authorization (RFC 9700 section 4.1.1), so
 *    a pattern such as `https://*.client.example/cb` could never be matched as its author meant;
 *    userinfo (`https://user:pw@client.example/cb`) puts a secret in a URL and lets an address
 *    read as one host while it goes to another (RFC 3986 section 7.6).
 * 2. Scheme: https anywhere; http only on loopback, for native apps (RFC 8252 section 7.3; the
 *    port may then vary at authorization, 7.3 again); native apps' private-use schemes (RFC 8252
 *    section 7.1: `com.example.app:/cb`, and single-word ones such as Cursor's
 *    `cursor://anysphere.cursor-mcp/oauth/callback`). A scheme that already means something to a
 *    browser or the system (`javascript:`, `data:`, `file:`, `blob:`, `mailto:`...) is never a
 *    private-use one: following it would run code, read files or leave the app.
 */

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

// Schemes with a meaning of their own (WHATWG fetch's local and special schemes, IANA's common
// ones, browser internals): a redirect to them is not a native app taking its code back.
const RESERVED_SCHEMES = new Set([
  'javascript',
  'data',
  'file',
  'blob',
  'about',
  'filesystem',
  'vbscript',
  'view-source',
  'ftp',
  'ws',
  'wss',
  'mailto',
  'tel',
  'sms',
  'urn',
  'news',
  'nntp',
  'gopher',
  'telnet',
  'ldap',
  'jar',
  'content',
  'intent',
  'chrome',
  'chrome-extension',
  'moz-extension',
  'edge',
  'resource',
  'ms-settings',
]);
// RFC 3986 §3.1 scheme syntax.
const SCHEME = /^[a-z][a-z0-9+.-]*$/;

// A host as the URL parser leaves it (lower-cased, IDNs in punycode, IPv4 normalized):
// dot-separated labels of letters, digits and inner hyphens, or a bracketed IPv6 literal.
const DNS_NAME = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
// Stryker disable next-line Regex: the parser's IPv6 hostname is the bracketed literal alone, anchors or not
const IPV6_LITERAL = /^\[[0-9a-f:.]+\]$/;
// An `@` in the authority, even with empty userinfo (`https://@host/`), which the parser drops.
const USERINFO = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i;

/** Why `value` cannot be registered as a redirect URI, or null when it can. */
export function redirectUriProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${value} is not an absolute URI`;
  }
  if (url.hash || value.includes('#')) return `${value} has a fragment`;
  // Stryker disable next-line ConditionalExpression,LogicalOperator: USERINFO sees every @ the parser reads a user from
  if (url.username || url.password || USERINFO.test(value))
    return `${value} has userinfo (user:password@): register the address without it`;
  if (url.hostname.includes('*'))
    return `${value} has a wildcard host: redirect URIs are matched exactly, register each address`;
  if (url.host && !DNS_NAME.test(url.hostname) && !IPV6_LITERAL.test(url.hostname))
    return `${value}: the host is not a DNS name or an IP address`;
  return schemeProblem(value, url);
}

function schemeProblem(value: string, url: URL): string | null {
  // Stryker disable next-line ConditionalExpression,StringLiteral: https would pass the private-use check below too
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  if (url.protocol === 'http:') return `${value}: http is allowed only on loopback (localhost, 127.0.0.1, [::1])`;
  const scheme = url.protocol.slice(0, -1);
  if (RESERVED_SCHEMES.has(scheme) || !SCHEME.test(scheme))
    return `${value}: the ${url.protocol} scheme is not allowed`;
  return null;
}
