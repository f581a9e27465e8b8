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
