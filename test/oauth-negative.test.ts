import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SigningKeys } from '../src/auth/oauth/signing-keys.js';
import { formPost, ORIGIN, PASSWORD, startTestApp, type TestApp } from './support/app.js';
import {
  authorizeCode,
  authorizeParams,
  authorizeRequest,
  backChannel,
  basicAuth,
  consent,
  obtainTokens,
  pkce,
  REDIRECT,
  registerClient,
  registrationRequest,
  RESOURCE,
} from './support/oauth.js';

// Every refusal is asserted exactly: status and `error` code, and for the authorization endpoint
// whether the answer is a page (nothing sent to an address we cannot trust) or a redirect.
// Where a refused request leaves something usable behind (a code, a refresh token), the test
// then uses it successfully, so the refusal is known to come from the one thing changed.

let t: TestApp;
const PEOPLE = ['olivia', 'mark', 'victor', 'maya', 'adam'] as const;
const cookies = {} as Record<(typeof PEOPLE)[number], string>;
let acme: string;
let globex: string;

beforeAll(async () => {
  t = await startTestApp();
  for (const name of PEOPLE) cookies[name] = await t.signIn(`${name}@example.com`);
  acme = t.org('acme').id;
  globex = t.org('globex').id;
});
afterAll(() => t.close());

const WEB = ['https://app.example.com/callback', 'https://app.example.com/other'];

async function expectErrorPage(response: Response, message: string) {
  expect(response.status).toBe(400);
  expect(response.headers.get('location')).toBeNull();
  expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  const html = await response.text();
  expect(html).toContain('This application’s request is not valid');
  expect(html).toContain(message);
}

function expectErrorRedirect(response: Response, redirectUri: string, error: string, state: string | null = 'xyz') {
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get('location')!);
  expect(location.href.startsWith(`${redirectUri}?`)).toBe(true);
  expect(location.searchParams.get('error')).toBe(error);
  expect(location.searchParams.get('state')).toBe(state);
  expect(location.searchParams.get('iss')).toBe(ORIGIN);
  expect(location.searchParams.has('code')).toBe(false);
  return location;
}

function expectOAuthError(
  response: { status: number; headers: Headers; body: Record<string, string> | null },
  status: number,
  error: string,
) {
  expect({ status: response.status, error: response.body?.error }).toEqual({ status, error });
  expect(response.headers.get('cache-control')).toBe('no-store');
}

const grantsOf = (clientId: string) => t.app.db.prisma.oAuthGrant.count({ where: { clientId } });
const me = (token: string) => t.call('GET', '/api/me', { token });

async function expectRevoked(token: string) {
  const response = await me(token);
  expect(response.status).toBe(401);
  expect((await response.json()).code).toBe('token_revoked');
}

