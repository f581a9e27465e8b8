import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Context } from '../../context.js';
import { drawFrom } from '../../limits/limiter.js';
import { ROUTE_POLICIES } from '../../limits/policy.js';
import { hashToken } from '../pat-token.js';
import { OAuthError } from './errors.js';
import { redirectUriProblem } from './redirect-uri.js';
import { randomSecret } from './tokens.js';
import { storableString } from '../../schema/core/text.js';
import { Response } from '../../http/fetch-api.js';
import { addressKey } from '../../http/address-key.js';

const Registration = z.object({
  client_name: storableString().trim().min(1).max(100).optional(),
  redirect_uris: z.array(storableString()).min(1).max(10),
  // Any grant type may be asked for; those we do not serve are dropped below (RFC 7591 §3.2.1).
  grant_types: z.array(z.string().max(200)).min(1).max(20).default(['authorization_code']),
  response_types: z.array(z.string().max(100)).max(10).optional(),
  token_endpoint_auth_method: z
    .enum(['none', 'client_secret_basic', 'client_secret_post'])
    .default('client_secret_basic'),
  application_type: z.enum(['web', 'native']).default('web'),
  scope: z.string().optional(),
});

const SUPPORTED_GRANTS = ['authorization_code', 'refresh_token'];

/** POST /oauth/register: RFC 7591 dynamic client registration. 5 per hour per address. */
export async function register(request: Request, ctx: Context): Promise<Response> {
  const wait = await drawFrom(ctx, ROUTE_POLICIES.oauthRegister, `ip:${addressKey(ctx.clientIp)}`);
  if (wait !== null) {
    throw new OAuthError(
      'temporarily_unavailable',
      `Too many registrations from this address. Retry in ${wait} seconds.`,
      { headers: { 'retry-after': wait } },
    );
  }
  if (!/^application\/json\s*(;|$)/i.test(request.headers.get('content-type') ?? '')) {
    throw new OAuthError(
      'invalid_client_metadata',
      'Send the client metadata as JSON (Content-Type: application/json).',
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(await request.text());
  } catch {
    throw new OAuthError('invalid_client_metadata', 'The body is not valid JSON.');
  }
  const parsed = Registration.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = String(issue.path[0] ?? 'metadata');
    throw new OAuthError(
      field === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata',
      `${field}: ${issue.message}`,
    );
  }
  const metadata = parsed.data;
  for (const uri of metadata.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', problem);
  }
  if (!metadata.grant_types.includes('authorization_code')) {
    throw new OAuthError('invalid_client_metadata', 'grant_types must include authorization_code.');
  }
  if (metadata.response_types && !metadata.response_types.includes('code')) {
    throw new OAuthError('invalid_client_metadata', 'response_types must include code.');
  }
  // RFC 7591 §3.2.1: the server may replace requested values. VS Code, for one, also asks for the
  // device grant; it gets the grants we serve, and the answer below says which.
  const grantTypes = SUPPORTED_GRANTS.filter((grant) => metadata.grant_types.includes(grant));
  const clientId = `client_${randomBytes(16).toString('base64url')}`;
  const secret = metadata.token_endpoint_auth_method === 'none' ? null : randomSecret('cs_');
  const client = await ctx.prisma.oAuthClient.create({
    data: {
      id: clientId,
      name: metadata.client_name ?? 'Unnamed application',
      redirectUris: metadata.redirect_uris,
      grantTypes,
      tokenEndpointAuthMethod: metadata.token_endpoint_auth_method,
      applicationType: metadata.application_type,
      secretHash: secret ? hashToken(secret) : null,
    },
  });
  return new Response(
    JSON.stringify({
      client_id: client.id,
      client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
      ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
      client_name: client.name,
      redirect_uris: client.redirectUris,
      grant_types: client.grantTypes,
      response_types: ['code'],
      token_endpoint_auth_method: client.tokenEndpointAuthMethod,
      application_type: client.applicationType,
    }),
    { status: 201, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', pragma: 'no-cache' } },
  );
}
