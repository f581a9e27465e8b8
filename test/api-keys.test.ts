import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { MemoryStore } from '../src/limits/memory-store.js';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
let sessions: Record<string, string>;
beforeAll(async () => {
  t = await startTestApp();
  sessions = {};
  for (const name of ['olivia', 'adam', 'maya', 'mark', 'victor', 'bella'])
    sessions[name] = await t.signIn(`${name}@example.com`);
});
afterAll(() => t.close());

const asSession = (who: string, extra: Record<string, string> = {}) => ({
  cookie: sessions[who]!,
  origin: ORIGIN,
  ...extra,
});
const createKey = (who: string, body: unknown = { name: 'ci' }, headers: Record<string, string> = {}) =>
  t.call('POST', '/api/api-keys', { body, headers: asSession(who, headers) });

describe('creating keys', () => {
  test('201 with the record and the token, shown this once; the token works at once', async () => {
    const response = await createKey('maya', {
      name: 'Deploys',
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(body).toEqual({
      id: expect.any(String),
      name: 'Deploys',
      hint: body.token.slice(-4),
      status: 'active',
      user_id: t.user('maya').id,
      created_at: expect.any(String),
      expires_at: expect.any(String),
      last_used_at: null,
      revoked_at: null,
      token: expect.stringMatching(/^tok_live_[0-9A-Za-z]{32}$/),
    });
    const me = await t.call('GET', '/api/me', { token: body.token });
    expect((await me.json()).username).toBe('maya');
    const listed = await (await t.call('GET', '/api/api-keys', { headers: asSession('maya') })).json();
    const record = listed.find((k: { id: string }) => k.id === body.id);
    expect(record).toBeDefined();
    expect(JSON.stringify(listed)).not.toContain(body.token);
    expect(Object.keys(record)).not.toContain('token');
    await expect
      .poll(
        async () =>
          (await (await t.call('GET', '/api/api-keys', { headers: asSession('maya') })).json()).find(
            (k: { id: string }) => k.id === body.id,
          ).last_used_at,
      )
      .not.toBeNull();
  });

  test('owners, admins and managers may create; members and viewers may not', async () => {
    for (const who of ['olivia', 'adam', 'maya']) expect((await createKey(who)).status).toBe(201);
    for (const who of ['mark', 'victor']) {
      const response = await createKey(who);
      expect(response.status).toBe(403);
      expect((await response.json()).code).toBe('forbidden');
    }
  });

  test('a key cannot mint keys, on REST or GraphQL, whatever its role', async () => {
    const rest = await t.call('POST', '/api/api-keys', { token: t.user('olivia').token, body: { name: 'from a key' } });
    expect(rest.status).toBe(403);
    expect((await rest.json()).detail).toMatch(/cannot mint or revoke keys/);
    const gql = await t.call('POST', '/api/graphql', {
      token: t.user('olivia').token,
      body: { query: 'mutation { createApiKey(input: { name: "x" }) { __typename } }' },
    });
    expect((await gql.json()).errors[0].extensions.code).toBe('FORBIDDEN');
  });

  test('validation: a name is required, an expiry must be in the future', async () => {
    const noName = await createKey('olivia', { name: '  ' });
    expect(noName.status).toBe(400);
    expect((await noName.json()).errors).toEqual([{ field: 'name', message: 'must not be empty' }]);
    const past = await createKey('olivia', { name: 'old', expires_at: '2020-01-01T00:00:00Z' });
    expect((await past.json()).errors).toEqual([{ field: 'expires_at', message: 'must be in the future' }]);
    const garbage = await createKey('olivia', { name: 'x', expires_at: 'tomorrow' });
    expect(garbage.status).toBe(400);
  });
});

describe('at most 20 active keys per user per organization', () => {
  test('the 21st is refused with 409 until one is revoked; expired keys do not count', async () => {
    const app: App = await createApp(testConfig(), { db: t.app.db, limiterStore: new MemoryStore() });
    const olivia = t.user('bella', 'globex');
    await t.app.db.prisma.apiKey.deleteMany({ where: { userId: olivia.id } });
    const cookie = sessions.bella!;
    const post = (name: string) =>
      app.fetch(
        new Request(`${ORIGIN}/api/api-keys`, {
          method: 'POST',
          body: JSON.stringify({ name }),
          headers: { cookie, origin: ORIGIN, 'content-type': 'application/json' },
        }),
      );
    // Bypass the hourly creation limit for this test by seeding 19 keys directly, one of them expired.
    const { mintApiKey } = await import('../src/auth/api-keys.js');
    for (let i = 0; i < 19; i++)
      await mintApiKey(t.app.db.prisma, { userId: olivia.id, orgId: olivia.org_id, name: `k${i}` });
    await mintApiKey(t.app.db.prisma, {
      userId: olivia.id,
      orgId: olivia.org_id,
      name: 'expired',
      expiresAt: new Date(Date.now() - 1000),
    });
    expect((await post('twentieth')).status).toBe(201);
    const refused = await post('twenty-first');
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({
      code: 'key_limit_reached',
      detail: expect.stringContaining('20 active keys'),
    });
    const victim = await t.app.db.prisma.apiKey.findFirstOrThrow({ where: { userId: olivia.id, name: 'k0' } });
    await app.fetch(
      new Request(`${ORIGIN}/api/api-keys/${victim.id}`, { method: 'DELETE', headers: { cookie, origin: ORIGIN } }),
    );
    expect((await post('replacement')).status).toBe(201);
    await app.close();
  });

  test('concurrent creations cannot overshoot the limit', async () => {
    const app: App = await createApp(testConfig(), { db: t.app.db, limiterStore: new MemoryStore() });
    const adam = t.user('adam');
    await t.app.db.prisma.apiKey.deleteMany({ where: { userId: adam.id } });
    const { mintApiKey } = await import('../src/auth/api-keys.js');
    for (let i = 0; i < 15; i++)
      await mintApiKey(t.app.db.prisma, { userId: adam.id, orgId: adam.org_id, name: `k${i}` });
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        app.fetch(
          new Request(`${ORIGIN}/api/api-keys`, {
            method: 'POST',
            body: JSON.stringify({ name: `race${i}` }),
            headers: { cookie: sessions.adam!, origin: ORIGIN, 'content-type': 'application/json' },
          }),
        ),
      ),
    );
    expect(responses.filter((r) => r.status === 201)).toHaveLength(5);
    expect(responses.filter((r) => r.status === 409)).toHaveLength(5);
    expect(await t.app.db.prisma.apiKey.count({ where: { userId: adam.id, revokedAt: null } })).toBe(20);
    await app.close();
  });
});