describe('authorization endpoint', () => {
  let web: { client_id: string };
  let challenge: string;
  // The web client registered two addresses; every test changes one thing in this request.
  const base = () => authorizeParams(web.client_id, challenge, { redirect_uri: WEB[0]! });

  beforeAll(async () => {
    web = await registerClient(t.app, { client_name: 'Web Client', redirect_uris: WEB });
    challenge = pkce().challenge;
  });

  test('control: the unaltered request shows the consent screen', async () => {
    const response = await authorizeRequest(t.app, base(), cookies.olivia);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('Authorize Web Client');
  });

  test.each([
    ['unregistered', 'https://evil.example/callback'],
    ['altered by port', 'https://app.example.com:8443/callback'],
    ['altered by an explicit default port', 'https://app.example.com:443/callback'],
    ['altered by host case', 'https://APP.example.com/callback'],
    ['altered by path case', 'https://app.example.com/Callback'],
    ['altered by an extra query parameter', 'https://app.example.com/callback?extra=1'],
    ['altered by a trailing slash', 'https://app.example.com/callback/'],
  ])('redirect_uri %s is an error page, not a redirect', async (_name, redirectUri) => {
    const params = base();
    params.set('redirect_uri', redirectUri);
    await expectErrorPage(
      await authorizeRequest(t.app, params, cookies.olivia),
      'redirect_uri does not match any address this application registered.',
    );
  });

  test('redirect_uri missing is an error page when several are registered', async () => {
    const params = base();
    params.delete('redirect_uri');
    await expectErrorPage(
      await authorizeRequest(t.app, params, cookies.olivia),
      'redirect_uri is required: this application registered several.',
    );
  });

  test('redirect_uri missing is accepted when exactly one is registered, and the code goes there and can be redeemed', async () => {
    const single = await registerClient(t.app, { client_name: 'Single Client' });
    const { verifier, challenge: c } = pkce();
    const params = authorizeParams(single.client_id, c);
    params.delete('redirect_uri');
    const location = await consent(t.app, cookies.olivia, params, acme);
    expect(location.href.startsWith(`${REDIRECT}?`)).toBe(true);
    expect(location.searchParams.get('state')).toBe('xyz');
    // RFC 6749 §4.1.3: redirect_uri is required at the token endpoint only if the authorization request carried it.
    const tokens = await backChannel(t.app, '/oauth/token', {
      grant_type: 'authorization_code',
      code: location.searchParams.get('code')!,
      code_verifier: verifier,
      client_id: single.client_id,
      resource: RESOURCE,
    });
    expect(tokens.status).toBe(200);
    expect((await me(tokens.body!.access_token!)).status).toBe(200);
  });

  test('a duplicated client_id or redirect_uri is an error page', async () => {
    for (const name of ['client_id', 'redirect_uri']) {
      const params = base();
      params.append(name, params.get(name)!); // even the same value twice
      await expectErrorPage(
        await authorizeRequest(t.app, params, cookies.olivia),
        'client_id and redirect_uri must be given once.',
      );
    }
  });

  test('a duplicated scope is invalid_request, redirected', async () => {
    const params = base();
    params.append('scope', 'read');
    expectErrorRedirect(await authorizeRequest(t.app, params, cookies.olivia), WEB[0]!, 'invalid_request');
  });

  test('a duplicated state is invalid_request, redirected (with the last state)', async () => {
    const params = base();
    params.append('state', 'second');
    expectErrorRedirect(await authorizeRequest(t.app, params, cookies.olivia), WEB[0]!, 'invalid_request', 'second');
  });

  test('response_type=token is unsupported_response_type', async () => {
    const params = base();
    params.set('response_type', 'token');
    expectErrorRedirect(await authorizeRequest(t.app, params, cookies.olivia), WEB[0]!, 'unsupported_response_type');
  });

  test('an unknown or missing client_id is an error page', async () => {
    const params = base();
    params.set('client_id', 'client_not_registered_here');
    await expectErrorPage(
      await authorizeRequest(t.app, params, cookies.olivia),
      'The application (client_id) is not registered here.',
    );
    params.delete('client_id');
    await expectErrorPage(
      await authorizeRequest(t.app, params, cookies.olivia),
      'The application (client_id) is not registered here.',
    );
  });

  test.each([
    ['missing code_challenge', (p: URLSearchParams) => p.delete('code_challenge')],
    ['code_challenge_method=plain', (p: URLSearchParams) => p.set('code_challenge_method', 'plain')],
    ['missing code_challenge_method', (p: URLSearchParams) => p.delete('code_challenge_method')],
    ['code_challenge too short', (p: URLSearchParams) => p.set('code_challenge', p.get('code_challenge')!.slice(1))],
    [
      'code_challenge with base64 padding',
      (p: URLSearchParams) => p.set('code_challenge', `${p.get('code_challenge')!}=`),
    ],
    [
      'code_challenge with non-base64url characters',
      (p: URLSearchParams) => p.set('code_challenge', `+/${p.get('code_challenge')!.slice(2)}`),
    ],
  ])('PKCE: %s is invalid_request', async (_name, change) => {
    const params = base();
    change(params);
    expectErrorRedirect(await authorizeRequest(t.app, params, cookies.olivia), WEB[0]!, 'invalid_request');
  });

  test.each([
    ['missing', null],
    ['another API', 'https://other.example/api'],
    ['the API with a trailing slash', `${RESOURCE}/`],
    ['the bare origin', ORIGIN],
  ])('resource %s is invalid_target', async (_name, resource) => {
    const params = base();
    if (resource === null) params.delete('resource');
    else params.set('resource', resource);
    expectErrorRedirect(await authorizeRequest(t.app, params, cookies.olivia), WEB[0]!, 'invalid_target');
  });

  test.each(['admin', 'read admin', 'openid', 'toString', 'read constructor'])(
    'scope "%s" is invalid_scope',
    async (scope) => {
      const params = base();
      params.set('scope', scope);
      expectErrorRedirect(await authorizeRequest(t.app, params, cookies.olivia), WEB[0]!, 'invalid_scope');
    },
  );

  test('deny on the consent screen is access_denied with state and iss, and no grant', async () => {
    const client = await registerClient(t.app);
    const location = await consent(t.app, cookies.olivia, authorizeParams(client.client_id, challenge), acme, 'deny');
    expect(location.href.startsWith(`${REDIRECT}?`)).toBe(true);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('xyz');
    expect(location.searchParams.get('iss')).toBe(ORIGIN);
    expect(location.searchParams.has('code')).toBe(false);
    expect(await grantsOf(client.client_id)).toBe(0);
  });

  test('not signed in: sent to /login?next=..., and signing in leads back to the consent screen', async () => {
    const params = base();
    const response = await authorizeRequest(t.app, params);
    expect(response.status).toBe(303);
    const login = new URL(response.headers.get('location')!, ORIGIN);
    expect(login.pathname).toBe('/login');
    const next = login.searchParams.get('next')!;
    expect(next).toBe(`/oauth/authorize?${params}`);

    const signIn = await t.app.fetch(formPost('/login', { email: 'olivia@example.com', password: PASSWORD, next }));
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toBe(next);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const shown = await t.app.fetch(new Request(`${ORIGIN}${next}`, { headers: { cookie } }));
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain('Authorize Web Client');
  });

  test('consent posted with an organization the user is not a member of is not accepted', async () => {
    const client = await registerClient(t.app);
    const params = authorizeParams(client.client_id, challenge);
    for (const orgId of [globex, randomUUID(), '']) {
      const response = await t.app.fetch(
        formPost(
          '/oauth/authorize',
          { ...Object.fromEntries(params), org_id: orgId, decision: 'allow' },
          { cookie: cookies.victor },
        ),
      );
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(await response.text()).toContain('Choose one of your organizations.');
    }
    expect(await grantsOf(client.client_id)).toBe(0);
  });

  test('consent POST from another Origin (or from nowhere) is 403, and grants nothing', async () => {
    const client = await registerClient(t.app);
    const fields = {
      ...Object.fromEntries(authorizeParams(client.client_id, challenge)),
      org_id: acme,
      decision: 'allow',
    };
    const crossSite = await t.app.fetch(
      formPost('/oauth/authorize', fields, { cookie: cookies.olivia, origin: 'https://evil.example' }),
    );
    expect(crossSite.status).toBe(403);
    expect(crossSite.headers.get('location')).toBeNull();
    expect((await crossSite.json()).code).toBe('csrf_rejected');
    const anonymous = new Request(`${ORIGIN}/oauth/authorize`, {
      method: 'POST',
      body: new URLSearchParams(fields),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies.olivia },
    });
    expect((await t.app.fetch(anonymous)).status).toBe(403);
    expect(await grantsOf(client.client_id)).toBe(0);
    // The same form from our own origin goes through.
    const sameSite = await t.app.fetch(formPost('/oauth/authorize', fields, { cookie: cookies.olivia }));
    expect(sameSite.status).toBe(302);
    expect(new URL(sameSite.headers.get('location')!).searchParams.get('code')).toBeTruthy();
  });
});

