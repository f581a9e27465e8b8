import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { mintApiKey } from '../src/auth/api-keys.js';
import { DEFAULT_EPOCH_KEY, RedisEpoch } from '../src/auth/credential-epoch.js';
import { revokeApiKey } from '../src/cli/operations.js';
import { testConfig } from '../src/config.js';
import type { Policy } from '../src/limits/policy.js';
import { RedisStore } from '../src/limits/redis-store.js';
import { connectRedis } from '../src/redis/connect.js';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';
import { redisClusterAvailable, startRedisCluster, type RedisCluster } from './support/redis-cluster.js';
import { listen } from './support/socket.js';
import { subscribe } from './support/sse.js';

// REDIS_URL=redis+cluster://...: a real 3-master cluster with one replica each (test/support/redis-cluster.ts).
// The limiter stays exact across nodes, a revocation on one instance reaches the others, live
// updates cross instances, and a master that fails over to a replica which missed the
// revocation's epoch bump loses no revocation (the rule credential-epoch-restart.test.ts proves
// for a single Redis restarted from an old file).

// An hour's window: everything below happens within one window, however slow the machine.
const POLICY: Policy = { name: 'cluster', limit: 25, windowMs: 3_600_000 };
const ISSUE_CHANGED = `subscription { issueChanged { issueId issue { title } } }`;

