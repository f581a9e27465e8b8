import { randomBytes } from 'node:crypto';
import type { Context } from '../../context.js';
import type { OAuthClient } from '../../generated/prisma/client.js';
import { contentSecurityPolicy, page, redirect } from '../../views/render.js';
import { loadShell } from '../../views/shell.js';
import { hashToken } from '../pat-token.js';
import { capabilities, type DescribedOperation } from './capabilities.js';
import { isMetadataClientId } from '../client-id.js';
import type { ClientMetadataResolver } from './client-metadata.js';
import { OAuthError } from './errors.js';
import { singleValued } from './params.js';
import { CONSENT_SCOPES, DEFAULT_SCOPE, parseScope, SCOPES, type Scope } from './scopes.js';
import { apiAudience, CODE_SECONDS, GRANT_DAYS } from './tokens.js';
import type { OAuthErrorCode } from '../../schema/core/error-table.js';
import { isStorableText } from '../../schema/core/text.js';
import { Response } from '../../http/fetch-api.js';

interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  scope: Scope[];
  state: string | undefined;
  codeChallenge: string;
  resource: string;
  /** The client is described by the metadata document at its client_id (an https URL). */
  fromDocument: boolean;
}

/**
 * Exact string match, no normalising of case, paths or query strings; except that a native
 * app's loopback http address may use any port (RFC 8252 §7.3, OAuth 2.1 §8.4.2), since it
 * listens on whatever port is free at the time.
 */
function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  // localhost too: VS Code registers http://localhost:<port>/ beside the IP literals.
  const loopback = (u: string) => /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)(:\d+)?\//.test(u);
  if (!loopback(registered) || !loopback(requested)) return false;
  const withoutPort = (u: string) => u.replace(/^(http:\/\/(?:127\.0\.0\.1|\[::1\]|localhost))(:\d+)?/, '$1');
  return withoutPort(registered) === withoutPort(requested);
}

/** Errors we must not send to a redirect_uri we cannot trust: shown to the person instead. */
function errorPage(message: string): Response {
  return page(
    'oauth-error',
    { title: 'Authorization error', heading: 'This application’s request is not valid', message },
    { status: 400 },
  );
}

/** RFC 6749 §4.1.2.1 error redirect, with `iss` (RFC 9207). */
function errorRedirect(
  ctx: Context,
  redirectUri: string,
  state: string | undefined,
  error: OAuthErrorCode,
  description: string,
): Response {
  const url = new URL(redirectUri);
  url.searchParams.set('error', error);
  url.searchParams.set('error_description', description);
  if (state !== undefined) url.searchParams.set('state', state);
  url.searchParams.set('iss', ctx.config.baseUrl);
  return new Response(null, { status: 302, headers: { location: url.href } });
}

/**
 * Checks an authorization request. Until the client and its redirect_uri are known to be
 * genuine, every problem is an error page; after that, an error redirect to the client.
 */