describe('token endpoint', () => {
  const token = (fields: Record<string, string | undefined>, headers: Record<string, string> = {}) =>
    backChannel(t.app, '/oauth/token', fields, headers);
  const codeFields = (
    clientId: string | undefined,
    code: string,
    verifier: string | undefined,
    extra: Record<string, string | undefined> = {},
  ) => ({
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: clientId,
    resource: RESOURCE,
    ...extra,
  });
  const refreshFields = (
    clientId: string | undefined,
    refreshToken: string,
    extra: Record<string, string | undefined> = {},
  ) => ({
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: clientId,
    resource: RESOURCE,
    ...extra,
  });

  test('PKCE: a wrong code_verifier is invalid_grant, a missing or malformed one invalid_request', async () => {
    const client = await registerClient(t.app);
    const { code, verifier } = await authorizeCode(t.app, cookies.olivia, client.client_id, acme);
    expectOAuthError(await token(codeFields(client.client_id, code, pkce().verifier)), 400, 'invalid_grant');
    expectOAuthError(await token(codeFields(client.client_id, code, undefined)), 400, 'invalid_request');
    expectOAuthError(await token(codeFields(client.client_id, code, 'too-short')), 400, 'invalid_request');
    expect((await token(codeFields(client.client_id, code, verifier))).status).toBe(200);
  });

  test('code_verifier on the refresh_token grant is invalid_request', async () => {
    const { client, tokens } = await obtainTokens(t.app, cookies.olivia, acme);
    expectOAuthError(
      await token(refreshFields(client.client_id, tokens.refresh_token!, { code_verifier: pkce().verifier })),
      400,
      'invalid_request',
    );
    expect((await token(refreshFields(client.client_id, tokens.refresh_token!))).status).toBe(200);
  });

  test('a code used twice is invalid_grant, and what the first exchange issued is revoked', async () => {
    const client = await registerClient(t.app);
    const { code, verifier } = await authorizeCode(t.app, cookies.olivia, client.client_id, acme);
    const first = await token(codeFields(client.client_id, code, verifier));
    expect(first.status).toBe(200);
    expect((await me(first.body!.access_token!)).status).toBe(200);

    expectOAuthError(await token(codeFields(client.client_id, code, verifier)), 400, 'invalid_grant');
    await expectRevoked(first.body!.access_token!);
    expectOAuthError(await token(refreshFields(client.client_id, first.body!.refresh_token!)), 400, 'invalid_grant');
  });

  test('an expired code is invalid_grant', async () => {
    const client = await registerClient(t.app);
    const { code, verifier } = await authorizeCode(t.app, cookies.olivia, client.client_id, acme);
    const expired = await t.app.db.prisma.oAuthCode.updateMany({
      where: { grant: { clientId: client.client_id } },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect(expired.count).toBe(1);
    const response = await token(codeFields(client.client_id, code, verifier));
    expectOAuthError(response, 400, 'invalid_grant');
    expect(response.body!.error_description).toMatch(/expired/);
  });

  test('a code redeemed by another client is invalid_grant (and stays redeemable by its own)', async () => {
    const owner = await registerClient(t.app);
    const thief = await registerClient(t.app);
    const { code, verifier } = await authorizeCode(t.app, cookies.olivia, owner.client_id, acme);
    expectOAuthError(await token(codeFields(thief.client_id, code, verifier)), 400, 'invalid_grant');
    expect((await token(codeFields(owner.client_id, code, verifier))).status).toBe(200);
  });

  test('a code with another (or no) redirect_uri than its authorization request is invalid_grant', async () => {
    const client = await registerClient(t.app, { redirect_uris: WEB });
    const { code, verifier } = await authorizeCode(t.app, cookies.olivia, client.client_id, acme, {
      redirect_uri: WEB[0]!,
    });
    expectOAuthError(
      await token(codeFields(client.client_id, code, verifier, { redirect_uri: WEB[1]! })),
      400,
      'invalid_grant',
    );
    expectOAuthError(
      await token(codeFields(client.client_id, code, verifier, { redirect_uri: undefined })),
      400,
      'invalid_grant',
    );
    expect((await token(codeFields(client.client_id, code, verifier, { redirect_uri: WEB[0]! }))).status).toBe(200);
  });

  test('a missing or wrong resource is invalid_target, on both grants', async () => {
    const client = await registerClient(t.app);
    const { code, verifier } = await authorizeCode(t.app, cookies.olivia, client.client_id, acme);
    expectOAuthError(
      await token(codeFields(client.client_id, code, verifier, { resource: undefined })),
      400,
      'invalid_target',
    );
    expectOAuthError(
      await token(codeFields(client.client_id, code, verifier, { resource: 'https://other.example/api' })),
      400,
      'invalid_target',
    );
    const tokens = await token(codeFields(client.client_id, code, verifier));
    expect(tokens.status).toBe(200);
    const refreshToken = tokens.body!.refresh_token!;
    expectOAuthError(
      await token(refreshFields(client.client_id, refreshToken, { resource: undefined })),
      400,
      'invalid_target',
    );
    expectOAuthError(
      await token(refreshFields(client.client_id, refreshToken, { resource: 'https://other.example/api' })),
      400,
      'invalid_target',
    );
    expect((await token(refreshFields(client.client_id, refreshToken))).status).toBe(200);
  });

  describe('client authentication of confidential clients', () => {
    const expectBasicChallenge = (response: { headers: Headers }) =>
      expect(response.headers.get('www-authenticate')).toMatch(/^Basic\b/);

    test('client_secret_basic: wrong, empty or missing secret, the wrong method, an unknown client, malformed or doubled credentials', async () => {
      const client = await registerClient(t.app, { token_endpoint_auth_method: 'client_secret_basic' });
      const secret = client.client_secret!;
      const id = client.client_id;
      const { code, verifier } = await authorizeCode(t.app, cookies.olivia, id, acme);
      const fields = codeFields(undefined, code, verifier);

      let response = await token(fields, { authorization: basicAuth(id, `${secret}x`) });
      expectOAuthError(response, 401, 'invalid_client');
      expectBasicChallenge(response);

      response = await token(fields, { authorization: basicAuth(id, '') });
      expectOAuthError(response, 401, 'invalid_client');
      expectBasicChallenge(response);

      // No credentials at all: only the client_id.
      expectOAuthError(await token({ ...fields, client_id: id }), 401, 'invalid_client');

      // client_secret_post for a client registered for client_secret_basic.
      expectOAuthError(await token({ ...fields, client_id: id, client_secret: secret }), 401, 'invalid_client');

      response = await token(fields, { authorization: basicAuth('client_not_registered_here', secret) });
      expectOAuthError(response, 401, 'invalid_client');
      expectBasicChallenge(response);

      response = await token(fields, { authorization: `Basic ${Buffer.from(`${id}${secret}`).toString('base64')}` }); // no colon
      expectOAuthError(response, 401, 'invalid_client');
      expectBasicChallenge(response);

      // Two methods at once (RFC 6749 §5.2 names this invalid_request).
      expectOAuthError(
        await token({ ...fields, client_secret: secret }, { authorization: basicAuth(id, secret) }),
        400,
        'invalid_request',
      );
      // A body client_id that differs from the authenticated one.
      const other = await registerClient(t.app);
      expectOAuthError(
        await token({ ...fields, client_id: other.client_id }, { authorization: basicAuth(id, secret) }),
        400,
        'invalid_request',
      );

      // None of that used the code up: the right credentials redeem it.
      expect((await token(fields, { authorization: basicAuth(id, secret) })).status).toBe(200);
    });

    test('client_secret_post: wrong or missing secret, the wrong method, an unknown client', async () => {
      const client = await registerClient(t.app, { token_endpoint_auth_method: 'client_secret_post' });
      const secret = client.client_secret!;
      const id = client.client_id;
      const { code, verifier } = await authorizeCode(t.app, cookies.olivia, id, acme);
      const fields = codeFields(id, code, verifier);

      let response = await token({ ...fields, client_secret: `${secret}x` });
      expectOAuthError(response, 401, 'invalid_client');
      // Every 401 carries a challenge (RFC 9110), even when the client did not try Basic.
      expect(response.headers.get('www-authenticate')).toBe('Basic realm="oauth"');

      expectOAuthError(await token(fields), 401, 'invalid_client');
      expectOAuthError(
        await token({ ...fields, client_id: 'client_not_registered_here', client_secret: secret }),
        401,
        'invalid_client',
      );

      // client_secret_basic for a client registered for client_secret_post: Basic was tried, so the challenge is Basic.
      response = await token({ ...fields, client_id: undefined }, { authorization: basicAuth(id, secret) });
      expectOAuthError(response, 401, 'invalid_client');
      expectBasicChallenge(response);

      expectOAuthError(
        await token({ ...fields, client_secret: secret }, { authorization: basicAuth(id, secret) }),
        400,
        'invalid_request',
      );

      expect((await token({ ...fields, client_secret: secret })).status).toBe(200);
    });

    test('a public client presenting a secret is invalid_client', async () => {
      const client = await registerClient(t.app);
      const { code, verifier } = await authorizeCode(t.app, cookies.olivia, client.client_id, acme);
      expectOAuthError(
        await token({ ...codeFields(client.client_id, code, verifier), client_secret: 'cs_made_up' }),
        401,
        'invalid_client',
      );
      expect((await token(codeFields(client.client_id, code, verifier))).status).toBe(200);
    });
  });

  test.each(['password', 'client_credentials', 'urn:ietf:params:oauth:grant-type:device_code', 'garbage'])(
    'grant_type=%s is unsupported_grant_type',
    async (grantType) => {
      const publicClient = await registerClient(t.app);
      expectOAuthError(
        await token({
          grant_type: grantType,
          client_id: publicClient.client_id,
          username: 'olivia@example.com',
          password: PASSWORD,
        }),
        400,
        'unsupported_grant_type',
      );
      const confidential = await registerClient(t.app, { token_endpoint_auth_method: 'client_secret_basic' });
      expectOAuthError(
        await token(
          { grant_type: grantType, scope: 'read' },
          { authorization: basicAuth(confidential.client_id, confidential.client_secret!) },
        ),
        400,
        'unsupported_grant_type',
      );
    },
  );

  test('a client registered without refresh_token gets none, and the refresh_token grant is unauthorized_client', async () => {
    const client = await registerClient(t.app, { grant_types: ['authorization_code'] });
    const { code, verifier } = await authorizeCode(t.app, cookies.olivia, client.client_id, acme);
    const tokens = await token(codeFields(client.client_id, code, verifier));
    expect(tokens.status).toBe(200);
    expect(tokens.body!.access_token).toBeTruthy();
    expect(tokens.body).not.toHaveProperty('refresh_token');
    expect(await t.app.db.prisma.oAuthRefreshToken.count({ where: { grant: { clientId: client.client_id } } })).toBe(0);
    expectOAuthError(await token(refreshFields(client.client_id, 'rt_whatever')), 400, 'unauthorized_client');
  });

  test('a refresh token used twice is invalid_grant and revokes the whole family', async () => {
    const { client, tokens } = await obtainTokens(t.app, cookies.olivia, acme);
    const rotated = await token(refreshFields(client.client_id, tokens.refresh_token!));
    expect(rotated.status).toBe(200);
    expect((await me(rotated.body!.access_token!)).status).toBe(200);

    expectOAuthError(await token(refreshFields(client.client_id, tokens.refresh_token!)), 400, 'invalid_grant');
    // The newer refresh token, and every access token of the grant, are dead too.
    expectOAuthError(await token(refreshFields(client.client_id, rotated.body!.refresh_token!)), 400, 'invalid_grant');
    await expectRevoked(tokens.access_token!);
    await expectRevoked(rotated.body!.access_token!);
  });

  test("another client's refresh token is invalid_grant (and still works for its own)", async () => {
    const { client, tokens } = await obtainTokens(t.app, cookies.olivia, acme);
    const other = await registerClient(t.app);
    expectOAuthError(await token(refreshFields(other.client_id, tokens.refresh_token!)), 400, 'invalid_grant');
    expect((await token(refreshFields(client.client_id, tokens.refresh_token!))).status).toBe(200);
  });

  test('widening the scope on refresh is invalid_scope; narrowing to read gives a read-only access token', async () => {
    const narrow = await obtainTokens(t.app, cookies.maya, acme, 'read');
    for (const scope of ['read write', 'write', 'admin']) {
      expectOAuthError(
        await token(refreshFields(narrow.client.client_id, narrow.tokens.refresh_token!, { scope })),
        400,
        'invalid_scope',
      );
    }
    expect(
      (await token(refreshFields(narrow.client.client_id, narrow.tokens.refresh_token!, { scope: 'read' }))).status,
    ).toBe(200);

    const { client, tokens } = await obtainTokens(t.app, cookies.maya, acme, 'read write');
    const readOnly = await token(refreshFields(client.client_id, tokens.refresh_token!, { scope: 'read' }));
    expect(readOnly.status).toBe(200);
    expect(readOnly.body!.scope).toBe('read');
    const accessToken = readOnly.body!.access_token!;
    expect((await me(accessToken)).status).toBe(200);
    const write = await t.call('POST', '/api/issues', {
      token: accessToken,
      body: { project_id: t.org('acme').projects[0]!.id, title: 'read-only' },
    });
    expect(write.status).toBe(403);
    expect((await write.json()).code).toBe('insufficient_scope');
    // RFC 6749 §6: the new refresh token keeps the scope of the one it replaces; only the access token was narrowed.
    const again = await token(refreshFields(client.client_id, readOnly.body!.refresh_token!, { scope: 'read write' }));
    expect(again.status).toBe(200);
    expect(again.body!.scope).toBe('read write');
  });

  test('a body that is not application/x-www-form-urlencoded is invalid_request', async () => {
    const client = await registerClient(t.app);
    const { code, verifier } = await authorizeCode(t.app, cookies.olivia, client.client_id, acme);
    const fields = codeFields(client.client_id, code, verifier) as Record<string, string>;
    const send = (body: BodyInit, contentType: string | null) =>
      t.app.fetch(
        new Request(`${ORIGIN}/oauth/token`, {
          method: 'POST',
          body,
          headers: contentType ? { 'content-type': contentType } : {},
        }),
      );
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    for (const response of [
      await send(JSON.stringify(fields), 'application/json'),
      await send(new URLSearchParams(fields).toString(), 'text/plain'),
      await send(new URLSearchParams(fields).toString(), null),
      await send(form, null), // multipart/form-data, boundary set by the Request
    ]) {
      expect(response.status).toBe(400);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect((await response.json()).error).toBe('invalid_request');
    }
    expect((await token(fields)).status).toBe(200);
  });

  test('a repeated parameter is invalid_request', async () => {
    const client = await registerClient(t.app);
    const { code, verifier } = await authorizeCode(t.app, cookies.olivia, client.client_id, acme);
    const body = new URLSearchParams(codeFields(client.client_id, code, verifier) as Record<string, string>);
    body.append('code', code);
    const response = await t.app.fetch(
      new Request(`${ORIGIN}/oauth/token`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
    );
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe('invalid_request');
  });

  test('responses carry Cache-Control: no-store (and Pragma: no-cache), success or error', async () => {
    const client = await registerClient(t.app);
    const { code, verifier } = await authorizeCode(t.app, cookies.olivia, client.client_id, acme);
    const failed = await token(codeFields(client.client_id, code, pkce().verifier));
    const issued = await token(codeFields(client.client_id, code, verifier));
    const refreshed = await token(refreshFields(client.client_id, issued.body!.refresh_token!));
    expect([failed.status, issued.status, refreshed.status]).toEqual([400, 200, 200]);
    for (const response of [failed, issued, refreshed]) {
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('pragma')).toBe('no-cache');
    }
  });
});

describe('access tokens on the API', () => {
  let keys: SigningKeys;
  let accessToken: string;
  let claims: Record<string, unknown>;

  const decode = (jwt: string) =>
    JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
  // The claims of a real token, re-signed with the app's own key: only what a test changes differs.
  const resign = (changes: Record<string, unknown>, seconds = 3600, typ = 'at+jwt') => {
    const { iat: _iat, exp: _exp, ...rest } = claims;
    return keys.sign({ ...rest, ...changes }, typ, seconds);
  };
  async function expect401(token: string, code: string) {
    const response = await me(token);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect((await response.json()).code).toBe(code);
  }

  beforeAll(async () => {
    keys = await SigningKeys.open(t.app.db.prisma);
    accessToken = (await obtainTokens(t.app, cookies.adam, acme)).tokens.access_token!;
    claims = decode(accessToken);
  });

  test('control: the same claims re-signed with our key are accepted', async () => {
    expect(claims).toMatchObject({ iss: ORIGIN, aud: RESOURCE });
    expect((await me(await resign({}))).status).toBe(200);
  });

  test('a token for another audience is 401', async () => {
    await expect401(await resign({ aud: 'https://other.example/api', iss: ORIGIN }), 'token_invalid');
  });

  test('a token from another issuer is 401', async () => {
    await expect401(await resign({ iss: 'https://other.example' }), 'token_invalid');
  });

  test('a token of another type (typ JWT, not at+jwt) is 401', async () => {
    await expect401(await resign({}, 3600, 'JWT'), 'token_invalid');
  });

  test('an expired token is 401 token_expired', async () => {
    await expect401(await resign({}, -60), 'token_expired');
  });

  test('a token with a bad signature is 401', async () => {
    const [header, payload, signature] = accessToken.split('.') as [string, string, string];
    const i = Math.floor(payload.length / 2);
    const flipped = payload[i] === 'A' ? 'B' : 'A';
    await expect401(`${header}.${payload.slice(0, i)}${flipped}${payload.slice(i + 1)}.${signature}`, 'token_invalid');
    // A well-formed payload with more rights, under the original signature.
    const widened = Buffer.from(JSON.stringify({ ...claims, sub: t.user('olivia').id })).toString('base64url');
    await expect401(`${header}.${widened}.${signature}`, 'token_invalid');
    // And one that says it needs no signature at all.
    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url');
    expect((await me(`${none}.${payload}.`)).status).toBe(401);
    expect((await me(accessToken)).status).toBe(200);
  });

  test('a token in the query string is 401 token_in_url, with or without a header', async () => {
    const alone = await t.call('GET', `/api/me?access_token=${accessToken}`);
    expect(alone.status).toBe(401);
    expect((await alone.json()).code).toBe('token_in_url');
    const withHeader = await t.call('GET', `/api/me?access_token=${accessToken}`, { token: accessToken });
    expect(withHeader.status).toBe(401);
    expect((await withHeader.json()).code).toBe('token_in_url');
  });
});

describe('registration', () => {
  test.each([
    ['http on a non-loopback host', 'http://app.example.com/callback'],
    ['http on a host that merely starts like loopback', 'http://127.0.0.1.evil.example/callback'],
    ['a fragment', 'https://app.example.com/callback#frag'],
    ['an empty fragment', 'https://app.example.com/callback#'],
    ['javascript:', 'javascript:alert(document.cookie)'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
    ['file:', 'file:///etc/passwd'],
    ['a relative reference', '/callback'],
  ])('a redirect URI with %s is 400 invalid_redirect_uri', async (_name, uri) => {
    const response = await registrationRequest(t.app, {
      redirect_uris: ['https://app.example.com/ok', uri],
      token_endpoint_auth_method: 'none',
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe('invalid_redirect_uri');
  });

  test('control: https anywhere and http on loopback are accepted', async () => {
    const response = await registrationRequest(t.app, {
      redirect_uris: [
        'https://app.example.com/callback',
        'http://127.0.0.1:8080/cb',
        'http://localhost/cb',
        'http://[::1]:3000/cb',
      ],
      token_endpoint_auth_method: 'none',
    });
    expect(response.status).toBe(201);
  });

  test('a body that is not JSON is 400 invalid_client_metadata', async () => {
    const metadata = JSON.stringify({ redirect_uris: [REDIRECT] });
    for (const response of [
      await registrationRequest(t.app, '{"redirect_uris": [', {}),
      await registrationRequest(t.app, metadata, { contentType: 'text/plain' }),
      await registrationRequest(t.app, new URLSearchParams({ redirect_uris: REDIRECT }).toString(), {
        contentType: 'application/x-www-form-urlencoded',
      }),
      await registrationRequest(t.app, '[]', {}),
    ]) {
      expect(response.status).toBe(400);
      expect((await response.json()).error).toBe('invalid_client_metadata');
    }
  });

  test('grant_types without authorization_code is 400 invalid_client_metadata', async () => {
    for (const grantTypes of [['refresh_token'], ['client_credentials'], []]) {
      const response = await registrationRequest(t.app, { redirect_uris: [REDIRECT], grant_types: grantTypes });
      expect(response.status).toBe(400);
      expect((await response.json()).error).toBe('invalid_client_metadata');
    }
  });

  test('a confidential registration returns client_secret once; only its hash is stored', async () => {
    const response = await registrationRequest(t.app, {
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'client_secret_post',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const client = (await response.json()) as { client_id: string; client_secret: string };
    expect(client.client_secret).toMatch(/^cs_[A-Za-z0-9_-]{43}$/);

    const rows = await t.app.db.prisma.$queryRaw<
      Record<string, unknown>[]
    >`SELECT * FROM oauth_clients WHERE client_id = ${client.client_id}`;
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    const stored = Object.values(row)
      .map((value) =>
        value instanceof Uint8Array
          ? [
              Buffer.from(value).toString('utf8'),
              Buffer.from(value).toString('hex'),
              Buffer.from(value).toString('base64'),
            ].join(' ')
          : String(value),
      )
      .join(' ');
    expect(stored).not.toContain(client.client_secret);
    expect(stored).not.toContain(client.client_secret.slice(3));
    expect(
      Buffer.from(row.secret_hash as Uint8Array).equals(createHash('sha256').update(client.client_secret).digest()),
    ).toBe(true);

    // Nothing hands it out again: the registration endpoint has no read.
    expect((await t.call('GET', '/oauth/register')).status).toBe(405);
    // A public client gets no secret at all.
    const publicClient = await registerClient(t.app);
    expect(publicClient).not.toHaveProperty('client_secret');
  });

  test('the 6th registration from one address within an hour is 429', async () => {
    const address = '203.0.113.77';
    for (let i = 0; i < 5; i++)
      expect((await registrationRequest(t.app, { redirect_uris: [REDIRECT] }, { remoteAddress: address })).status).toBe(
        201,
      );
    const sixth = await registrationRequest(t.app, { redirect_uris: [REDIRECT] }, { remoteAddress: address });
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await sixth.json()).error).toBe('temporarily_unavailable');
    // Counted per address: another one still registers.
    expect(
      (await registrationRequest(t.app, { redirect_uris: [REDIRECT] }, { remoteAddress: '203.0.113.78' })).status,
    ).toBe(201);
  });
});

describe('revocation and introspection', () => {
  test("revoking another client's token is refused with invalid_request, and the token still works", async () => {
    const { client, tokens } = await obtainTokens(t.app, cookies.mark, globex);
    const other = await registerClient(t.app);
    for (const value of [tokens.access_token!, tokens.refresh_token!]) {
      const response = await backChannel(t.app, '/oauth/revoke', { token: value, client_id: other.client_id });
      expectOAuthError(response, 400, 'invalid_request');
    }
    expect((await me(tokens.access_token!)).status).toBe(200);
    const grant = await t.app.db.prisma.oAuthGrant.findFirstOrThrow({ where: { clientId: client.client_id } });
    expect(grant.revokedAt).toBeNull();
    const refreshed = await backChannel(t.app, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: client.client_id,
      resource: RESOURCE,
    });
    expect(refreshed.status).toBe(200);
  });

  test('revoking an unknown token is 200', async () => {
    const client = await registerClient(t.app);
    for (const value of [
      'rt_never_issued',
      'not.a.jwt',
      `${Buffer.from('{}').toString('base64url')}.${Buffer.from('{}').toString('base64url')}.sig`,
    ]) {
      const response = await backChannel(t.app, '/oauth/revoke', { token: value, client_id: client.client_id });
      expect(response.status).toBe(200);
      expect(response.text).toBe('');
    }
  });

  test("introspecting another client's token is { active: false }", async () => {
    const { client, tokens } = await obtainTokens(t.app, cookies.mark, acme);
    const other = await registerClient(t.app);
    for (const value of [tokens.access_token!, tokens.refresh_token!]) {
      const theirs = await backChannel(t.app, '/oauth/introspect', { token: value, client_id: other.client_id });
      expect(theirs.status).toBe(200);
      expect(theirs.body).toEqual({ active: false });
      const own = await backChannel(t.app, '/oauth/introspect', { token: value, client_id: client.client_id });
      expect(own.body).toMatchObject({ active: true, client_id: client.client_id });
    }
  });
});

describe('edge cases of the request syntax', () => {
  test('a native app on loopback may come back on any port; other hosts and paths must match exactly', async () => {
    const client = await registerClient(t.app, { redirect_uris: ['http://127.0.0.1:8080/cb'] });
    const { challenge } = pkce();
    const ephemeral = authorizeParams(client.client_id, challenge, { redirect_uri: 'http://127.0.0.1:51234/cb' });
    const location = await consent(t.app, cookies.olivia, ephemeral, acme);
    expect(location.href.startsWith('http://127.0.0.1:51234/cb?code=')).toBe(true);
    for (const redirect of ['http://127.0.0.1:51234/other', 'http://localhost:8080/cb']) {
      await expectErrorPage(
        await authorizeRequest(
          t.app,
          authorizeParams(client.client_id, challenge, { redirect_uri: redirect }),
          cookies.olivia,
        ),
        'redirect_uri does not match',
      );
    }
  });

  test('missing response_type is invalid_request; an empty scope is invalid_scope', async () => {
    const client = await registerClient(t.app);
    const { challenge } = pkce();
    const params = authorizeParams(client.client_id, challenge);
    params.delete('response_type');
    expectErrorRedirect(await authorizeRequest(t.app, params, cookies.olivia), REDIRECT, 'invalid_request');
    expectErrorRedirect(
      await authorizeRequest(t.app, authorizeParams(client.client_id, challenge, { scope: '' }), cookies.olivia),
      REDIRECT,
      'invalid_scope',
    );
  });

  test('missing grant_type is invalid_request', async () => {
    const client = await registerClient(t.app);
    expectOAuthError(await backChannel(t.app, '/oauth/token', { client_id: client.client_id }), 400, 'invalid_request');
  });

  test('the token endpoint allows 60 requests a minute per authenticated client; made-up client_ids do not share or escape it', async () => {
    const busy = await registerClient(t.app);
    const other = await registerClient(t.app);
    const attempt = (clientId: string) =>
      backChannel(t.app, '/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: 'rt_nope',
        client_id: clientId,
        resource: RESOURCE,
      });
    for (let i = 0; i < 60; i++) expectOAuthError(await attempt(busy.client_id), 400, 'invalid_grant');
    const refused = await attempt(busy.client_id);
    expectOAuthError(refused, 429, 'temporarily_unavailable');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expectOAuthError(await attempt(other.client_id), 400, 'invalid_grant');
    const unknown = await attempt('client_made_up');
    expectOAuthError(unknown, 401, 'invalid_client');
    expect(unknown.headers.get('www-authenticate')).toBe('Basic realm="oauth"');
  });
});
