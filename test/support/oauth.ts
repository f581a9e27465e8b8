import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import { formPost, ORIGIN } from './app.js';

export const RESOURCE = `${ORIGIN}/api`;
export const REDIRECT = 'http://127.0.0.1:9999/callback';

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

// Registration is limited to 5 per hour per address: each test registration comes from its own.
let registrations = 0;
const nextAddress = () => `10.1.${Math.floor(++registrations / 250)}.${registrations % 250}`;

export async function registerClient(app: App, metadata: Record<string, unknown> = {}, remoteAddress = nextAddress()) {
  const response = await app.fetch(
    new Request(`${ORIGIN}/oauth/register`, {
      method: 'POST',
      body: JSON.stringify({
        client_name: 'Test Client',
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
        ...metadata,
      }),
      headers: { 'content-type': 'application/json' },
    }),
    { remoteAddress },
  );
  expect(response.status).toBe(201);
  return (await response.json()) as { client_id: string; client_secret?: string; redirect_uris: string[] };
}

export function authorizeParams(clientId: string, challenge: string, extra: Record<string, string> = {}) {
  return new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: RESOURCE,
    state: 'xyz',
    scope: 'read write',
    ...extra,
  });
}

/** The consent screen's answer, as the person's browser posts it. */
export async function consent(
  app: App,
  cookie: string,
  params: URLSearchParams,
  orgId: string,
  decision = 'allow',
): Promise<URL> {
  const shown = await app.fetch(new Request(`${ORIGIN}/oauth/authorize?${params}`, { headers: { cookie } }));
  expect(shown.status).toBe(200);
  const response = await app.fetch(
    formPost('/oauth/authorize', { ...Object.fromEntries(params), org_id: orgId, decision }, { cookie }),
  );
  expect(response.status).toBe(302);
  return new URL(response.headers.get('location')!);
}

async function tokenRequest(app: App, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await app.fetch(
    new Request(`${ORIGIN}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams(fields),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    }),
  );
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, string>,
  };
}

/** Registration, consent for `orgId`, and the code exchange: a fresh token set. */
export async function obtainTokens(app: App, cookie: string, orgId: string, scope = 'read write') {
  const client = await registerClient(app);
  const { verifier, challenge } = pkce();
  const location = await consent(app, cookie, authorizeParams(client.client_id, challenge, { scope }), orgId);
  const tokens = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code: location.searchParams.get('code')!,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: client.client_id,
    resource: RESOURCE,
  });
  expect(tokens.status).toBe(200);
  return { client, tokens: tokens.body };
}

/** The registration request itself, for tests of refused metadata: the raw response. A string body is sent as is. */
export function registrationRequest(
  app: App,
  body: unknown,
  {
    remoteAddress = nextAddress(),
    contentType = 'application/json',
  }: { remoteAddress?: string; contentType?: string | null } = {},
): Promise<Response> {
  const headers: Record<string, string> = contentType === null ? {} : { 'content-type': contentType };
  return app.fetch(
    new Request(`${ORIGIN}/oauth/register`, {
      method: 'POST',
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers,
    }),
    {
      remoteAddress,
    },
  );
}

/** GET /oauth/authorize as the person's browser sends it (redirects are not followed). */
export function authorizeRequest(app: App, params: URLSearchParams | string, cookie?: string): Promise<Response> {
  return app.fetch(new Request(`${ORIGIN}/oauth/authorize?${params}`, { headers: cookie ? { cookie } : {} }));
}

/** Consent for an already registered client: the code, its verifier and the callback URL. */
export async function authorizeCode(
  app: App,
  cookie: string,
  clientId: string,
  orgId: string,
  extra: Record<string, string> = {},
) {
  const { verifier, challenge } = pkce();
  const location = await consent(app, cookie, authorizeParams(clientId, challenge, extra), orgId);
  const code = location.searchParams.get('code');
  expect(code).toBeTruthy();
  return { code: code!, verifier, location };
}

/** HTTP Basic client credentials as RFC 6749 §2.3.1 asks: each part form-urlencoded, then Base64. */
export function basicAuth(clientId: string, secret: string): string {
  const encode = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(secret)}`).toString('base64')}`;
}

/** A form POST to a back-channel endpoint (token, revoke, introspect); fields set to undefined are left out. */
export async function backChannel(
  app: App,
  path: string,
  fields: Record<string, string | undefined>,
  headers: Record<string, string> = {},
) {
  const body = new URLSearchParams(Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined));
  const response = await app.fetch(
    new Request(`${ORIGIN}${path}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    }),
  );
  const text = await response.text();
  let json: Record<string, string> | null = null;
  try {
    json = text ? (JSON.parse(text) as Record<string, string>) : null;
  } catch {
    // Not JSON (an empty 200 from revocation, say): `text` has it.
  }
  return { status: response.status, headers: response.headers, body: json, text };
}
