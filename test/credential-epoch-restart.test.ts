import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { mintApiKey } from '../src/auth/api-keys.js';
import { DEFAULT_EPOCH_KEY, RedisEpoch } from '../src/auth/credential-epoch.js';
import { revokeApiKey } from '../src/cli/operations.js';
import { testConfig } from '../src/config.js';
import type { RedisStore } from '../src/limits/redis-store.js';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';
import { redisServerAvailable, startRedisServer, type RedisServer } from './support/redis-server.js';

// Issue 21.2: with the API key cache and Redis persisting to an append-only file, a key was
// used (cached), Redis was killed, the key revoked (204, then 401), and Redis came back with
// the old credential epoch: the key was accepted again, on the very instance that revoked it,
// for up to 60 s. Here with a real redis-server, killed and restarted on its data directory.

describe.skipIf(!redisServerAvailable)('a revocation survives a Redis restart that restores an old epoch', () => {
  let t: TestApp;
  let redis: RedisServer;
  let a: App;
  let b: App;
  beforeAll(async () => {
    t = await startTestApp();
    // appendfsync always: every acknowledged write is on disk before kill -9, as the scenario needs.
    redis = await startRedisServer(['--appendonly', 'yes', '--appendfsync', 'always']);
    const config = testConfig({ redisUrl: redis.url, patCache: true });
    a = await createApp(config, { db: t.app.db });
    b = await createApp(config, { db: t.app.db });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
    await t?.close();
  });

  const me = (app: App, token: string) =>
    app.fetch(new Request(`${ORIGIN}/api/me`, { headers: { authorization: `Bearer ${token}` } }));
  const connection = (app: App) => (app.limiter.store as RedisStore).redis;
  /** A command on a connection of its own, as an operator would send it. */
  const redisCli = async <T>(run: (client: Redis) => Promise<T>): Promise<T> => {
    const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    await client.connect();
    try {
      return await run(client);
    } finally {
      client.disconnect();
    }
  };
  const epochInRedis = () => redisCli((client) => client.get(DEFAULT_EPOCH_KEY));
  const bothConnected = () =>
    expect
      .poll(() => connection(a).status === 'ready' && connection(b).status === 'ready', {
        timeout: 15_000,
        interval: 50,
      })
      .toBe(true);

  async function cachedKey(name: string) {
    const mark = t.user('mark');
    const minted = await mintApiKey(t.app.db.prisma, { userId: mark.id, orgId: mark.org_id, name });
    for (const app of [a, b]) {
      const hits = app.patCache!.hits;
      for (let i = 0; i < 3; i++) expect((await me(app, minted.token)).status).toBe(200);
      expect(app.patCache!.hits).toBeGreaterThan(hits);
    }
    return minted;
  }

  async function expectRefusedEverywhere(token: string, rounds = 10) {
    for (let i = 0; i < rounds; i++) {
      for (const [name, app] of [
        ['A', a],
        ['B', b],
      ] as const) {
        const response = await me(app, token);
        expect(response.status, `request ${i + 1} on ${name}`).toBe(401);
        expect((await response.json()).code).toBe('token_revoked');
      }
    }
  }

  test('kill Redis, revoke on A, restart Redis with the old epoch: refused on every following request on A and B', async () => {
    const mark = t.user('mark');
    const { key, token } = await mintApiKey(t.app.db.prisma, {
      userId: mark.id,
      orgId: mark.org_id,
      name: 'survives restarts?',
    });

    // Used on both instances until both serve it from their caches.
    for (const app of [a, b]) {
      for (let i = 0; i < 3; i++) expect((await me(app, token)).status).toBe(200);
      expect(app.patCache!.hits).toBeGreaterThan(0);
      expect(app.patCache!.size).toBe(1);
    }
    const epochBefore = await epochInRedis();
    expect(epochBefore).not.toBeNull();

    await redis.kill();
    const cookie = await t.signIn(mark.email);
    const revoke = await a.fetch(
      new Request(`${ORIGIN}/api/api-keys/${key.id}`, {
        method: 'DELETE',
        headers: { cookie, origin: ORIGIN, 'x-org-id': mark.org_id },
      }),
    );
    expect(revoke.status).toBe(204);
    expect((await me(a, token)).status).toBe(401);

    await redis.restart();
    // The old epoch is back, as in the report; or A, reconnecting on its own before this read,
    // has already sent the bump it could not make while Redis was down (a race with this read,
    // seen once in a full run). Either way every following request must be refused.
    expect([epochBefore, String(BigInt(epochBefore!) + 1n)]).toContain(await epochInRedis());
    await bothConnected();
    await expectRefusedEverywhere(token);
  });

  test('revoked by the admin command while Redis is down (no announcement at all), then Redis restarts with the old epoch: refused on A and B', async () => {
    const { key, token } = await cachedKey('admin revocation');
    const epochBefore = await epochInRedis();
    await redis.kill();
    // What `npm run admin -- revoke-key` does in its own process: the change commits, the bump fails.
    const admin = new Redis(redis.url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    admin.on('error', () => {});
    const warnings: Error[] = [];
    await revokeApiKey(
      t.app.db.prisma,
      key.id,
      new RedisEpoch(admin, { bumpTimeoutMs: 500, onBumpError: (e) => warnings.push(e) }),
    );
    admin.disconnect();
    expect(warnings).toHaveLength(1);
    await redis.restart();
    expect(await epochInRedis()).toBe(epochBefore);
    await bothConnected();
    // Nobody told A or B; their connections broke, so neither trusts what it cached before.
    await expectRefusedEverywhere(token);
  });

  test('Redis refuses the announcement but keeps answering reads: the revoking instance still refuses the key at once', async () => {
    const mark = t.user('mark');
    const { key, token } = await cachedKey('write refused');
    // A primary that requires a replica refuses writes (NOREPLICAS) and still serves GET.
    await redisCli((client) => client.config('SET', 'min-replicas-to-write', '1'));
    try {
      const cookie = await t.signIn(mark.email);
      const revoke = await a.fetch(
        new Request(`${ORIGIN}/api/api-keys/${key.id}`, {
          method: 'DELETE',
          headers: { cookie, origin: ORIGIN, 'x-org-id': mark.org_id },
        }),
      );
      expect(revoke.status).toBe(204);
      for (let i = 0; i < 10; i++) expect((await me(a, token)).status, `request ${i + 1} on A`).toBe(401);
    } finally {
      await redisCli((client) => client.config('SET', 'min-replicas-to-write', '0'));
    }
  });
});