async function check(
  ctx: Context,
  raw: URLSearchParams,
  clients: ClientMetadataResolver,
): Promise<AuthorizationRequest | Response> {
  const params = singleValued(raw);
  if (params.duplicated.some((n) => n === 'client_id' || n === 'redirect_uri')) {
    return errorPage('client_id and redirect_uri must be given once.');
  }
  const clientId = params.get('client_id');
  const fromDocument = !!clientId && isMetadataClientId(clientId);
  let client: OAuthClient | null = null;
  if (fromDocument) {
    try {
      client = await clients.resolve(ctx.prisma, clientId);
    } catch (error) {
      // A metadata document that cannot be used: an error page, as for any client not known here.
      if (error instanceof OAuthError) return errorPage(error.message);
      throw error;
    }
  } else if (clientId && isStorableText(clientId)) {
    client = await ctx.prisma.oAuthClient.findUnique({ where: { id: clientId } });
  }
  if (!client) return errorPage('The application (client_id) is not registered here.');
  let redirectUri = params.get('redirect_uri');
  // A metadata document's redirect URIs are matched exactly, loopback ports included (the draft asks for exact matching).
  const matches = (registered: string) =>
    fromDocument ? registered === redirectUri : redirectUriMatches(registered, redirectUri!);
  if (redirectUri === undefined) {
    if (client.redirectUris.length !== 1)
      return errorPage('redirect_uri is required: this application registered several.');
    redirectUri = client.redirectUris[0]!;
  } else if (!client.redirectUris.some(matches)) {
    return errorPage('redirect_uri does not match any address this application registered.');
  }
  const state = params.get('state');
  const fail = (error: OAuthErrorCode, description: string) =>
    errorRedirect(ctx, redirectUri, state, error, description);

  if (params.duplicated.length)
    return fail('invalid_request', `Parameters must not repeat: ${params.duplicated.join(', ')}.`);
  const responseType = params.get('response_type');
  if (responseType === undefined) return fail('invalid_request', 'response_type is required.');
  if (responseType !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported.');
  if (!client.grantTypes.includes('authorization_code'))
    return fail('unauthorized_client', 'This client may not use the authorization code grant.');
  const codeChallenge = params.get('code_challenge');
  if (!codeChallenge)
    return fail('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256.');
  if (params.get('code_challenge_method') !== 'S256')
    return fail('invalid_request', 'code_challenge_method must be S256.');
  if (!/^[A-Za-z0-9_-]{43}$/.test(codeChallenge))
    return fail('invalid_request', 'code_challenge must be a base64url SHA-256 (43 characters).');
  const resource = params.get('resource');
  if (resource !== apiAudience(ctx.config))
    return fail('invalid_target', `resource is required and must be ${apiAudience(ctx.config)}.`);
  const scope = raw.get('scope') === '' ? null : parseScope(params.get('scope') ?? DEFAULT_SCOPE);
  if (!scope) return fail('invalid_scope', `Unknown scope. Supported: ${Object.keys(SCOPES).join(', ')}.`);
  return { client, redirectUri, scope, state, codeChallenge, resource, fromDocument };
}

/** The CSP source of a redirect URI: its origin, or for a native app's private-use scheme (whose origin is opaque) the scheme. */
function formTarget(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.origin === 'null' ? url.protocol : url.origin;
}

function consentPage(
  operations: readonly DescribedOperation[],
  request: AuthorizationRequest,
  shell: Awaited<ReturnType<typeof loadShell>>,
  raw: URLSearchParams,
  error?: string,
) {
  return page(
    'consent',
    {
      ...shell,
      orgs: shell.orgs.map((org) => ({ ...org, capabilities: capabilities(operations, org.role, request.scope) })),
      title: `Authorize ${request.client.name}`,
      clientName: request.client.name,
      redirectHost: new URL(request.redirectUri).host,
      // Where the application's identity comes from: the host that serves its metadata document.
      clientHost: request.fromDocument ? new URL(request.client.id).host : null,
      scopes: request.scope.map((name) => ({ name, description: CONSENT_SCOPES[name] })),
      params: [...raw.entries()].filter(([name]) => !['org_id', 'decision'].includes(name)),
      error: error ?? null,
    },
    // Chromium applies form-action to the redirect that follows the form, so the client's origin is allowed too.
    {
      status: error ? 400 : 200,
      headers: { 'content-security-policy': contentSecurityPolicy([formTarget(request.redirectUri)]) },
    },
  );
}

/** GET /oauth/authorize: the consent screen (after sign-in). */
export async function showAuthorize(
  request: Request,
  ctx: Context,
  clients: ClientMetadataResolver,
  operations: readonly DescribedOperation[],
): Promise<Response> {
  const url = new URL(request.url);
  const checked = await check(ctx, url.searchParams, clients);
  if (checked instanceof Response) return checked;
  if (ctx.principal.kind !== 'user') return redirect(`/login?next=${encodeURIComponent(url.pathname + url.search)}`);
  return consentPage(operations, checked, await loadShell(ctx), url.searchParams);
}

/** POST /oauth/authorize: the person's answer. The org they pick is fixed in every token of this grant. */
export async function decideAuthorize(
  request: Request,
  ctx: Context,
  clients: ClientMetadataResolver,
  operations: readonly DescribedOperation[],
): Promise<Response> {
  const form = new URLSearchParams(await request.text());
  const checked = await check(
    ctx,
    new URLSearchParams([...form].filter(([name]) => !['org_id', 'decision'].includes(name))),
    clients,
  );
  if (checked instanceof Response) return checked;
  if (ctx.principal.kind !== 'user') return redirect('/login');
  const { client, redirectUri, state } = checked;
  if (form.get('decision') !== 'allow')
    return errorRedirect(ctx, redirectUri, state, 'access_denied', 'The user denied the request.');

  const shell = await loadShell(ctx);
  const org = shell.orgs.find((o) => o.id === form.get('org_id'));
  if (!org) return consentPage(operations, checked, shell, form, 'Choose one of your organizations.');
  const code = randomBytes(32).toString('base64url');
  const now = Date.now();
  await ctx.prisma.oAuthGrant.create({
    data: {
      clientId: client.id,
      userId: ctx.principal.userId,
      orgId: org.id,
      scope: checked.scope.join(' '),
      expiresAt: new Date(now + GRANT_DAYS * 24 * 3600 * 1000),
      codes: {
        create: {
          codeHash: hashToken(code),
          redirectUri,
          codeChallenge: checked.codeChallenge,
          expiresAt: new Date(now + CODE_SECONDS * 1000),
        },
      },
    },
  });
  const url = new URL(redirectUri);
  url.searchParams.set('code', code);
  if (state !== undefined) url.searchParams.set('state', state);
  url.searchParams.set('iss', ctx.config.baseUrl);
  return new Response(null, { status: 302, headers: { location: url.href } });
}