describe('creation is limited to 10 per hour per user, on both surfaces together', () => {
  test('the 11th is a 429 with Retry-After and headers describing the tighter bucket', async () => {
    const app: App = await createApp(testConfig(), { db: t.app.db, limiterStore: new MemoryStore() });
    const cookie = await t.signIn('olivia@example.com');
    const headers = { cookie, origin: ORIGIN, 'content-type': 'application/json' };
    const viaRest = () =>
      app.fetch(
        new Request(`${ORIGIN}/api/api-keys`, { method: 'POST', body: JSON.stringify({ name: 'rest' }), headers }),
      );
    const viaGraphQL = () =>
      app.fetch(
        new Request(`${ORIGIN}/api/graphql`, {
          method: 'POST',
          body: JSON.stringify({
            query:
              'mutation { createApiKey(input: { name: "gql" }) { __typename ... on RateLimitedError { retryAfter } } }',
          }),
          headers,
        }),
      );
    await t.app.db.prisma.apiKey.deleteMany({ where: { userId: t.user('olivia').id } });
    for (let i = 0; i < 5; i++) {
      const response = await viaRest();
      expect(response.status).toBe(201);
      expect(response.headers.get('x-ratelimit-limit')).toBe('10');
      expect(response.headers.get('x-ratelimit-remaining')).toBe(String(9 - i));
    }
    for (let i = 0; i < 5; i++)
      expect((await (await viaGraphQL()).json()).data.createApiKey.__typename).toBe('MutationCreateApiKeySuccess');
    const refused = await viaRest();
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ code: 'rate_limited' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('ratelimit-policy')).toContain('"api-keys.create";q=10;w=3600');
    const gql = await (await viaGraphQL()).json();
    expect(gql.data.createApiKey).toEqual({ __typename: 'RateLimitedError', retryAfter: expect.any(Number) });
    expect(await t.app.db.prisma.apiKey.count({ where: { userId: t.user('olivia').id } })).toBe(10);
    await app.close();
  });
});

