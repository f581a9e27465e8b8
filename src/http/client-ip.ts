/**
 * The address a request came from: the socket's peer, or, behind a trusted proxy
 * (TRUST_PROXY), the last X-Forwarded-For entry: the one our proxy appended. Entries
 * before it were sent by the client and can be anything.
 */
export function clientIp(request: Request, socketAddress: string | undefined, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers
      .get('x-forwarded-for')
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const last = forwarded?.at(-1);
    if (last) return last;
  }
  return socketAddress ?? 'unknown';
}
