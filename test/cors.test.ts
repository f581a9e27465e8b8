import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp } from '../src/app.js';
import { ConfigError, loadConfig, testConfig } from '../src/config.js';
import { CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS } from '../src/pipeline/cors.js';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';
import { openTestDatabase } from './support/database.js';

/** A page of another origin: a single-page app, or the MCP Inspector's web UI. */
const SPA = 'http://127.0.0.1:5173';

/** Every endpoint a browser app on another origin calls (the MCP endpoint among them, whether or not it is served yet). */
const CORS_ENDPOINTS: [method: string, path: string][] = [
  ['GET', '/.well-known/oauth-authorization-server'],
  ['GET', '/.well-known/oauth-protected-resource'],
  ['GET', '/.well-known/oauth-protected-resource/api'],
  ['GET', '/oauth/jwks'],
  ['POST', '/oauth/register'],
  ['POST', '/oauth/token'],
  ['POST', '/oauth/revoke'],
  ['POST', '/oauth/introspect'],
  ['GET', '/api/me'],
  ['POST', '/api/projects'],
  ['PATCH', '/api/issues/8a3c1d2e-0000-4000-8000-000000000000'],
  ['DELETE', '/api/api-keys/8a3c1d2e-0000-4000-8000-000000000000'],
  ['POST', '/api/graphql'],
  ['POST', '/api/mcp'],
  ['GET', '/api/openapi.json'],
];

