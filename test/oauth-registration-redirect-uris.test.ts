import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';
import { registrationRequest } from './support/oauth.js';

// RFC 7591 registration refuses redirect URIs that exact matching could not honour (wildcards)
// or that hide a secret or a second host (userinfo), with `invalid_redirect_uri`; the refusal
// names the URI, and nothing is registered.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('registration: redirect URI shape', () => {
  test.each([
    ['a wildcard host', 'https://*.client.example/cb', 'wildcard'],
    ['a percent-encoded wildcard host', 'https://%2A.client.example/cb', 'wildcard'],
    ['a bare wildcard host', 'https://*/cb', 'wildcard'],
    ['a wildcard loopback host', 'http://*.localhost/cb', 'wildcard'],
    ['user and password', 'https://user:pw@client.example/cb', 'userinfo'],
    ['a user only', 'https://user@client.example/cb', 'userinfo'],
    ['a password only', 'https://:pw@client.example/cb', 'userinfo'],
    ['an empty userinfo', 'https://@client.example/cb', 'userinfo'],
    ['userinfo that looks like the host', 'https://client.example@evil.example/cb', 'userinfo'],
    ['userinfo on loopback', 'http://user:pw@127.0.0.1:8080/cb', 'userinfo'],
    ['a host that is no DNS name', 'https://client_app.example/cb', 'not a DNS name'],
  ])('%s is 400 invalid_redirect_uri', async (_name, uri, reason) => {
    const before = await t.app.db.prisma.oAuthClient.count();
    const response = await registrationRequest(t.app, {
      redirect_uris: ['https://client.example/ok', uri],
      token_endpoint_auth_method: 'none',
    });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error).toBe('invalid_redirect_uri');
    expect(body.error_description).toContain(reason);
    expect(await t.app.db.prisma.oAuthClient.count()).toBe(before);
  });

  test('control: plain hosts, IDNs, IP literals and loopback on any port are accepted', async () => {
    const response = await registrationRequest(t.app, {
      redirect_uris: [
        'https://client.example/cb',
        'https://sub-1.client.example:8443/cb?x=1',
        'https://bücher.example/cb',
        'https://203.0.113.7/cb',
        'http://127.0.0.1:51234/cb',
        'http://[::1]:3000/cb',
      ],
      token_endpoint_auth_method: 'none',
    });
    expect(response.status).toBe(201);
  });
});
