import { describe, expect, test, vi } from 'vitest';
import { hashToken } from '../../src/auth/pat-token.js';
import type { Logger } from '../../src/logger.js';
import {
  applyRateLimitHeaders,
  createLimiterStore,
  credentialSubject,
  drawFrom,
  RateLimiter,
} from '../../src/limits/limiter.js';
import { rateLimitSubject } from '../../src/pipeline/rate-limit.js';
import { RedisStore } from '../../src/limits/redis-store.js';
import { MemoryStore } from '../../src/limits/memory-store.js';
import { GLOBAL_POLICY, type Policy } from '../../src/limits/policy.js';
import type { LimiterStore } from '../../src/limits/store.js';

function fakeClock(start = 1_700_000_000_000) {
  let now = start;
  return {
    now: () => now,
    set: (t: number) => {
      now = t;
    },
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('MemoryStore', () => {
  test('admits exactly the limit, then refuses the 601st until the oldest entry leaves the window', async () => {
    const clock = fakeClock();
    const t0 = clock.now();
    const store = new MemoryStore({ now: clock.now });
    // 600 requests 50 ms apart: the last one lands at t0 + 29_950.
    for (let i = 0; i < 600; i++) {
      clock.set(t0 + i * 50);
      const d = await store.consume('tok', GLOBAL_POLICY);
      expect(d).toEqual({
        allowed: true,
        limit: 600,
        remaining: 599 - i,
        resetSeconds: Math.ceil((60_000 - i * 50) / 1000),
      });
    }
    clock.set(t0 + 30_000);
    expect(await store.consume('tok', GLOBAL_POLICY)).toEqual({
      allowed: false,
      limit: 600,
      remaining: 0,
      resetSeconds: 30,
    });
    // 1 ms before the first entry expires: still full, and the next slot is under a second away.
    clock.set(t0 + 59_999);
    expect(await store.consume('tok', GLOBAL_POLICY)).toEqual({
      allowed: false,
      limit: 600,
      remaining: 0,
      resetSeconds: 1,
    });
    // The first entry expires at exactly t0 + 60_000: one slot opens, and only one.
    clock.set(t0 + 60_000);
    expect(await store.consume('tok', GLOBAL_POLICY)).toEqual({
      allowed: true,
      limit: 600,
      remaining: 0,
      resetSeconds: 1,
    });
    expect((await store.consume('tok', GLOBAL_POLICY)).allowed).toBe(false);
    // 100 ms later two more entries (t0+50, t0+100) have expired.
    clock.set(t0 + 60_100);
    expect((await store.consume('tok', GLOBAL_POLICY)).allowed).toBe(true);
    expect((await store.consume('tok', GLOBAL_POLICY)).allowed).toBe(true);
    expect((await store.consume('tok', GLOBAL_POLICY)).allowed).toBe(false);
    await store.close();
  });

  test('refused requests are not recorded, so they do not push the window back', async () => {
    const clock = fakeClock();
    const store = new MemoryStore({ now: clock.now });
    const policy: Policy = { name: 'p', limit: 2, windowMs: 10_000 };
    await store.consume('k', policy);
    await store.consume('k', policy);
    for (let i = 0; i < 9; i++) {
      clock.advance(1_000);
      expect((await store.consume('k', policy)).allowed).toBe(false);
    }
    clock.advance(1_000); // t0 + 10 s: both entries expire together
    expect(await store.consume('k', policy)).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 10 });
    await store.close();
  });

  test('buckets are per policy and per key', async () => {
    const store = new MemoryStore({ now: fakeClock().now });
    const a: Policy = { name: 'a', limit: 1, windowMs: 60_000 };
    const b: Policy = { name: 'b', limit: 1, windowMs: 60_000 };
    expect((await store.consume('k', a)).allowed).toBe(true);
    expect((await store.consume('k', b)).allowed).toBe(true);
    expect((await store.consume('other', a)).allowed).toBe(true);
    expect((await store.consume('k', a)).allowed).toBe(false);
    await store.close();
  });

  test('consumeAll is all-or-nothing: a refusal records nothing in the other bucket', async () => {
    const store = new MemoryStore({ now: fakeClock().now });
    const small: Policy = { name: 'small', limit: 2, windowMs: 60_000 };
    const big: Policy = { name: 'big', limit: 5, windowMs: 60_000 };
    const both = [
      { key: 'tok', policy: big },
      { key: 'tok', policy: small },
    ];
    expect((await store.consumeAll(both)).map((d) => d.allowed)).toEqual([true, true]);
    expect((await store.consumeAll(both)).map((d) => d.allowed)).toEqual([true, true]);
    const refused = await store.consumeAll(both);
    expect(refused).toEqual([
      { allowed: false, limit: 5, remaining: 3, resetSeconds: 60 },
      { allowed: false, limit: 2, remaining: 0, resetSeconds: 60 },
    ]);
    // big holds 2 entries, not 3: this admission leaves 5 - 3 = 2.
    expect(await store.consume('tok', big)).toMatchObject({ allowed: true, remaining: 2 });
    await store.close();
  });

  test('idle buckets are swept', async () => {
    const clock = fakeClock();
    const store = new MemoryStore({ now: clock.now, sweepIntervalMs: 1_000 });
    const policy: Policy = { name: 'p', limit: 3, windowMs: 5_000 };
    await store.consume('a', policy);
    await store.consume('b', policy);
    clock.advance(4_999);
    await store.consume('c', policy); // triggers a lazy sweep; a and b are still live
    expect(store.size).toBe(3);
    clock.advance(1); // a and b's only entries have now left the window
    store.sweep();
    expect(store.size).toBe(1);
    clock.advance(5_000);
    await store.consume('d', policy); // lazy sweep on access drops c
    expect(store.size).toBe(1);
    await store.close();
    expect(store.size).toBe(0);
  });

  test('the sweep timer drops idle buckets of a store nobody calls', async () => {
    vi.useFakeTimers();
    try {
      const clock = fakeClock();
      const store = new MemoryStore({ now: clock.now, sweepIntervalMs: 1_000 });
      await store.consume('a', { name: 'p', limit: 3, windowMs: 500 });
      clock.advance(600);
      vi.advanceTimersByTime(999);
      expect(store.size).toBe(1);
      vi.advanceTimersByTime(1);
      expect(store.size).toBe(0);
      await store.close();
      expect(vi.getTimerCount()).toBe(0); // close() stops it
    } finally {
      vi.useRealTimers();
    }
  });

  test('a request sweeps only once the interval has passed, not on every call', async () => {
    const clock = fakeClock();
    const store = new MemoryStore({ now: clock.now, sweepIntervalMs: 10_000 });
    const policy: Policy = { name: 'p', limit: 3, windowMs: 100 };
    await store.consume('a', policy);
    clock.advance(9_999); // a is idle, but the interval has not passed
    await store.consume('b', policy);
    expect(store.size).toBe(2);
    clock.advance(1); // now it has
    await store.consume('c', policy);
    expect(store.size).toBe(2); // b (1 ms old) and c: a is dropped
    await store.close();
  });

  test('a clock stepping back: the younger entry is not put behind an older one, so the bucket is not swept while live', async () => {
    const clock = fakeClock(100_000);
    const store = new MemoryStore({ now: clock.now, sweepIntervalMs: 1_000_000 });
    const policy: Policy = { name: 'p', limit: 2, windowMs: 10_000 };
    expect((await store.consume('k', policy)).allowed).toBe(true);
    clock.set(96_000); // NTP steps the wall clock back 4 s
    expect(await store.consume('k', policy)).toEqual({ allowed: true, limit: 2, remaining: 0, resetSeconds: 14 });
    expect((await store.consume('k', policy)).allowed).toBe(false);
    // 9 s after the first admission: both entries are live, whatever the clock did in between.
    clock.set(109_000);
    store.sweep();
    expect(store.size).toBe(1);
    expect(await store.consume('k', policy)).toEqual({ allowed: false, limit: 2, remaining: 0, resetSeconds: 1 });
    clock.set(110_000);
    expect(await store.consume('k', policy)).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 10 });
    await store.close();
  });

  test('a bucket emptied by releaseSync and a clock stepping back: the new entry is stamped with the clock', async () => {
    const clock = fakeClock(100_000);
    const store = new MemoryStore({ now: clock.now, sweepIntervalMs: 1_000_000 });
    const policy: Policy = { name: 'p', limit: 3, windowMs: 10_000 };
    await store.consume('k', policy);
    clock.set(105_000);
    await store.consume('k', policy);
    clock.set(110_000);
    await store.consume('k', policy); // the first entry leaves: the ring's head moves past it
    store.releaseSync([{ key: 'k', policy }]); // both live entries taken back (Redis refused them)
    store.releaseSync([{ key: 'k', policy }]);
    clock.set(90_000);
    // Nothing live to stay behind: the evicted entry's stale slot must not date the new one.
    expect(await store.consume('k', policy)).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 10 });
    await store.close();
  });

  test('releaseSync takes back one admission per bucket, once per bucket however often it is listed', async () => {
    const clock = fakeClock();
    const store = new MemoryStore({ now: clock.now });
    const policy: Policy = { name: 'p', limit: 3, windowMs: 60_000 };
    for (let i = 0; i < 3; i++) await store.consume('k', policy);
    expect((await store.consume('k', policy)).allowed).toBe(false);
    store.releaseSync([
      { key: 'k', policy },
      { key: 'k', policy },
      { key: 'unknown', policy },
    ]);
    expect(await store.consume('k', policy)).toEqual({ allowed: true, limit: 3, remaining: 0, resetSeconds: 60 });
    expect((await store.consume('k', policy)).allowed).toBe(false);
    store.releaseSync([{ key: 'k', policy }]);
    store.releaseSync([{ key: 'k', policy }]);
    store.releaseSync([{ key: 'k', policy }]);
    store.releaseSync([{ key: 'k', policy }]); // one more than it holds: the count stays at 0
    expect((await store.consumeAll([{ key: 'k', policy }])).map((d) => d.remaining)).toEqual([2]);
    store.releaseSync([{ key: 'k', policy }]);
    store.sweep(); // an emptied bucket goes at the next sweep, however recent its last entry
    expect(store.size).toBe(0);
    await store.close();
  });

  test('the ring buffer grows past its first 8 slots and keeps every entry in order', async () => {
    const clock = fakeClock(0);
    const store = new MemoryStore({ now: clock.now });
    const policy: Policy = { name: 'p', limit: 10, windowMs: 10_000 };
    for (let i = 0; i < 10; i++) {
      clock.set(i * 1_000);
      expect((await store.consume('k', policy)).allowed).toBe(true);
    }
    // Each entry leaves the window at its own time, oldest first.
    for (let i = 0; i < 10; i++) {
      clock.set(10_000 + i * 1_000);
      expect(await store.consume('k', policy)).toEqual({ allowed: true, limit: 10, remaining: 0, resetSeconds: 1 });
      expect((await store.consume('k', policy)).allowed).toBe(false);
    }
    await store.close();
  });

  test('a policy whose numbers changed starts a fresh bucket; a closed one (limit 0) keeps none', async () => {
    const store = new MemoryStore({ now: fakeClock().now });
    expect((await store.consume('k', { name: 'p', limit: 1, windowMs: 10_000 })).allowed).toBe(true);
    expect((await store.consume('k', { name: 'p', limit: 1, windowMs: 10_000 })).allowed).toBe(false);
    expect((await store.consume('k', { name: 'p', limit: 1, windowMs: 20_000 })).allowed).toBe(true);
    expect((await store.consume('k', { name: 'p', limit: 2, windowMs: 20_000 })).allowed).toBe(true);
    expect(store.size).toBe(1);
    expect((await store.consume('x', { name: 'closed', limit: 0, windowMs: 10_000 })).allowed).toBe(false);
    expect(store.size).toBe(1);
    await store.close();
  });

  test('700 concurrent consumes on one key admit exactly 600', async () => {
    const store = new MemoryStore();
    const decisions = await Promise.all(Array.from({ length: 700 }, () => store.consume('hot', GLOBAL_POLICY)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(600);
    expect(decisions.filter((d) => !d.allowed).every((d) => d.remaining === 0 && d.resetSeconds >= 1)).toBe(true);
    await store.close();
  });
});

