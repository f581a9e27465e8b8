import type { Context } from '../../context.js';
import { hashToken } from '../pat-token.js';
import { authenticateClient } from './client-auth.js';
import { OAuthError } from './errors.js';
import { readForm } from './params.js';
import type { SigningKeys } from './signing-keys.js';
import { revokeGrant } from './token.js';
import { looksLikeJwt, verifyAccessToken } from './tokens.js';
import { Response } from '../../http/fetch-api.js';

/** The grant behind a refresh or access token we issued, whatever its state; null for anything else. */
export async function grantOfToken(ctx: Context, keys: SigningKeys, token: string) {
  const refresh = await ctx.prisma.oAuthRefreshToken.findUnique({
    where: { tokenHash: hashToken(token) },
    include: { grant: true },
  });
  if (refresh) return { grant: refresh.grant, refresh, claims: null };
  if (!looksLikeJwt(token)) return null;
  const claims = await verifyAccessToken(keys, ctx.config, token).catch(() => null);
  if (!claims) return null;
  const grant = await ctx.prisma.oAuthGrant.findUnique({ where: { id: claims.grant_id } });
  return grant ? { grant, refresh: null, claims } : null;
}

/**
 * POST /oauth/revoke (RFC 7009). Revoking either kind of token ends its grant: the refresh
 * family stops and every access token of it fails on its next request. An unknown token is
 * answered 200 as the RFC asks; another client's token is refused.
 */
export async function revoke(request: Request, ctx: Context, keys: SigningKeys): Promise<Response> {
  const params = await readForm(request);
  const client = await authenticateClient(ctx.prisma, request, params);
  const token = params.get('token');
  if (!token) throw new OAuthError('invalid_request', 'token is required.');
  const found = await grantOfToken(ctx, keys, token);
  if (found) {
    if (found.grant.clientId !== client.id)
      throw new OAuthError('invalid_request', 'This token was not issued to this client.');
    await revokeGrant(ctx, found.grant.id);
  }
  return new Response(null, { status: 200, headers: { 'cache-control': 'no-store' } });
}
