import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { mintApiKey } from '../src/auth/api-keys.js';
import { RedisEpoch } from '../src/auth/credential-epoch.js';
import { authenticatePat } from '../src/auth/pat.js';
import { PAT_CACHE_TTL_MS, PatCache, type CachedPat } from '../src/auth/pat-cache.js';
import { addMember, createUser, removeMember } from '../src/cli/operations.js';
import { testConfig } from '../src/config.js';
import { MemoryStore } from '../src/limits/memory-store.js';
import { RedisStore } from '../src/limits/redis-store.js';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

async function keyFor(username: string, options: { slug?: string; expiresAt?: Date } = {}) {
  const user = t.user(username, options.slug);
  return mintApiKey(t.app.db.prisma, {
    userId: user.id,
    orgId: user.org_id,
    name: 'cache test',
    expiresAt: options.expiresAt,
  });
}

/** A fresh member of acme with a key, so role changes and removal touch nobody else. */
async function newMember(role: 'member' | 'viewer' = 'member') {
  const name = `u${randomUUID().slice(0, 8)}`;
  const user = await createUser(t.app.db.prisma, { email: `${name}@example.com`, name, username: name });
  const orgId = t.org('acme').id;
  await addMember(t.app.db.prisma, { orgId, userId: user.id, role });
  const { key, token } = await mintApiKey(t.app.db.prisma, { userId: user.id, orgId, name: 'cache test' });
  return { userId: user.id, orgId, key, token };
}