describe('revoking keys', () => {
  test("the owner revokes; the key's next request is 401; revoking twice is harmless", async () => {
    const { id, token } = await (await createKey('maya', { name: 'to revoke' })).json();
    const revoke = await t.call('DELETE', `/api/api-keys/${id}`, { headers: asSession('maya') });
    expect(revoke.status).toBe(204);
    const next = await t.call('GET', '/api/me', { token });
    expect(next.status).toBe(401);
    expect(await next.json()).toMatchObject({ code: 'token_revoked' });
    expect((await t.call('DELETE', `/api/api-keys/${id}`, { headers: asSession('maya') })).status).toBe(204);
    const listed = await (await t.call('GET', '/api/api-keys', { headers: asSession('maya') })).json();
    expect(listed.find((k: { id: string }) => k.id === id)).toMatchObject({
      status: 'revoked',
      revoked_at: expect.any(String),
    });
  });

  test('a key cannot revoke keys, not even itself', async () => {
    const { id, token } = await (await createKey('maya', { name: 'self' })).json();
    const response = await t.call('DELETE', `/api/api-keys/${id}`, { token });
    expect(response.status).toBe(403);
    expect((await t.call('GET', '/api/me', { token })).status).toBe(200);
  });

  test("another member's key is not found; org owners and admins may revoke any key in their org, not in others", async () => {
    const { id, token } = await (await createKey('maya', { name: 'managed' })).json();
    expect(
      (await t.call('DELETE', `/api/api-keys/${id}`, { headers: asSession('mark', { 'x-org-id': t.org('acme').id }) }))
        .status,
    ).toBe(404);
    expect((await t.call('DELETE', `/api/api-keys/${id}`, { headers: asSession('bella') })).status).toBe(404);
    expect((await t.call('GET', '/api/me', { token })).status).toBe(200);
    const all = await (await t.call('GET', '/api/api-keys?all=true', { headers: asSession('adam') })).json();
    expect(all.some((k: { id: string }) => k.id === id)).toBe(true);
    expect(
      (await t.call('GET', '/api/api-keys?all=true', { headers: asSession('mark', { 'x-org-id': t.org('acme').id }) }))
        .status,
    ).toBe(403);
    expect((await t.call('DELETE', `/api/api-keys/${id}`, { headers: asSession('adam') })).status).toBe(204);
    expect((await t.call('GET', '/api/me', { token })).status).toBe(401);
  });

  test('an expired key lists as expired and gets 401', async () => {
    const { mintApiKey } = await import('../src/auth/api-keys.js');
    const mark = t.user('mark');
    const { key, token } = await mintApiKey(t.app.db.prisma, {
      userId: mark.id,
      orgId: mark.org_id,
      name: 'short',
      expiresAt: new Date(Date.now() + 50),
    });
    await new Promise((r) => setTimeout(r, 60));
    expect((await t.call('GET', '/api/me', { token })).status).toBe(401);
    const listed = await (
      await t.call('GET', '/api/api-keys', { headers: asSession('mark', { 'x-org-id': mark.org_id }) })
    ).json();
    expect(listed.find((k: { id: string }) => k.id === key.id).status).toBe('expired');
  });
});
