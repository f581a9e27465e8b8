import { randomBytes } from 'node:crypto';
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { hashToken } from '../pat-token.js';
import type { SigningKeys } from './signing-keys.js';

/** Spec: access tokens last 1 hour. */
export const ACCESS_TOKEN_SECONDS = 3600;
/** Authorization codes are redeemable for 60 seconds, once. */
export const CODE_SECONDS = 60;
/** A grant's refresh tokens rotate on every use but stop 90 days after consent: then the user consents again. */
export const GRANT_DAYS = 90;

export const ACCESS_TOKEN_TYPE = 'at+jwt'; // RFC 9068

export const apiAudience = (config: Config) => `${config.baseUrl}/api`;

export function randomSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

export interface AccessClaims {
  sub: string;
  client_id: string;
  scope: string;
  org_id: string;
  grant_id: string;
}

export interface TokenSet {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  refresh_token?: string;
}

/** An access token (JWT, 1 hour) and, for clients registered with that grant, a new refresh token. */
export async function issueTokens(
  db: Pick<Db, 'oAuthRefreshToken'>,
  keys: SigningKeys,
  config: Config,
  grant: { id: string; clientId: string; userId: string; orgId: string },
  scope: string,
  withRefresh: boolean,
  /** The refresh token's scope, when a refresh narrowed only the access token's. */
  refreshScope = scope,
): Promise<TokenSet> {
  const claims: AccessClaims = {
    sub: grant.userId,
    client_id: grant.clientId,
    scope,
    org_id: grant.orgId,
    grant_id: grant.id,
  };
  const accessToken = await keys.sign(
    { ...claims, iss: config.baseUrl, aud: apiAudience(config), jti: randomBytes(16).toString('base64url') },
    ACCESS_TOKEN_TYPE,
    ACCESS_TOKEN_SECONDS,
  );
  const set: TokenSet = { access_token: accessToken, token_type: 'Bearer', expires_in: ACCESS_TOKEN_SECONDS, scope };
  if (withRefresh) {
    const refreshToken = randomSecret('rt_');
    await db.oAuthRefreshToken.create({
      data: { tokenHash: hashToken(refreshToken), grantId: grant.id, scope: refreshScope },
    });
    set.refresh_token = refreshToken;
  }
  return set;
}

/** The claims of an access token we issued for our API, or throws (bad signature, audience, expiry...). */
export async function verifyAccessToken(
  keys: SigningKeys,
  config: Config,
  token: string,
): Promise<AccessClaims & { exp: number; iat: number; jti: string }> {
  const payload = await keys.verify(token, {
    issuer: config.baseUrl,
    audience: apiAudience(config),
    typ: ACCESS_TOKEN_TYPE,
  });
  for (const name of ['sub', 'client_id', 'scope', 'org_id', 'grant_id'] as const) {
    if (typeof payload[name] !== 'string') throw new Error(`access token without ${name}`);
  }
  return payload as unknown as AccessClaims & { exp: number; iat: number; jti: string };
}

export const looksLikeJwt = (token: string) => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