describe('RateLimiter', () => {
  const big: Policy = { name: 'big', limit: 5, windowMs: 60_000 };
  const small: Policy = { name: 'small', limit: 1, windowMs: 60_000 };

  test('admits only when every policy admits, whatever the store reports per policy', async () => {
    // A store that decides per policy (none of ours does; the rule must not depend on it).
    const store = new MemoryStore();
    const perPolicy: LimiterStore = {
      consume: (key, policy) => store.consume(key, policy),
      consumeAll: (entries) => Promise.all(entries.map(({ key, policy }) => store.consume(key, policy))),
      release: (entries) => store.release(entries),
      close: () => store.close(),
    };
    const limiter = new RateLimiter(perPolicy);
    expect((await limiter.admit('k', [big, small])).allowed).toBe(true);
    const refused = await limiter.admit('k', [big, small]);
    expect(refused.allowed).toBe(false);
    expect(refused.decisions.map(({ policy, decision }) => [policy.name, decision.allowed])).toEqual([
      ['big', true],
      ['small', false],
    ]);
    await limiter.close();
  });

  test('close() closes the store', async () => {
    const store = new MemoryStore();
    const limiter = new RateLimiter(store);
    await limiter.admit('k');
    expect(store.size).toBe(1);
    await limiter.close();
    expect(store.size).toBe(0);
  });
});