const get = (app: App, path: string, token: string, headers: Record<string, string> = {}) =>
  app.fetch(new Request(`${ORIGIN}${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } }));

/** Creating an issue needs the role member: 201, or 403 for a viewer (the role the key acts with). */
async function createIssueStatus(app: App, token: string): Promise<number> {
  const body = JSON.stringify({ project_id: t.org('acme').projects[0]!.id, title: 'role check' });
  const response = await app.fetch(
    new Request(`${ORIGIN}/api/issues`, {
      method: 'POST',
      body,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    }),
  );
  return response.status;
}

/** Revokes through the public API with mark's browser session, as Settings > Integrations does. */
async function revokeThrough(app: App, keyId: string, username = 'mark') {
  const user = t.user(username);
  const cookie = await t.signIn(user.email);
  const response = await app.fetch(
    new Request(`${ORIGIN}/api/api-keys/${keyId}`, {
      method: 'DELETE',
      headers: { cookie, origin: ORIGIN, 'x-org-id': user.org_id },
    }),
  );
  expect(response.status).toBe(204);
}

async function expect401(response: Response, code: string) {
  expect(response.status).toBe(401);
  expect((await response.json()).code).toBe(code);
}

describe('PatCache', () => {
  const entry = (id: string, filledAt = 0): CachedPat => ({
    id,
    orgId: 'o',
    userId: 'u',
    role: 'member',
    expiresAt: null,
    lastUsedAt: null,
    filledAt,
  });

  test('bounded: inserting more than the maximum evicts the least recently used', () => {
    const cache = new PatCache(3);
    for (const id of ['a', 'b', 'c']) cache.set(id, entry(id), 1);
    expect(cache.get('a', 1, 10)?.id).toBe('a'); // a is now the most recent
    cache.set('d', entry('d'), 1);
    expect(cache.size).toBe(3);
    expect(cache.get('b', 1, 10)).toBeUndefined();
    for (const id of ['a', 'c', 'd']) expect(cache.get(id, 1, 10)?.id).toBe(id);
    for (let i = 0; i < 10; i++) cache.set(`k${i}`, entry(`k${i}`), 1);
    expect(cache.size).toBe(3);
    expect(cache.get('k9', 1, 10)?.id).toBe('k9');
    expect(cache.get('a', 1, 10)).toBeUndefined();
  });

  test('an entry counts only under its epoch and within the TTL; a new epoch empties the cache', () => {
    const cache = new PatCache(10, 60_000);
    cache.set('a', entry('a', 1_000), 1);
    cache.set('b', entry('b', 1_000), 1);
    expect(cache.get('a', 1, 60_999)?.id).toBe('a');
    expect(cache.get('a', 1, 61_000)).toBeUndefined();
    expect(cache.get('b', 2, 2_000)).toBeUndefined();
    expect(cache.size).toBe(0);
    // A slow request that read epoch 1 cannot put its entry back once the cache moved to 2.
    cache.set('b', entry('b', 2_000), 1);
    expect(cache.get('b', 1, 2_000)).toBeUndefined();
  });
});

describe('one instance (the process epoch)', () => {
  test('a key served from the cache is 401 on the very next request after its revocation', async () => {
    const { key, token } = await keyFor('mark');
    const cache = t.app.patCache!;
    expect((await t.call('GET', '/api/me', { token })).status).toBe(200);
    const hits = cache.hits;
    const queries = t.app.db.queries.count;
    expect((await t.call('GET', '/api/me', { token })).status).toBe(200);
    expect(cache.hits).toBe(hits + 1);
    // Only the route's own statement: no key lookup.
    expect(t.app.db.queries.count - queries).toBe(1);
    await revokeThrough(t.app, key.id);
    await expect401(await t.call('GET', '/api/me', { token }), 'token_revoked');
  });

  test('revoking through GraphQL, from another app object in the same process, also applies at once', async () => {
    const other = await createApp(testConfig(), { db: t.app.db, limiterStore: new MemoryStore() });
    try {
      const { key, token } = await keyFor('mark');
      for (let i = 0; i < 2; i++) expect((await t.call('GET', '/api/me', { token })).status).toBe(200);
      const cookie = await t.signIn('mark@example.com');
      const response = await other.fetch(
        new Request(`${ORIGIN}/api/graphql`, {
          method: 'POST',
          body: JSON.stringify({ query: `mutation { revokeApiKey(id: "${key.id}") { __typename } }` }),
          headers: { cookie, origin: ORIGIN, 'content-type': 'application/json', 'x-org-id': t.user('mark').org_id },
        }),
      );
      expect((await response.json()).data.revokeApiKey.__typename).toBe('MutationRevokeApiKeySuccess');
      await expect401(await t.call('GET', '/api/me', { token }), 'token_revoked');
    } finally {
      await other.close();
    }
  });

  test('on a hit, expiry is still checked against the clock and X-Org-Id must still match', async () => {
    const { token } = await keyFor('mark', { expiresAt: new Date(Date.now() + 400) });
    const hits = t.app.patCache!.hits;
    expect((await t.call('GET', '/api/me', { token })).status).toBe(200);
    const mismatch = await t.call('GET', '/api/me', { token, headers: { 'x-org-id': t.org('globex').id } });
    expect(mismatch.status).toBe(403);
    expect((await mismatch.json()).code).toBe('org_mismatch');
    expect(t.app.patCache!.hits).toBe(hits + 1);
    await new Promise((r) => setTimeout(r, 450));
    await expect401(await t.call('GET', '/api/me', { token }), 'token_expired');
  });

  test('last_used_at is still written on hits, at most once a minute', async () => {
    const { key, token } = await keyFor('mark');
    for (let i = 0; i < 3; i++) expect((await t.call('GET', '/api/me', { token })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    const first = (await t.app.db.prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } })).lastUsedAt;
    expect(first).not.toBeNull();
    // Pretend the last write was two minutes ago: the cached entry does not know, so the row is
    // set back as well and the next hit writes again.
    const cached = [...(t.app.patCache as unknown as { entries: Map<string, CachedPat> }).entries.values()].find(
      (e) => e.id === key.id,
    )!;
    cached.lastUsedAt = new Date(Date.now() - 120_000);
    expect((await t.call('GET', '/api/me', { token })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    const second = (await t.app.db.prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } })).lastUsedAt!;
    expect(second.getTime()).toBeGreaterThan(first!.getTime());
    expect(cached.lastUsedAt!.getTime()).toBe(second.getTime());
  });

  test('PAT_CACHE=off: no cache, every request reads the database', async () => {
    const app = await createApp(testConfig({ patCache: false }), { db: t.app.db, limiterStore: new MemoryStore() });
    try {
      expect(app.patCache).toBeNull();
      const { key, token } = await keyFor('mark');
      expect((await get(app, '/api/me', token)).status).toBe(200);
      // A write that announces nothing is still seen at once.
      await t.app.db.prisma.apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
      await expect401(await get(app, '/api/me', token), 'token_revoked');
    } finally {
      await app.close();
    }
  });

  test('PAT_CACHE=off: X-Org-Id must name the org of the key', async () => {
    const app = await createApp(testConfig({ patCache: false }), { db: t.app.db, limiterStore: new MemoryStore() });
    try {
      const { token } = await keyFor('mark');
      const denied = await get(app, '/api/me/orgs', token, { 'x-org-id': t.org('globex').id });
      expect(denied.status).toBe(403);
      expect((await denied.json()).code).toBe('org_mismatch');
      expect((await get(app, '/api/me/orgs', token, { 'x-org-id': t.org('acme').id })).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe('authenticatePat against the clock it is given', () => {
  const at = (base: Date, ms: number) => new Date(base.getTime() + ms);

  test('a cached key ages out after the TTL: a write that announced nothing is seen then', async () => {
    const { key, token } = await keyFor('mark');
    const lookup = { db: t.app.db.prisma, cache: new PatCache(), epoch: 1 };
    const filled = new Date();
    expect(await authenticatePat(lookup, token, null, filled)).toMatchObject({
      credential: { kind: 'pat', id: key.id },
    });
    await t.app.db.prisma.apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
    expect(await authenticatePat(lookup, token, null, at(filled, PAT_CACHE_TTL_MS - 1))).toMatchObject({
      credential: { id: key.id },
    });
    expect(await authenticatePat(lookup, token, null, at(filled, PAT_CACHE_TTL_MS))).toMatchObject({
      status: 401,
      code: 'token_revoked',
    });
  });

  test('a key stops working at the millisecond it expires, from the cache and from the database', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000);
    const { key, token } = await keyFor('mark', { expiresAt });
    const cached = { db: t.app.db.prisma, cache: new PatCache(), epoch: 1 };
    expect(await authenticatePat(cached, token, null, at(expiresAt, -1))).toMatchObject({ credential: { id: key.id } });
    expect(await authenticatePat(cached, token, null, expiresAt)).toMatchObject({ status: 401, code: 'token_expired' });
    expect(cached.cache.hits).toBe(1);
    const uncached = { db: t.app.db.prisma, cache: null };
    expect(await authenticatePat(uncached, token, null, at(expiresAt, -1))).toMatchObject({
      credential: { id: key.id },
    });
    expect(await authenticatePat(uncached, token, null, expiresAt)).toMatchObject({
      status: 401,
      code: 'token_expired',
    });
  });

  test('X-Org-Id: refused on the database path and on a hit, accepted on a hit when it names the org of the key', async () => {
    const { key, token } = await keyFor('mark');
    const lookup = { db: t.app.db.prisma, cache: new PatCache(), epoch: 1 };
    const now = new Date();
    expect(await authenticatePat(lookup, token, t.org('globex').id, now)).toMatchObject({
      status: 403,
      code: 'org_mismatch',
    });
    expect(lookup.cache.size).toBe(1); // filled all the same: the key itself is live
    expect(await authenticatePat(lookup, token, t.org('acme').id, now)).toMatchObject({
      credential: { id: key.id },
      org: { id: t.org('acme').id },
    });
    expect(await authenticatePat(lookup, token, t.org('globex').id, now)).toMatchObject({
      status: 403,
      code: 'org_mismatch',
    });
    expect(lookup.cache.hits).toBe(2);
  });
});

describe('instances sharing the database and Redis (the Redis epoch)', () => {
  const epochKey = `cred-epoch-test:${randomUUID()}`;
  const prefix = `rl-test:${randomUUID()}:`;
  const admin = new Redis(REDIS_URL, { lazyConnect: true });
  /** What `npm run admin` uses in its own process: another connection, the same key. */
  const cli = new RedisEpoch(admin, { key: epochKey });
  let a: App;
  let b: App;

  async function instance(): Promise<App> {
    const store = new RedisStore(REDIS_URL, { prefix });
    expect(await store.ready()).toBe(true);
    return createApp(testConfig({ redisUrl: REDIS_URL }), {
      db: t.app.db,
      limiterStore: store,
      credentialEpoch: new RedisEpoch(store.redis, { key: epochKey }),
    });
  }

  beforeAll(async () => {
    await admin.connect();
    [a, b] = [await instance(), await instance()];
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    const keys = await admin.keys(`${prefix}*`);
    await admin.del(epochKey, ...keys);
    admin.disconnect();
  });

  /** Two requests on `app`: the second must come from its cache. */
  async function warm(app: App, token: string) {
    for (let i = 0; i < 2; i++) expect((await get(app, '/api/me', token)).status).toBe(200);
    const hits = app.patCache!.hits;
    expect((await get(app, '/api/me', token)).status).toBe(200);
    expect(app.patCache!.hits).toBe(hits + 1);
  }

  test('a key cached by A and revoked through B is 401 on A at once', async () => {
    const { key, token } = await keyFor('mark');
    await warm(a, token);
    await revokeThrough(b, key.id);
    await expect401(await get(a, '/api/me', token), 'token_revoked');
  });

  test('a role lowered by the admin command applies on A at the next request', async () => {
    const { userId, orgId, token } = await newMember('member');
    await warm(a, token);
    expect(await createIssueStatus(a, token)).toBe(201);
    await addMember(t.app.db.prisma, { orgId, userId, role: 'viewer' }, cli);
    expect(await createIssueStatus(a, token)).toBe(403);
  });

  test('a member removed by the admin command: their key is 401 on A at the next request', async () => {
    const { userId, orgId, token } = await newMember('member');
    await warm(a, token);
    await removeMember(t.app.db.prisma, { orgId, userId }, cli);
    await expect401(await get(a, '/api/me', token), 'token_invalid');
  });
});

describe('Redis unreachable', () => {
  test('the epoch is unknown, so keys are looked up every time: they work, and revocation still applies at once', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const app = await createApp(testConfig({ redisUrl: 'redis://127.0.0.1:1' }), { db: t.app.db, logger });
    try {
      const { key, token } = await keyFor('mark');
      for (let i = 0; i < 3; i++) expect((await get(app, '/api/me', token)).status).toBe(200);
      expect(app.patCache!.hits).toBe(0);
      expect(app.patCache!.size).toBe(0);
      await revokeThrough(app, key.id);
      await expect401(await get(app, '/api/me', token), 'token_revoked');
      // The failed announcement is logged as an error, without the token.
      const errors = lines.filter((l) => JSON.parse(l).level >= 50);
      expect(errors.some((l) => l.includes('credential change'))).toBe(true);
      expect(lines.join('\n')).not.toContain(token);
    } finally {
      await app.close();
    }
  });
});
