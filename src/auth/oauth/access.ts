import type { Db } from '../../db/client.js';
import { type AuthError, authErrors } from '../auth-error.js';
import type { UserPrincipal } from '../principal.js';
import { looksLikeJwt, type verifyAccessToken } from './tokens.js';

/** last_used_at to the minute, as for API keys (src/auth/pat.ts): a busy grant writes once a minute, not per request. */
const LAST_USED_GRANULARITY_MS = 60_000;

function touchGrant(db: Db, id: string, lastUsedAt: Date | null): void {
  const now = new Date();
  if (lastUsedAt && now.getTime() - lastUsedAt.getTime() < LAST_USED_GRANULARITY_MS) return;
  // Not awaited: a failed bookkeeping write must not fail the request it describes.
  void db.oAuthGrant.update({ where: { id }, data: { lastUsedAt: now }, select: { id: true } }).catch(() => {});
}

/**
 * Resolves an OAuth access token: "not mine" (null) for other token kinds. The JWT proves who
 * issued it, for which audience and until when; the grant row decides whether it still counts
 * (revoked, or the membership gone) and gives the user's current role in the token's org.
 */
export async function authenticateOAuth(
  db: Db,
  verify: (token: string) => ReturnType<typeof verifyAccessToken>,
  token: string,
  requestedOrgId: string | null,
): Promise<UserPrincipal | AuthError | null> {
  if (!looksLikeJwt(token)) return null;
  let claims: Awaited<ReturnType<typeof verifyAccessToken>>;
  try {
    claims = await verify(token);
  } catch (error) {
    return (error as { code?: string }).code === 'ERR_JWT_EXPIRED' ? authErrors.expired() : authErrors.unknown();
  }
  const grant = await db.oAuthGrant.findUnique({
    where: { id: claims.grant_id },
    select: { revokedAt: true, orgId: true, userId: true, lastUsedAt: true, membership: { select: { role: true } } },
  });
  if (!grant || grant.orgId !== claims.org_id || grant.userId !== claims.sub) return authErrors.unknown();
  if (grant.revokedAt) return authErrors.revoked();
  if (requestedOrgId !== null && requestedOrgId !== grant.orgId) return authErrors.orgMismatch();
  touchGrant(db, claims.grant_id, grant.lastUsedAt);
  return {
    kind: 'user',
    userId: grant.userId,
    credential: { kind: 'oauth', id: claims.grant_id, clientId: claims.client_id },
    org: { id: grant.orgId, role: grant.membership.role },
    orgBound: true,
    scopes: claims.scope.split(' '),
  };
}
