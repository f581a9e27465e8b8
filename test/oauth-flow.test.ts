import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';
import { consent, obtainTokens, REDIRECT, RESOURCE } from './support/oauth.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('a standards-strict client (oauth4webapi) end to end', () => {
  test('discovery, registration, PKCE authorization with the org chosen on consent, token, API call, refresh, revocation', async () => {
    const options = {
      // oauth4webapi insists on the global Response class; app.fetch answers with @whatwg-node's
      // (src/http/fetch-api.ts). Over a socket the client would build its own, as here.
      [oauth.customFetch]: async (url: string, init: RequestInit) => {
        const response = await t.app.fetch(new Request(url, init));
        return new Response(response.status === 204 ? null : await response.arrayBuffer(), response);
      },
      [oauth.allowInsecureRequests]: true,
    };
    const issuer = new URL(ORIGIN);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { ...options, algorithm: 'oauth2' }),
    );
    expect(as.code_challenge_methods_supported).toEqual(['S256']);

    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        {
          client_name: 'Strict Client',
          redirect_uris: [REDIRECT],
          grant_types: ['authorization_code', 'refresh_token'],
          token_endpoint_auth_method: 'client_secret_basic',
        },
        options,
      ),
    );
    const client: oauth.Client = { client_id: registered.client_id };
    const auth = oauth.ClientSecretBasic(registered.client_secret as string);

    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      scope: 'read write',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      resource: RESOURCE,
    });
    // Mark is in two organizations; he picks Globex on the consent screen.
    const cookie = await t.signIn('mark@example.com');
    const callback = await consent(t.app, cookie, params, t.org('globex').id);
    expect(callback.searchParams.get('iss')).toBe(ORIGIN);
    const callbackParams = oauth.validateAuthResponse(as, client, callback, state);

    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, auth, callbackParams, REDIRECT, verifier, {
        ...options,
        additionalParameters: { resource: RESOURCE },
      }),
    );
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe('read write');
    expect(tokens.refresh_token).toMatch(/^rt_/);

    const orgs = await t.call('GET', '/api/me/orgs', { token: tokens.access_token });
    expect(orgs.status).toBe(200);
    expect((await orgs.json()).orgs.map((o: { org_slug: string }) => o.org_slug)).toEqual(['globex']);
    const viaHeader = await t.call('GET', '/api/me', { headers: { 'x-auth-token': tokens.access_token } });
    expect((await viaHeader.json()).username).toBe('mark');

    const introspected = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, auth, tokens.access_token, options),
    );
    expect(introspected).toMatchObject({
      active: true,
      sub: t.user('mark').id,
      scope: 'read write',
      org_id: t.org('globex').id,
    });

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, {
        ...options,
        additionalParameters: { resource: RESOURCE },
      }),
    );
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await t.call('GET', '/api/me', { token: refreshed.access_token })).status).toBe(200);

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, auth, refreshed.refresh_token!, options),
    );
    for (const token of [tokens.access_token, refreshed.access_token]) {
      const after = await t.call('GET', '/api/me', { token });
      expect(after.status).toBe(401);
      expect((await after.json()).code).toBe('token_revoked');
    }
  });
});

