import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GLOBAL_POLICY, type Policy } from '../../src/limits/policy.js';
import { RedisStore } from '../../src/limits/redis-store.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `rl-test:${randomUUID()}:`;
const admin = new Redis(REDIS_URL, { lazyConnect: true });
const stores: RedisStore[] = [];

async function connectedStore(onFallback?: (error: Error) => void): Promise<RedisStore> {
  const store = new RedisStore(REDIS_URL, { prefix, onFallback });
  stores.push(store);
  // Before the connection is up, decisions are (correctly) local; these tests are about Redis.
  expect(await store.ready()).toBe(true);
  return store;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  await admin.connect();
});

afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  const keys = await admin.keys(`${prefix}*`);
  if (keys.length) await admin.del(...keys);
  admin.disconnect();
});

describe('RedisStore', () => {
  test('700 concurrent consumes on one key admit exactly 600, all recorded in Redis', async () => {
    const fallbacks: Error[] = [];
    const store = await connectedStore((e) => fallbacks.push(e));
    const decisions = await Promise.all(Array.from({ length: 700 }, () => store.consume('hot', GLOBAL_POLICY)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(600);
    expect(fallbacks).toEqual([]);
    expect(await admin.zcard(store.bucketKey('hot', GLOBAL_POLICY))).toBe(600);
    // The key expires on its own once its window has passed.
    const ttl = await admin.pttl(store.bucketKey('hot', GLOBAL_POLICY));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  test('remaining and resetSeconds come from Redis time', async () => {
    const store = await connectedStore();
    const policy: Policy = { name: 'reset', limit: 3, windowMs: 60_000 };
    expect(await store.consume('k', policy)).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
    await store.consume('k', policy);
    await store.consume('k', policy);
    // Entries live for 60 s, not 60 ms: a window unit slip would have expired them by now.
    await sleep(150);
    const refused = await store.consume('k', policy);
    expect(refused).toMatchObject({ allowed: false, limit: 3, remaining: 0 });
    expect(refused.resetSeconds).toBeGreaterThanOrEqual(59);
    expect(refused.resetSeconds).toBeLessThanOrEqual(60);
  });

  test('the window slides: a slot opens once the oldest entry is older than the window', async () => {
    const store = await connectedStore();
    const policy: Policy = { name: 'slide', limit: 2, windowMs: 200 };
    expect((await store.consume('k', policy)).allowed).toBe(true);
    expect((await store.consume('k', policy)).allowed).toBe(true);
    expect((await store.consume('k', policy)).allowed).toBe(false);
    await sleep(300);
    expect(await store.consume('k', policy)).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 1 });
  });

  test('two instances with separate clients share one bucket exactly', async () => {
    const a = await connectedStore();
    const b = await connectedStore();
    expect(a.redis).not.toBe(b.redis);
    const decisions = await Promise.all(
      Array.from({ length: 700 }, (_, i) => (i % 2 ? a : b).consume('shared', GLOBAL_POLICY)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(600);
    expect(await admin.zcard(a.bucketKey('shared', GLOBAL_POLICY))).toBe(600);
  });

  test('consumeAll is atomic: a refusal records nothing, also under concurrency', async () => {
    const store = await connectedStore();
    const small: Policy = { name: 'small', limit: 3, windowMs: 60_000 };
    const big: Policy = { name: 'big', limit: 100, windowMs: 60_000 };
    const both = [
      { key: 'tok', policy: big },
      { key: 'tok', policy: small },
    ];
    const results = await Promise.all(Array.from({ length: 20 }, () => store.consumeAll(both)));
    expect(results.filter(([d]) => d?.allowed)).toHaveLength(3);
    for (const [bigDecision, smallDecision] of results) expect(bigDecision?.allowed).toBe(smallDecision?.allowed);
    expect(await admin.zcard(store.bucketKey('tok', big))).toBe(3);
    expect(await admin.zcard(store.bucketKey('tok', small))).toBe(3);
    const refused = await store.consumeAll(both);
    expect(refused).toEqual([
      { allowed: false, limit: 100, remaining: 97, resetSeconds: 60 },
      { allowed: false, limit: 3, remaining: 0, resetSeconds: 60 },
    ]);
  });

  test('release takes one admission back from each bucket, in Redis and in the local count', async () => {
    const store = await connectedStore();
    const policy: Policy = { name: 'release', limit: 2, windowMs: 60_000 };
    await store.consume('a', policy);
    await store.consume('a', policy);
    expect((await store.consume('a', policy)).allowed).toBe(false);
    await store.release([
      { key: 'a', policy },
      { key: 'a', policy },
    ]);
    expect(await admin.zcard(store.bucketKey('a', policy))).toBe(1);
    expect(await store.consume('a', policy)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await store.consume('a', policy)).allowed).toBe(false);
  });

  test('an admission Redis refused is taken back locally: when Redis goes away, the local count is what was admitted', async () => {
    const policy: Policy = { name: 'takeback', limit: 3, windowMs: 60_000 };
    const other = await connectedStore();
    for (let i = 0; i < 3; i++) expect((await other.consume('k', policy)).allowed).toBe(true);
    // Its own client, to take Redis away from this instance only; commands fail at once when offline.
    const client = new Redis(REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    client.on('error', () => {});
    const store = new RedisStore(client, { prefix, onFallback: () => {} });
    stores.push(store);
    expect(await store.ready()).toBe(true);
    // The bucket is full in Redis: each request is admitted locally first, then refused by Redis.
    for (let i = 0; i < 5; i++) expect((await store.consume('k', policy)).allowed).toBe(false);
    client.disconnect();
    const down = [];
    for (let i = 0; i < 4; i++) down.push((await store.consume('k', policy)).allowed);
    // This instance admitted nothing, so its local bucket has the whole limit.
    expect(down).toEqual([true, true, true, false]);
  });

  test('Redis unreachable: answers quickly, limits locally, reports through onFallback', async () => {
    const fallbacks: Error[] = [];
    const store = new RedisStore('redis://127.0.0.1:1', { prefix, onFallback: (e) => fallbacks.push(e) });
    stores.push(store);
    const policy: Policy = { name: 'down', limit: 3, windowMs: 60_000 };
    const started = Date.now();
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await store.consume('k', policy));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions[3]).toMatchObject({ remaining: 0, resetSeconds: 60 });
    // Throttled: four fallbacks, one report.
    expect(fallbacks).toHaveLength(1);
    expect(fallbacks[0]).toBeInstanceOf(Error);
  });

  test('a client that would queue commands forever cannot make a decision hang', async () => {
    // Offline queue on and unlimited retries: without the store's own timeout this command never settles.
    const client = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: null });
    client.on('error', () => {});
    const fallbacks: Error[] = [];
    const store = new RedisStore(client, { prefix, timeoutMs: 200, onFallback: (e) => fallbacks.push(e) });
    const started = Date.now();
    const decision = await store.consume('k', GLOBAL_POLICY);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(decision).toMatchObject({ allowed: true, remaining: 599 });
    expect(fallbacks[0]?.message).toMatch(/did not answer/);
    await store.close();
    client.disconnect();
  });
});
