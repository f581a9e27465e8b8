import type { Context } from '../../context.js';
import { authenticateClient } from './client-auth.js';
import { OAuthError } from './errors.js';
import { readForm } from './params.js';
import { grantOfToken } from './revoke.js';
import type { SigningKeys } from './signing-keys.js';
import { apiAudience } from './tokens.js';
import { json } from '../../http/json.js';

/** RFC 7662 §2.2: an introspection answer is not to be cached. */
const answer = (body: unknown) => json(body, { headers: { 'cache-control': 'no-store' } });
const inactive = () => answer({ active: false });

/** POST /oauth/introspect (RFC 7662): a client may learn the state of its own tokens only. */
export async function introspect(request: Request, ctx: Context, keys: SigningKeys): Promise<Response> {
  const params = await readForm(request);
  const client = await authenticateClient(ctx.prisma, request, params);
  const token = params.get('token');
  if (!token) throw new OAuthError('invalid_request', 'token is required.');
  const found = await grantOfToken(ctx, keys, token);
  if (!found || found.grant.clientId !== client.id || found.grant.revokedAt) return inactive();
  const { grant, refresh, claims } = found;
  const base = {
    active: true,
    client_id: grant.clientId,
    sub: grant.userId,
    org_id: grant.orgId,
    iss: ctx.config.baseUrl,
    aud: apiAudience(ctx.config),
  };
  if (refresh) {
    if (refresh.usedAt || grant.expiresAt <= new Date()) return inactive();
    return answer({
      ...base,
      scope: refresh.scope,
      token_type: 'refresh_token',
      exp: Math.floor(grant.expiresAt.getTime() / 1000),
    });
  }
  return answer({
    ...base,
    scope: claims!.scope,
    token_type: 'Bearer',
    exp: claims!.exp,
    iat: claims!.iat,
    jti: claims!.jti,
  });
}
