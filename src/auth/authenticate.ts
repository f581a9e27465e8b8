import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import { AuthError, authErrors } from './auth-error.js';
import { authenticateOAuth } from './oauth/access.js';
import type { SigningKeys } from './oauth/signing-keys.js';
import { verifyAccessToken } from './oauth/tokens.js';
import type { Epoch } from './credential-epoch.js';
import { authenticatePat } from './pat.js';
import type { PatCache } from './pat-cache.js';
import { anonymous, type Principal, type UserPrincipal } from './principal.js';
import { readSessionCookie, resolveSession } from './session.js';

/** What a request presents, read once from its headers. */
export interface Credentials {
  /** `Authorization: Bearer` or `X-Auth-Token`; an AuthError when malformed or ambiguous. */
  token: string | AuthError | null;
  /** The browser session cookie, used only when no token is sent. */
  sessionToken: string | null;
  /** `X-Org-Id`: which organization to act in. */
  requestedOrgId: string | null;
}

/**
 * The one token a request carries: `Authorization: Bearer <t>`, or `X-Auth-Token: <t>` for
 * clients behind proxies that strip Authorization. Both at once must agree.
 */
function presentedToken(headers: Headers): string | AuthError | null {
  const authorization = headers.get('authorization');
  // Stryker disable next-line MethodExpression: Headers already strip a value's outer whitespace; trim() says so
  const xAuth = headers.get('x-auth-token')?.trim() || null;
  // A field sent twice arrives joined with ", " (RFC 9110 §5.3; src/http/node-server.ts makes
  // Node do so for Authorization): two credentials. A token never contains a comma.
  if (authorization?.includes(',') || xAuth?.includes(',')) return authErrors.conflicting();
  let bearer: string | null = null;
  if (authorization !== null) {
    // Stryker disable next-line Regex: Headers strip trailing whitespace, so \s*$ and \S*$ both match only the end
    const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(authorization);
    if (!match) return authErrors.malformed();
    bearer = match[1]!;
  }
  if (bearer && xAuth && bearer !== xAuth) return authErrors.conflicting();
  return bearer ?? xAuth;
}

export function presentedCredentials(config: Config, headers: Headers): Credentials {
  const token = presentedToken(headers);
  return {
    token,
    sessionToken: token === null ? readSessionCookie(config, headers) : null,
    // Ids are UUIDs, which compare case-insensitively; we store them lower-case.
    requestedOrgId: headers.get('x-org-id')?.trim().toLowerCase() || null,
  };
}

async function authenticateSession(
  db: Db,
  sessionToken: string,
  requestedOrgId: string | null,
  now: Date,
): Promise<UserPrincipal | null | AuthError> {
  const session = await resolveSession(db, sessionToken, now);
  if (!session) return null;
  let org: UserPrincipal['org'] = null;
  if (requestedOrgId !== null) {
    const membership = session.memberships.find((m) => m.orgId === requestedOrgId);
    if (!membership) return authErrors.notMember();
    org = { id: membership.orgId, role: membership.role };
  } else if (session.memberships.length === 1) {
    // With one organization there is nothing to choose.
    org = { id: session.memberships[0]!.orgId, role: session.memberships[0]!.role };
  }
  return {
    kind: 'user',
    userId: session.userId,
    credential: { kind: 'session', id: session.id },
    org,
    orgBound: false,
    sessionRefreshedUntil: session.refreshedUntil,
  };
}

/**
 * Identifies the caller. Token strategies are tried in order; each answers "not mine" (null),
 * a principal, or an AuthError. Without a token, the session cookie; without either, the
 * anonymous principal. An expired or unknown session is anonymous (the browser signs in again).
 */
export interface AuthDeps {
  db: Db;
  keys: SigningKeys;
  config: Config;
  /** The SHA-256 of a presented token, made once per request (the rate limiter's subject, then the PAT lookup). */
  tokenHash?: (token: string) => Uint8Array<ArrayBuffer>;
  /** Access-token verification already done for this request (by the rate limiter), reused. */
  verifyAccess?: (token: string) => ReturnType<typeof verifyAccessToken>;
  /** Verified personal access tokens (PAT_CACHE); null or absent: every PAT is looked up. */
  patCache?: PatCache | null;
  /**
   * The credential epoch for this request, started when it arrived (alongside the rate-limit
   * admission); null or absent: unknown, the PAT cache is skipped.
   */
  patEpoch?: Epoch | null | Promise<Epoch | null>;
}

export async function authenticate(
  deps: AuthDeps,
  credentials: Credentials,
  now = new Date(),
): Promise<Principal | AuthError> {
  const { db } = deps;
  const { token, sessionToken, requestedOrgId } = credentials;
  if (token instanceof AuthError) return token;
  if (token !== null) {
    const strategies = [
      () =>
        authenticatePat(
          { db, cache: deps.patCache, epoch: deps.patEpoch, hash: deps.tokenHash },
          token,
          requestedOrgId,
          now,
        ),
      () =>
        authenticateOAuth(
          db,
          deps.verifyAccess ?? ((t) => verifyAccessToken(deps.keys, deps.config, t)),
          token,
          requestedOrgId,
        ),
    ];
    for (const strategy of strategies) {
      const result = await strategy();
      if (result) return result;
    }
    return authErrors.unknown();
  }
  if (sessionToken !== null) return (await authenticateSession(db, sessionToken, requestedOrgId, now)) ?? anonymous;
  return anonymous;
}

/**
 * The request's credential authenticated again, now: without this request's memoised token
 * verification, and with the credential epoch read afresh, so that a revocation or a removed
 * membership since the request began is seen (a long-lived subscription asks before each event).
 */
export function reauthenticate(
  auth: Required<AuthDeps>,
  credentials: Credentials,
  epoch: { read(): Epoch | null | Promise<Epoch | null> },
): Promise<Principal | AuthError> {
  const { verifyAccess: _memoised, patEpoch: _then, ...deps } = auth;
  return authenticate({ ...deps, patEpoch: deps.patCache ? epoch.read() : null }, credentials);
}