describe('the limiter around the store', () => {
  const small: Policy = { name: 'small', limit: 1, windowMs: 60_000 };

  test('a credential is one bucket from any address; without one, the address is', () => {
    const token = 'wm_session_abc';
    expect(rateLimitSubject(token, '198.51.100.1')).toBe(rateLimitSubject(token, '198.51.100.2'));
    expect(rateLimitSubject(token, '198.51.100.1')).toBe(credentialSubject(hashToken(token)));
    expect(credentialSubject(hashToken(token))).toMatch(/^cred:[A-Za-z0-9_-]{27}$/);
    expect(rateLimitSubject(null, '198.51.100.1')).toBe('ip:198.51.100.1');
    expect(rateLimitSubject('', '198.51.100.1')).toBe('ip:198.51.100.1');
  });

  test('drawFrom: the decision joins the response headers; a refusal is reported and gives Retry-After', async () => {
    const limiter = new RateLimiter(new MemoryStore());
    const ctx = { limiter, rateLimits: [] as never[], scope: { id: 'r', refusedPolicies: [] as string[] } };
    expect(await drawFrom(ctx as never, small, 'k')).toBeNull();
    expect(ctx.scope.refusedPolicies).toEqual([]);
    expect(await drawFrom(ctx as never, small, 'k')).toBe('60');
    expect(ctx.scope.refusedPolicies).toEqual(['small']);
    expect(ctx.rateLimits).toHaveLength(2);
    await limiter.close();
  });

  test('applyRateLimitHeaders sets the fields of the tightest bucket', async () => {
    const limiter = new RateLimiter(new MemoryStore());
    const { decisions } = await limiter.admit('k', [small]);
    const response = new Response('ok', { headers: { 'x-ratelimit-limit': 'stale' } });
    applyRateLimitHeaders(response, decisions);
    expect(response.headers.get('x-ratelimit-limit')).toBe('1');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(response.headers.get('ratelimit')).toBe('"small";r=0;t=60');
    await limiter.close();
  });

  test('createLimiterStore: in process without REDIS_URL; Redis with it, and a warning when it is unreachable', async () => {
    const warnings: unknown[][] = [];
    const logger = { warn: (...args: unknown[]) => void warnings.push(args) } as unknown as Logger;
    const memory = await createLimiterStore(undefined, logger);
    expect(memory).toBeInstanceOf(MemoryStore);
    await memory.close();
    const shared = await createLimiterStore(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', logger);
    expect(shared).toBeInstanceOf(RedisStore);
    await shared.close();
    expect(warnings).toEqual([]);
    const redis = await createLimiterStore('redis://127.0.0.1:1', logger);
    expect(redis).toBeInstanceOf(RedisStore);
    expect(warnings).toEqual([['Redis did not answer at start; rate limits are per process until it does']]);
    expect((await redis.consume('k', small)).allowed).toBe(true);
    expect(warnings[1]).toEqual([
      { err: expect.any(Error) },
      'Redis unavailable for rate limiting: limiting in this process only until it answers again',
    ]);
    await redis.close();
  });
});
