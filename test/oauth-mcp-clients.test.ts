import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { refusedAddress } from '../src/http/outbound-address.js';
import { safeFetch } from '../src/http/safe-fetch.js';
import { freshFor } from '../src/auth/oauth/client-metadata.js';
import { formPost, startTestApp, type TestApp } from './support/app.js';
import { authorizeParams, consent, pkce, registrationRequest } from './support/oauth.js';

// Registration requests as stock MCP clients send them (copied from their traffic), and the
// refusals that stay. RFC 7591 §3.2.1 lets the server replace what it does not serve.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const VS_CODE = {
  client_name: 'Visual Studio Code',
  client_uri: 'https://code.visualstudio.com',
  grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
  response_types: ['code'],
  redirect_uris: [
    'https://insiders.vscode.dev/redirect',
    'https://vscode.dev/redirect',
    'http://localhost/',
    'http://127.0.0.1/',
    'http://localhost:33418/',
    'http://127.0.0.1:33418/',
  ],
  token_endpoint_auth_method: 'none',
};
const CURSOR = {
  redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback'],
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  client_name: 'Cursor',
};
const CLAUDE = {
  client_name: 'claudeai',
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'client_secret_post',
  scope: 'claudeai',
  redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
};

describe('registration requests of stock MCP clients', () => {
  test('VS Code: the device grant is dropped from the registered metadata, not refused', async () => {
    const response = await registrationRequest(t.app, VS_CODE);
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(body.grant_types).toEqual(['authorization_code', 'refresh_token']);
    expect(body.redirect_uris).toEqual(VS_CODE.redirect_uris);
    // Its loopback listener comes back on whatever port is free, localhost included.
    const { challenge } = pkce();
    const cookie = await t.signIn('olivia@example.com');
    const location = await consent(
      t.app,
      cookie,
      authorizeParams(body.client_id, challenge, { redirect_uri: 'http://localhost:51000/' }),
      t.org('acme').id,
    );
    expect(location.origin).toBe('http://localhost:51000');
  });

  test("Cursor: a native app's private-use scheme, and the consent page lets the form lead there", async () => {
    const response = await registrationRequest(t.app, CURSOR);
    expect(response.status).toBe(201);
    const { client_id } = await response.json();
    const { challenge } = pkce();
    const cookie = await t.signIn('olivia@example.com');
    const params = authorizeParams(client_id, challenge, { redirect_uri: CURSOR.redirect_uris[0]! });
    const shown = await t.app.fetch(
      new Request(`http://localhost:4000/oauth/authorize?${params}`, { headers: { cookie } }),
    );
    expect(shown.status).toBe(200);
    expect(shown.headers.get('content-security-policy')).toContain("form-action 'self' cursor:;");
    const location = await consent(t.app, cookie, params, t.org('acme').id);
    expect(location.href.startsWith('cursor://anysphere.cursor-mcp/oauth/callback?code=')).toBe(true);
  });

  test('Claude: a confidential web client with its own scope name (ignored at registration)', async () => {
    const response = await registrationRequest(t.app, CLAUDE);
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(body.client_secret).toMatch(/^cs_/);
    expect(body.token_endpoint_auth_method).toBe('client_secret_post');
  });

  test.each([
    ['javascript:', 'javascript:alert(1)//cb'],
    ['data:', 'data:text/html,hi'],
    ['file:', 'file:///tmp/cb'],
    ['blob:', 'blob:https://app.example/123'],
    ['vbscript:', 'vbscript:msgbox'],
    ['mailto:', 'mailto:someone@example.com'],
  ])('%s stays refused', async (_name, uri) => {
    const response = await registrationRequest(t.app, { redirect_uris: [uri], token_endpoint_auth_method: 'none' });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe('invalid_redirect_uri');
  });

  test('only unsupported grants, or no code response type: still refused', async () => {
    const onlyDevice = await registrationRequest(t.app, {
      redirect_uris: ['https://app.example/cb'],
      grant_types: ['urn:ietf:params:oauth:grant-type:device_code'],
    });
    expect(onlyDevice.status).toBe(400);
    expect((await onlyDevice.json()).error).toBe('invalid_client_metadata');
    const token = await registrationRequest(t.app, {
      redirect_uris: ['https://app.example/cb'],
      response_types: ['token'],
    });
    expect(token.status).toBe(400);
  });
});

