import type { Db } from '../db/client.js';
import { AuthError, authErrors } from './auth-error.js';
import { authenticatePat } from './pat.js';
import { anonymous, type Principal } from './principal.js';

/**
 * The one token a request carries: `Authorization: Bearer <t>`, or `X-Auth-Token: <t>` for
 * clients behind proxies that strip Authorization. Both at once must agree.
 */
export function presentedToken(headers: Headers): string | AuthError | null {
  const authorization = headers.get('authorization');
  let bearer: string | null = null;
  if (authorization !== null) {
    const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(authorization);
    if (!match) return authErrors.malformed();
    bearer = match[1]!;
  }
  const xAuth = headers.get('x-auth-token')?.trim() || null;
  if (bearer && xAuth && bearer !== xAuth) return authErrors.conflicting();
  return bearer ?? xAuth;
}

/**
 * Identifies the caller. Strategies are tried in order; each answers "not mine" (null),
 * a principal, or an AuthError. No credential at all is the anonymous principal.
 */
export async function authenticate(
  db: Db,
  headers: Headers,
  token: string | AuthError | null = presentedToken(headers),
  now = new Date(),
): Promise<Principal | AuthError> {
  if (token instanceof AuthError) return token;
  if (token === null) return anonymous;
  const requestedOrgId = headers.get('x-org-id')?.trim() || null;
  const strategies = [authenticatePat];
  for (const strategy of strategies) {
    const result = await strategy(db, token, requestedOrgId, now);
    if (result) return result;
  }
  return authErrors.unknown();
}