describe('using OAuth access tokens on the API', () => {
  test("acts with the user's current role in the token's org; a removed membership is 401", async () => {
    const cookie = await t.signIn('victor@example.com');
    const { tokens } = await obtainTokens(t.app, cookie, t.org('acme').id);
    const create = () =>
      t.call('POST', '/api/issues', {
        token: tokens.access_token,
        body: { project_id: t.org('acme').projects[0]!.id, title: 'via oauth' },
      });
    expect((await create()).status).toBe(403); // viewer
    const membership = { orgId_userId: { orgId: t.org('acme').id, userId: t.user('victor').id } };
    await t.app.db.prisma.membership.update({ where: membership, data: { role: 'member' } });
    expect((await create()).status).toBe(201);
    await t.app.db.prisma.membership.delete({ where: membership });
    expect((await t.call('GET', '/api/me', { token: tokens.access_token })).status).toBe(401);
    await t.app.db.prisma.membership.create({ data: { ...membership.orgId_userId, role: 'viewer' } });
  });

  test("X-Org-Id different from the token's org is 403", async () => {
    const { tokens } = await obtainTokens(t.app, await t.signIn('mark@example.com'), t.org('acme').id);
    expect(
      (await t.call('GET', '/api/me', { token: tokens.access_token, headers: { 'x-org-id': t.org('acme').id } }))
        .status,
    ).toBe(200);
    const other = await t.call('GET', '/api/me', {
      token: tokens.access_token,
      headers: { 'x-org-id': t.org('globex').id },
    });
    expect(other.status).toBe(403);
  });

  test('a token in the query string is refused', async () => {
    const { tokens } = await obtainTokens(t.app, await t.signIn('olivia@example.com'), t.org('acme').id);
    const response = await t.call('GET', `/api/me?access_token=${tokens.access_token}`);
    expect(response.status).toBe(401);
    const both = await t.call('GET', `/api/me?access_token=${tokens.access_token}`, { token: tokens.access_token });
    expect(both.status).toBe(401);
    expect((await both.json()).code).toBe('token_in_url');
  });

  test('a read-only token gets 403 insufficient_scope on a write, on REST and GraphQL', async () => {
    const { tokens } = await obtainTokens(t.app, await t.signIn('olivia@example.com'), t.org('acme').id, 'read');
    expect((await t.call('GET', '/api/me', { token: tokens.access_token })).status).toBe(200);
    const rest = await t.call('POST', '/api/issues', {
      token: tokens.access_token,
      body: { project_id: t.org('acme').projects[0]!.id, title: 'nope' },
    });
    expect(rest.status).toBe(403);
    expect(rest.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="write", resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/api"`,
    );
    expect((await rest.json()).code).toBe('insufficient_scope');
    const gql = await t.call('POST', '/api/graphql', {
      token: tokens.access_token,
      body: { query: 'mutation { createApiKey(input: { name: "x" }) { __typename } }' },
    });
    expect(gql.status).toBe(403);
    expect(gql.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="write", resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/api"`,
    );
    expect((await gql.json()).errors[0].extensions.code).toBe('INSUFFICIENT_SCOPE');
  });

  test('OAuth callers may create API keys and use cross-organization operations', async () => {
    const { tokens } = await obtainTokens(t.app, await t.signIn('maya@example.com'), t.org('acme').id);
    const key = await t.call('POST', '/api/api-keys', { token: tokens.access_token, body: { name: 'from oauth' } });
    expect(key.status).toBe(201);
    expect((await t.call('GET', '/api/orgs/search?q=glob', { token: tokens.access_token })).status).toBe(200);
  });

  test('all access tokens of one grant share one rate-limit bucket', async () => {
    const { client, tokens } = await obtainTokens(t.app, await t.signIn('adam@example.com'), t.org('acme').id);
    const first = await t.call('GET', '/api/me', { token: tokens.access_token });
    const refreshed = await (
      await t.app.fetch(
        new Request(`${ORIGIN}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'refresh_token',
            refresh_token: tokens.refresh_token!,
            client_id: client.client_id,
            resource: RESOURCE,
          }),
        }),
      )
    ).json();
    const second = await t.call('GET', '/api/me', { token: refreshed.access_token });
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(
      Number(first.headers.get('x-ratelimit-remaining')) - 1,
    );
  });

  test('401s carry the protected resource metadata, which points at this authorization server', async () => {
    const response = await t.call('GET', '/api/me');
    expect(response.headers.get('www-authenticate')).toContain(
      `resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/api"`,
    );
    for (const path of ['/.well-known/oauth-protected-resource/api', '/.well-known/oauth-protected-resource']) {
      expect(await (await t.call('GET', path)).json()).toMatchObject({
        resource: RESOURCE,
        authorization_servers: [ORIGIN],
        scopes_supported: ['read', 'write'],
      });
    }
    const metadata = await (await t.call('GET', '/.well-known/oauth-authorization-server')).json();
    expect(metadata).toMatchObject({
      issuer: ORIGIN,
      authorization_endpoint: `${ORIGIN}/oauth/authorize`,
      token_endpoint: `${ORIGIN}/oauth/token`,
      registration_endpoint: `${ORIGIN}/oauth/register`,
      revocation_endpoint: `${ORIGIN}/oauth/revoke`,
      introspection_endpoint: `${ORIGIN}/oauth/introspect`,
      jwks_uri: `${ORIGIN}/oauth/jwks`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(metadata.token_endpoint_auth_methods_supported).toContain('none');
    const jwks = await (await t.call('GET', '/oauth/jwks')).json();
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: expect.any(String) });
    expect(jwks.keys[0].d).toBeUndefined();
  });
});