describe.skipIf(!redisClusterAvailable)('on a Redis Cluster', () => {
  let t: TestApp;
  let cluster: RedisCluster;
  let a: App;
  let b: App;
  beforeAll(async () => {
    t = await startTestApp();
    cluster = await startRedisCluster();
    const config = testConfig({ redisUrl: cluster.url, patCache: true });
    a = await createApp(config, { db: t.app.db });
    b = await createApp(config, { db: t.app.db });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await cluster?.stop();
    await t?.close();
  });

  const me = (app: App, token: string) =>
    app.fetch(new Request(`${ORIGIN}/api/me`, { headers: { authorization: `Bearer ${token}` } }));

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

  async function revokeOn(app: App, keyId: string) {
    const mark = t.user('mark');
    const cookie = await t.signIn(mark.email);
    const response = await app.fetch(
      new Request(`${ORIGIN}/api/api-keys/${keyId}`, {
        method: 'DELETE',
        headers: { cookie, origin: ORIGIN, 'x-org-id': mark.org_id },
      }),
    );
    expect(response.status).toBe(204);
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

  test('the limiter admits exactly the limit per subject, with concurrent requests on two instances and subjects on every master', async () => {
    const stores = [new RedisStore(cluster.url), new RedisStore(cluster.url)];
    try {
      for (const store of stores) expect(await store.ready(10_000)).toBe(true);
      const subjects = Array.from({ length: 12 }, (_, i) => `cluster-subject-${i}`);
      // The buckets spread over the masters: the test covers the slots of each.
      const masters = await Promise.all(subjects.map((s) => cluster.masterOf(stores[0]!.bucketKey(s, POLICY))));
      expect(new Set(masters).size).toBe(3);
      const admitted = await Promise.all(
        subjects.map(async (subject) => {
          const decisions = await Promise.all(
            Array.from({ length: 4 * POLICY.limit }, (_, i) => stores[i % 2]!.consume(subject, POLICY)),
          );
          return decisions.filter((d) => d.allowed).length;
        }),
      );
      expect(admitted).toEqual(subjects.map(() => POLICY.limit));
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  test('a key revoked on A is refused on B at its next request', async () => {
    const { key, token } = await cachedKey('revoked across instances');
    await revokeOn(a, key.id);
    await expectRefusedEverywhere(token, 3);
  });

  test('a key revoked by the admin command (its own connection to the cluster) is refused on A and B at once', async () => {
    const { key, token } = await cachedKey('revoked by an operator');
    // What `npm run admin -- revoke-key` makes of REDIS_URL (src/cli/admin.ts).
    const admin = connectRedis(cluster.url, { lazyConnect: true, connectTimeout: 2_000, maxRetriesPerRequest: 1 });
    const warnings: Error[] = [];
    try {
      await revokeApiKey(t.app.db.prisma, key.id, new RedisEpoch(admin, { onBumpError: (e) => warnings.push(e) }));
    } finally {
      admin.disconnect();
    }
    expect(warnings).toEqual([]);
    await expectRefusedEverywhere(token, 3);
  });

  /** The ports of running nodes on which a channel of `orgId` has a subscriber. */
  async function subscribedOn(orgId: string): Promise<number[]> {
    const listed = await Promise.all(
      cluster.ports.map(async (port) => {
        const channels = await cluster
          .command(port, (c) => c.pubsub('CHANNELS', '*') as Promise<string[]>)
          .catch(() => [] as string[]);
        return channels.some((channel) => channel.includes(orgId)) ? [port] : [];
      }),
    );
    return listed.flat();
  }

  async function createIssueOn(app: App, title: string): Promise<string> {
    const response = await app.fetch(
      new Request(`${ORIGIN}/api/issues`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.user('mark').token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ project_id: t.org('acme').projects[0]!.id, title }),
      }),
    );
    expect(response.status).toBe(201);
    return ((await response.json()) as { id: string }).id;
  }

  test("the node carrying B's subscription dies: B subscribes again through another node and hears the next change", async () => {
    const server = await listen(b);
    try {
      const olivia = t.user('olivia');
      const live = await subscribe(
        `http://127.0.0.1:${server.port}/api/graphql`,
        { authorization: `Bearer ${olivia.token}` },
        ISSUE_CHANGED,
      );
      expect(live.status).toBe(200);
      await expect.poll(() => subscribedOn(olivia.org_id), { timeout: 10_000, interval: 50 }).toHaveLength(1);
      const [node] = await subscribedOn(olivia.org_id);
      await cluster.kill(node!);
      await cluster.settled();
      await expect
        .poll(async () => (await subscribedOn(olivia.org_id)).some((port) => port !== node), {
          timeout: 15_000,
          interval: 100,
        })
        .toBe(true);
      const id = await createIssueOn(a, 'Made on A after a node died');
      expect(await live.next()).toMatchObject({
        data: { issueChanged: { issueId: id, issue: { title: 'Made on A after a node died' } } },
      });
      live.close();
      await cluster.restart(node!);
      await cluster.settled();
    } finally {
      await server.close();
    }
  });

  test('a change made on A reaches a subscriber on B', async () => {
    const server = await listen(b);
    try {
      const olivia = t.user('olivia');
      const live = await subscribe(
        `http://127.0.0.1:${server.port}/api/graphql`,
        { authorization: `Bearer ${olivia.token}` },
        ISSUE_CHANGED,
      );
      expect(live.status).toBe(200);
      // The change is heard once B's subscription reached the cluster (a node lists its channel).
      await expect.poll(() => subscribedOn(olivia.org_id), { timeout: 10_000, interval: 50 }).toHaveLength(1);
      const id = await createIssueOn(a, 'Made on A, over the cluster');
      expect(await live.next()).toMatchObject({
        data: { issueChanged: { issueId: id, issue: { title: 'Made on A, over the cluster' } } },
      });
      live.close();
    } finally {
      await server.close();
    }
  });

  test("the epoch's master dies right after a revocation its replica never received; the replica takes over with the old epoch: refused on A and B", async () => {
    const { key, token } = await cachedKey('survives a failover?');
    const master = await cluster.masterOf(DEFAULT_EPOCH_KEY);
    const replica = await cluster.replicaOf(master);
    const epochBefore = await cluster.command(master, (c) => c.get(DEFAULT_EPOCH_KEY));
    expect(epochBefore).not.toBeNull();

    // The replica is frozen and its replication link cut: the bump below reaches the master only.
    cluster.pause(replica);
    try {
      await cluster.command(master, (c) => c.call('CLIENT', 'KILL', 'TYPE', 'replica'));
      await revokeOn(a, key.id);
      expect(await cluster.command(master, (c) => c.get(DEFAULT_EPOCH_KEY))).toBe(String(BigInt(epochBefore!) + 1n));
      await cluster.kill(master);
    } finally {
      cluster.resume(replica);
    }
    await cluster.settled();
    expect(await cluster.masterOf(DEFAULT_EPOCH_KEY)).toBe(replica);
    // The revocation's bump is lost: the new master serves the epoch both instances cached the key under.
    expect(await cluster.command(replica, (c) => c.get(DEFAULT_EPOCH_KEY))).toBe(epochBefore);
    await expectRefusedEverywhere(token);
    await cluster.restart(master);
    await cluster.settled();
  });
});