function preflight(path: string, method: string, headers = 'authorization, content-type', origin = SPA): Request {
  return new Request(`${ORIGIN}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });
}

const listed = (value: string | null) => (value ?? '').split(',').map((name) => name.trim().toLowerCase());

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

describe('preflights', () => {
  test.each(CORS_ENDPOINTS)(
    '%s %s: 204 with the methods and headers a bearer-token client sends',
    async (method, path) => {
      const response = await t.app.fetch(
        preflight(
          path,
          method,
          'authorization, content-type, idempotency-key, mcp-protocol-version, mcp-session-id, last-event-id',
        ),
      );
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(listed(response.headers.get('access-control-allow-methods'))).toContain(method.toLowerCase());
      const allowed = listed(response.headers.get('access-control-allow-headers'));
      for (const header of [
        'authorization',
        'content-type',
        'idempotency-key',
        'mcp-protocol-version',
        'mcp-session-id',
        'mcp-method',
        'mcp-name',
        'last-event-id',
        'x-org-id',
      ]) {
        expect(allowed).toContain(header);
      }
      expect(Number(response.headers.get('access-control-max-age'))).toBeGreaterThan(0);
      expect(response.headers.has('access-control-allow-credentials')).toBe(false);
      expect(await response.text()).toBe('');
    },
  );

  test('a preflight needs no credential, no database and no rate-limit slot', async () => {
    const db = await openTestDatabase();
    const app = await createApp(testConfig(), { db });
    try {
      const before = await app.fetch(new Request(`${ORIGIN}/api/me`));
      const remaining = Number(before.headers.get('x-ratelimit-remaining'));
      await db.close();
      // The database is gone: anything that needs it fails...
      expect(
        (
          await app.fetch(
            new Request(`${ORIGIN}/oauth/register`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: '{"redirect_uris":["http://127.0.0.1:1/cb"]}',
            }),
          )
        ).status,
      ).toBe(500);
      // ...while every preflight is still answered.
      for (const [method, path] of CORS_ENDPOINTS)
        expect((await app.fetch(preflight(path, method))).status, path).toBe(204);
      const after = await app.fetch(new Request(`${ORIGIN}/api/me`));
      // Only the two plain requests drew from the address's bucket.
      expect(Number(after.headers.get('x-ratelimit-remaining'))).toBe(remaining - 2);
    } finally {
      await app.close();
    }
  });

  test('pages and the consent screen answer no preflight and send no CORS headers', async () => {
    for (const path of ['/login', '/oauth/authorize', '/api/docs', '/', '/settings/integrations']) {
      const answer = await t.app.fetch(preflight(path, 'POST'));
      expect(answer.status, path).not.toBe(204);
      expect(answer.headers.has('access-control-allow-origin'), path).toBe(false);
      const page = await t.app.fetch(new Request(`${ORIGIN}${path}`, { headers: { origin: SPA } }));
      expect(page.headers.has('access-control-allow-origin'), path).toBe(false);
    }
  });

  test('an OPTIONS request that is not a preflight goes to the router like any other method', async () => {
    const response = await t.app.fetch(
      new Request(`${ORIGIN}/oauth/token`, { method: 'OPTIONS', headers: { origin: SPA } }),
    );
    expect(response.status).toBe(405);
  });
});

describe('responses', () => {
  test('success, client errors and OAuth errors carry Allow-Origin and Expose-Headers, never Allow-Credentials', async () => {
    const token = t.user('mark').token;
    const responses = {
      me: await t.call('GET', '/api/me', { token, headers: { origin: SPA } }),
      unauthenticated: await t.call('GET', '/api/me', { headers: { origin: SPA } }),
      notFound: await t.call('GET', '/api/projects/8a3c1d2e-0000-4000-8000-000000000000', {
        token,
        headers: { origin: SPA },
      }),
      graphql: await t.call('POST', '/api/graphql', {
        token,
        body: { query: '{ me { username } }' },
        headers: { origin: SPA },
      }),
      metadata: await t.call('GET', '/.well-known/oauth-authorization-server', { headers: { origin: SPA } }),
      jwks: await t.call('GET', '/oauth/jwks', { headers: { origin: SPA } }),
      tokenError: await t.call('POST', '/oauth/token', {
        body: 'grant_type=password',
        headers: { origin: SPA, 'content-type': 'application/x-www-form-urlencoded' },
      }),
      document: await t.call('GET', '/api/openapi.json', { headers: { origin: SPA } }),
    };
    expect(Object.fromEntries(Object.entries(responses).map(([name, r]) => [name, r.status]))).toEqual({
      me: 200,
      unauthenticated: 401,
      notFound: 404,
      graphql: 200,
      metadata: 200,
      jwks: 200,
      tokenError: 401,
      document: 200,
    });
    for (const [name, response] of Object.entries(responses)) {
      expect(response.headers.get('access-control-allow-origin'), name).toBe('*');
      expect(listed(response.headers.get('access-control-expose-headers')), name).toEqual(
        CORS_EXPOSE_HEADERS.map((h) => h.toLowerCase()),
      );
      expect(response.headers.has('access-control-allow-credentials'), name).toBe(false);
    }
    // What a browser app must read is exposed: the challenge, the rate-limit fields, the request id.
    for (const header of [
      'www-authenticate',
      'x-ratelimit-remaining',
      'ratelimit',
      'ratelimit-policy',
      'retry-after',
      'link',
      'location',
      'x-request-id',
      'mcp-session-id',
    ]) {
      expect(listed(responses.me.headers.get('access-control-expose-headers'))).toContain(header);
    }
  });

  test('a cookie-authenticated write from another origin is still refused as CSRF', async () => {
    const cookie = await t.signIn('mark@example.com');
    const response = await t.call('POST', '/api/projects', {
      body: { name: 'Cross', key: 'CRS' },
      headers: { cookie, origin: SPA },
    });
    expect(response.status).toBe(403);
    expect((await response.json()).code).toBe('csrf_rejected');
    expect(response.headers.has('access-control-allow-credentials')).toBe(false);
  });

  test('GraphQL answers are not readable with the session from another origin (yoga adds no CORS of its own)', async () => {
    const cookie = await t.signIn('mark@example.com');
    const response = await t.call('GET', '/api/graphql?query=%7Bme%7Busername%7D%7D', {
      headers: { cookie, origin: SPA },
    });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.has('access-control-allow-credentials')).toBe(false);
  });
});

describe('CORS_ORIGINS', () => {
  let restricted: TestApp;
  beforeAll(async () => {
    restricted = await startTestApp({ corsOrigins: [SPA, 'https://inspector.example.org'] });
  });
  afterAll(() => restricted?.close());

  test('a listed origin is named back (with Vary: Origin); any other gets no permission', async () => {
    const allowed = await restricted.app.fetch(preflight('/oauth/token', 'POST'));
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(SPA);
    expect(allowed.headers.get('vary')).toContain('Origin');
    expect(listed(allowed.headers.get('access-control-allow-headers'))).toEqual(
      CORS_ALLOW_HEADERS.map((h) => h.toLowerCase()),
    );

    const refused = await restricted.app.fetch(
      preflight('/oauth/token', 'POST', 'authorization', 'https://evil.example.net'),
    );
    expect(refused.status).toBe(204);
    expect([...refused.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);

    const call = await restricted.call('GET', '/api/me', {
      token: restricted.user('mark').token,
      headers: { origin: 'https://evil.example.net' },
    });
    expect(call.status).toBe(200);
    expect(call.headers.has('access-control-allow-origin')).toBe(false);
    expect(call.headers.get('vary')).toContain('Origin');
    const listedCall = await restricted.call('GET', '/api/me', {
      token: restricted.user('mark').token,
      headers: { origin: 'https://inspector.example.org' },
    });
    expect(listedCall.headers.get('access-control-allow-origin')).toBe('https://inspector.example.org');
  });

  test('is parsed once: * or a list of origins, each checked', () => {
    expect(loadConfig({}).corsOrigins).toBe('*');
    expect(loadConfig({ CORS_ORIGINS: ' https://a.example.org, http://localhost:5173 ' }).corsOrigins).toEqual([
      'https://a.example.org',
      'http://localhost:5173',
    ]);
    let error: unknown;
    try {
      loadConfig({ CORS_ORIGINS: 'https://a.example.org/app,a.example.org' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'CORS_ORIGINS: "https://a.example.org/app" is not an origin: scheme://host[:port], no path or trailing slash, or * for any',
      'CORS_ORIGINS: "a.example.org" is not an origin: scheme://host[:port], no path or trailing slash, or * for any',
    ]);
  });
});
