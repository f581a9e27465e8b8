import { createHash } from 'node:crypto';
import type { Context } from '../../context.js';
import { drawFrom } from '../../limits/limiter.js';
import { ROUTE_POLICIES } from '../../limits/policy.js';
import { hashToken } from '../pat-token.js';
import { authenticateClient } from './client-auth.js';
import { OAuthError } from './errors.js';
import { readForm } from './params.js';
import { parseScope } from './scopes.js';
import type { SigningKeys } from './signing-keys.js';
import { apiAudience, issueTokens } from './tokens.js';
import type { Response } from '../../http/fetch-api.js';
import { json } from '../../http/json.js';

const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);

function checkResource(ctx: Context, resource: string | undefined) {
  if (resource !== apiAudience(ctx.config))
    throw new OAuthError('invalid_target', `resource is required and must be ${apiAudience(ctx.config)}.`);
}

/** Ends a grant: its refresh tokens stop rotating and its access tokens fail on their next request. */
export async function revokeGrant(ctx: Context, grantId: string): Promise<void> {
  await ctx.prisma.oAuthGrant.updateMany({ where: { id: grantId, revokedAt: null }, data: { revokedAt: new Date() } });
}

/** POST /oauth/token: authorization_code (with PKCE) and refresh_token (rotating) grants. 60 per 60 s per client. */
export async function token(request: Request, ctx: Context, keys: SigningKeys): Promise<Response> {
  const params = await readForm(request);
  // The bucket is the authenticated client's: an unauthenticated client_id could be made up
  // (to escape the limit) or borrowed (to exhaust someone else's).
  const client = await authenticateClient(ctx.prisma, request, params);
  const wait = await drawFrom(ctx, ROUTE_POLICIES.oauthToken, `client:${client.id}`);
  if (wait !== null) {
    throw new OAuthError('temporarily_unavailable', `Too many token requests. Retry in ${wait} seconds.`, {
      headers: { 'retry-after': wait },
    });
  }
  const grantType = params.get('grant_type');
  if (grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is required.');
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
    throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
  }
  if (!client.grantTypes.includes(grantType))
    throw new OAuthError('unauthorized_client', `This client is not registered for ${grantType}.`);

  let tokens: Awaited<ReturnType<typeof issueTokens>> | null;
  if (grantType === 'authorization_code') {
    const code = params.get('code');
    const verifier = params.get('code_verifier');
    if (!code) throw new OAuthError('invalid_request', 'code is required.');
    if (!verifier) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE).');
    if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier))
      throw new OAuthError('invalid_request', 'code_verifier must be 43-128 unreserved characters.');
    const row = await ctx.prisma.oAuthCode.findUnique({
      where: { codeHash: hashToken(code) },
      include: { grant: true },
    });
    if (!row || row.grant.clientId !== client.id) throw invalidGrant('The code is not valid for this client.');
    if (row.usedAt) {
      // A code used twice was stolen or leaked: everything issued from it is withdrawn.
      await revokeGrant(ctx, row.grantId);
      throw invalidGrant('The code was already used; every token issued from it has been revoked.');
    }
    if (row.expiresAt <= new Date()) throw invalidGrant('The code has expired.');
    if (row.grant.revokedAt) throw invalidGrant('The authorization has been revoked.');
    // RFC 6749 §4.1.3 requires redirect_uri here only if the authorization request carried it, which
    // it may omit when the client registered exactly one: then that one is the only possible value.
    const redirectUri =
      params.get('redirect_uri') ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
    if (redirectUri !== row.redirectUri)
      throw invalidGrant('redirect_uri must be the one of the authorization request.');
    if (createHash('sha256').update(verifier).digest('base64url') !== row.codeChallenge)
      throw invalidGrant('code_verifier does not match the code_challenge.');
    checkResource(ctx, params.get('resource'));
    const claimed = await ctx.prisma.oAuthCode.updateMany({
      where: { id: row.id, usedAt: null },
      data: { usedAt: new Date() },
    });
    if (claimed.count === 0) {
      await revokeGrant(ctx, row.grantId);
      throw invalidGrant('The code was already used; every token issued from it has been revoked.');
    }
    tokens = await issueTokens(
      ctx.prisma,
      keys,
      ctx.config,
      row.grant,
      row.grant.scope,
      client.grantTypes.includes('refresh_token'),
    );
  } else {
    const refreshToken = params.get('refresh_token');
    if (!refreshToken) throw new OAuthError('invalid_request', 'refresh_token is required.');
    if (params.get('code_verifier') !== undefined)
      throw new OAuthError('invalid_request', 'code_verifier is not a parameter of the refresh_token grant.');
    const row = await ctx.prisma.oAuthRefreshToken.findUnique({
      where: { tokenHash: hashToken(refreshToken) },
      include: { grant: true },
    });
    if (!row || row.grant.clientId !== client.id) throw invalidGrant('The refresh token is not valid for this client.');
    if (row.usedAt) {
      // Rotation means each refresh token works once: a second use means two holders.
      await revokeGrant(ctx, row.grantId);
      throw invalidGrant('The refresh token was already used; the whole authorization has been revoked.');
    }
    if (row.grant.revokedAt) throw invalidGrant('The authorization has been revoked.');
    if (row.grant.expiresAt <= new Date()) throw invalidGrant('The authorization has expired; ask the user again.');
    let scope = row.scope;
    const requested = params.get('scope');
    if (requested !== undefined) {
      const names = parseScope(requested);
      if (!names?.every((n) => row.scope.split(' ').includes(n)))
        throw new OAuthError('invalid_scope', `A refresh can only keep or narrow the scope (${row.scope}).`);
      scope = names.join(' ');
    }
    checkResource(ctx, params.get('resource'));
    tokens = await ctx.prisma.$transaction(async (tx) => {
      const claimed = await tx.oAuthRefreshToken.updateMany({
        where: { id: row.id, usedAt: null },
        data: { usedAt: new Date() },
      });
      if (claimed.count === 0) return null;
      // RFC 6749 §6: the new refresh token has the scope of the one it replaces; only the access token is narrowed.
      return issueTokens(tx, keys, ctx.config, row.grant, scope, true, row.scope);
    });
    if (!tokens) {
      await revokeGrant(ctx, row.grantId);
      throw invalidGrant('The refresh token was already used; the whole authorization has been revoked.');
    }
  }
  return json(tokens, { headers: { 'cache-control': 'no-store', pragma: 'no-cache' } });
}
