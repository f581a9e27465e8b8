/**
 * Where to send someone after sign-in: the `next` parameter, kept only when it names a page of
 * this service. Anything else (another origin, a value that does not parse, a non-string)
 * becomes `/`.
 *
 * Why a URL parse and not a pattern on the raw text: browsers resolve `Location` with the WHATWG
 * URL parser, which removes tabs and newlines and treats `\` as `/` before resolving, so
 * `/\t/evil.example` passes a "starts with one slash" test and still lands on `//evil.example`.
 * Parsing `next` with the same parser against BASE_URL and comparing origins judges it exactly
 * as the browser will; and the result is re-serialized (pathname, search and hash are
 * percent-encoded ASCII), so it is always a valid header value: a control character or U+3000
 * in `next` cannot make the redirect itself throw.
 *
 * A same-origin URL can still have a path that starts with `//` (`/a/..//evil.example` and
 * `/.//evil.example` resolve to `https://wm.example//evil.example`): sent as the path alone, the
 * browser reads it as the protocol-relative `//evil.example`, another origin. Such a path
 * becomes `/` too.
 *
 * @example
 * safeNextPath('/orgs/acme/settings/integrations?tab=keys', 'https://wm.example') // '/orgs/acme/settings/integrations?tab=keys'
 * safeNextPath('/\t/evil.example/x', 'https://wm.example') // '/'
 */
export function safeNextPath(value: unknown, baseUrl: string): string {
  if (typeof value !== 'string' || value === '') return '/';
  const base = new URL(baseUrl);
  let target: URL;
  try {
    target = new URL(value, base);
  } catch {
    return '/';
  }
  if (target.origin !== base.origin || target.pathname.startsWith('//')) return '/';
  return `${target.pathname}${target.search}${target.hash}`;
}
