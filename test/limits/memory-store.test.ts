import { describe, expect, test } from 'vitest';
import { MemoryStore } from '../../src/limits/memory-store.js';
import { GLOBAL_POLICY, type Policy } from '../../src/limits/policy.js';

function fakeClock(start = 1_700_000_000_000) {
  let now = start;
  return { now: () => now, set: (t: number) => void (now = t), advance: (ms: number) => void (now += ms) };
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
      expect(d).toEqual({ allowed: true, limit: 600, remaining: 599 - i, resetSeconds: Math.ceil((60_000 - i * 50) / 1000) });
    }
    clock.set(t0 + 30_000);
    expect(await store.consume('tok', GLOBAL_POLICY)).toEqual({ allowed: false, limit: 600, remaining: 0, resetSeconds: 30 });
    // 1 ms before the first entry expires: still full, and the next slot is under a second away.
    clock.set(t0 + 59_999);
    expect(await store.consume('tok', GLOBAL_POLICY)).toEqual({ allowed: false, limit: 600, remaining: 0, resetSeconds: 1 });
    // The first entry expires at exactly t0 + 60_000: one slot opens, and only one.
    clock.set(t0 + 60_000);
    expect(await store.consume('tok', GLOBAL_POLICY)).toEqual({ allowed: true, limit: 600, remaining: 0, resetSeconds: 1 });
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

  test('700 concurrent consumes on one key admit exactly 600', async () => {
    const store = new MemoryStore();
    const decisions = await Promise.all(Array.from({ length: 700 }, () => store.consume('hot', GLOBAL_POLICY)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(600);
    expect(decisions.filter((d) => !d.allowed).every((d) => d.remaining === 0 && d.resetSeconds >= 1)).toBe(true);
    await store.close();
  });
});