describe('the consent page promises what the role allows, no more', () => {
  test("a viewer's write scope can do nothing more than read; an owner's can create", async () => {
    const response = await registrationRequest(t.app, CURSOR);
    const { client_id } = await response.json();
    const params = authorizeParams(client_id, pkce().challenge, { redirect_uri: CURSOR.redirect_uris[0]! });
    const pageFor = async (email: string) =>
      (
        await t.app.fetch(
          new Request(`http://localhost:4000/oauth/authorize?${params}`, {
            headers: { cookie: await t.signIn(email) },
          }),
        )
      ).text();
    const viewer = await pageFor('victor@example.com');
    expect(viewer).toContain('What it can do in Acme Corp, as viewer');
    expect(viewer).toContain('One issue, by id or key');
    expect(viewer).not.toContain('Create an issue');
    const owner = await pageFor('olivia@example.com');
    expect(owner).toContain('Create an issue');
    expect(owner).toContain('Create a project');
  });
});

describe('Authorized applications', () => {
  test("a person lists and revokes only their own grants: another's is 404 and stays", async () => {
    const { client_id } = await (await registrationRequest(t.app, { ...CURSOR, client_name: 'Olivia Agent' })).json();
    await consent(
      t.app,
      await t.signIn('olivia@example.com'),
      authorizeParams(client_id, pkce().challenge, { redirect_uri: CURSOR.redirect_uris[0]! }),
      t.org('acme').id,
    );
    const grant = await t.app.db.prisma.oAuthGrant.findFirstOrThrow({ where: { clientId: client_id } });
    const maya = await t.signIn('maya@example.com');
    const listing = await (
      await t.app.fetch(new Request('http://localhost:4000/settings/applications', { headers: { cookie: maya } }))
    ).text();
    expect(listing).not.toContain('Olivia Agent');
    const refused = await t.app.fetch(formPost(`/settings/applications/${grant.id}/revoke`, {}, { cookie: maya }));
    expect(refused.status).toBe(404);
    expect((await t.app.db.prisma.oAuthGrant.findUniqueOrThrow({ where: { id: grant.id } })).revokedAt).toBeNull();
    // Signed out: to the sign-in page (a bearer token is not a browser's session, pages ignore it).
    expect((await t.app.fetch(new Request('http://localhost:4000/settings/applications'))).status).toBe(303);
  });
});

describe('outbound fetch safety (src/http/safe-fetch.ts, src/http/outbound-address.ts)', () => {
  test.each([
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['::1', false],
    ['fe80::1', false],
    ['fd00::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['224.0.0.1', false],
    ['8.8.8.8', true],
    ['2606:4700:4700::1111', true],
    ['::ffff:8.8.8.8', true],
  ])('%s public: %s', (address, expected) => {
    expect(refusedAddress(address, { allowPrivateNetworks: false }) === null).toBe(expected);
  });

  test('a host the operator allowed may resolve to a private address, never to a cloud metadata address', async () => {
    expect(refusedAddress('10.1.2.3', { allowPrivateNetworks: true })).toBeNull();
    expect(refusedAddress('169.254.169.254', { allowPrivateNetworks: true })).toMatch(/metadata/);
    await expect(
      safeFetch(new URL('https://169.254.169.254/x'), {
        timeoutMs: 1000,
        maxBytes: 10,
        allowedHosts: ['169.254.169.254'],
      }),
    ).rejects.toMatchObject({
      code: 'blocked_address',
    });
  });

  test('refuses http, loopback names after DNS, and does not need the network to say so', async () => {
    await expect(safeFetch(new URL('http://example.com/x'), { timeoutMs: 1000, maxBytes: 10 })).rejects.toMatchObject({
      code: 'not_https',
    });
    await expect(safeFetch(new URL('https://localhost:1/x'), { timeoutMs: 1000, maxBytes: 10 })).rejects.toMatchObject({
      code: 'blocked_address',
    });
    await expect(safeFetch(new URL('https://[::1]:1/x'), { timeoutMs: 1000, maxBytes: 10 })).rejects.toMatchObject({
      code: 'blocked_address',
    });
  });

  test('HTTP caching of metadata documents: max-age, no-store, Expires, a day at most', () => {
    expect(freshFor(new Headers({ 'cache-control': 'public, max-age=120' }))).toBe(120);
    expect(freshFor(new Headers({ 'cache-control': 'no-store' }))).toBe(0);
    expect(freshFor(new Headers({ 'cache-control': 'max-age=99999999' }))).toBe(86400);
    expect(freshFor(new Headers({ expires: new Date(Date.now() + 60_000).toUTCString() }))).toBeGreaterThan(50);
    expect(freshFor(new Headers())).toBe(300);
  });
});
