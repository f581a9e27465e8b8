import { afterEach, describe, expect, test, vi } from 'vitest';
import { InFlight } from '../src/limits/in-flight.js';
import { RateLimiter } from '../src/limits/limiter.js';
import { MemoryStore } from '../src/limits/memory-store.js';
import { StreamSlots } from '../src/live/stream-slots.js';
import { EventLoopLag, LoadShedder } from '../src/ops/load-shedding.js';
import { ValidationError } from '../src/schema/core/errors.js';
import { checkInputShape, INPUT_LIMITS, inputShapeError, WIDTH } from '../src/schema/core/input-shape.js';
import type { Context } from '../src/context.js';
import { drawSignInAttempt, forgiveSignIn } from '../src/web/sign-in-throttle.js';

// The per-tenant bounds one module at a time, without an app or a database, so that mutation
// testing (stryker/tenant-bounds.config.mjs) judges each change to them in milliseconds. The same
// bounds through the whole stack: test/input-shape.test.ts, graphql-load.test.ts,
// ops/load-shedding.test.ts, live-updates.test.ts and sign-in-throttle.test.ts.

/** `depth` lists, one inside the other, around `inner`. */
function nested(depth: number, inner: unknown): unknown {
  let value = inner;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

describe('inputShapeError', () => {
  test('values within every bound pass, whatever their kinds', () => {
    expect(inputShapeError({ a: 1, b: 'x', c: null, d: [true, { e: undefined }] }, 'input')).toBeNull();
    expect(inputShapeError(null, 'input')).toBeNull();
    expect(inputShapeError(7, 'input')).toBeNull();
  });

  test('a string of the limit passes, one more character is refused, at the root too', () => {
    expect(inputShapeError({ s: 'x'.repeat(INPUT_LIMITS.text) }, 'input')).toBeNull();
    expect(inputShapeError({ s: 'x'.repeat(INPUT_LIMITS.text + 1) }, 'input')).toEqual({
      field: 's',
      message: `is ${INPUT_LIMITS.text + 1} characters long, over the limit of ${INPUT_LIMITS.text}`,
    });
    expect(inputShapeError('x'.repeat(INPUT_LIMITS.text + 1), 'body')?.field).toBe('body');
  });

  test('objects and lists nest down to the depth limit; one level more is refused where it is', () => {
    // The root is at 0: a list at depth 32 passes, with scalars and null below it.
    expect(inputShapeError(nested(INPUT_LIMITS.depth + 1, 5), 'input')).toBeNull();
    expect(inputShapeError(nested(INPUT_LIMITS.depth + 1, null), 'input')).toBeNull();
    expect(inputShapeError(nested(INPUT_LIMITS.depth + 1, 'deep'), 'input')).toBeNull();
    expect(inputShapeError(nested(INPUT_LIMITS.depth + 1, []), 'input')).toEqual({
      field: Array(INPUT_LIMITS.depth + 1)
        .fill('0')
        .join('.'),
      message: `nests deeper than ${INPUT_LIMITS.depth} levels of objects and lists`,
    });
    expect(inputShapeError(nested(INPUT_LIMITS.depth + 1, {}), 'input')?.message).toMatch(/^nests deeper/);
  });

  test('a value nested far beyond the limit is refused, not a stack overflow', () => {
    expect(inputShapeError(nested(100_000, 1), 'input')?.message).toMatch(/^nests deeper/);
  });

  test('a list of the item limit passes, one more item is refused', () => {
    expect(inputShapeError({ l: Array(INPUT_LIMITS.items).fill(0) }, 'input')).toBeNull();
    // More items than an object may have fields: a list is not also counted as an object.
    expect(inputShapeError({ l: Array(INPUT_LIMITS.fields + 50).fill(0) }, 'input')).toBeNull();
    expect(inputShapeError({ l: Array(INPUT_LIMITS.items + 1).fill(0) }, 'input')).toEqual({
      field: 'l',
      message: WIDTH.items,
    });
  });

  test('an object of the field limit passes, one more field is refused', () => {
    const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, i]));
    expect(inputShapeError({ o: fields(INPUT_LIMITS.fields) }, 'input')).toBeNull();
    expect(inputShapeError({ o: fields(INPUT_LIMITS.fields + 1) }, 'input')).toEqual({
      field: 'o',
      message: WIDTH.fields,
    });
  });

  test('a field name of the limit passes, one character more is refused', () => {
    expect(inputShapeError({ o: { ['k'.repeat(INPUT_LIMITS.name)]: 1 } }, 'input')).toBeNull();
    expect(inputShapeError({ o: { ok: 1, ['k'.repeat(INPUT_LIMITS.name + 1)]: 1 } }, 'input')).toEqual({
      field: 'o',
      message: `has a field name of ${INPUT_LIMITS.name + 1} characters, over the limit of ${INPUT_LIMITS.name}`,
    });
  });

  test('the values in all: exactly the limit passes, one more is refused at the root', () => {
    // The root list, 20 lists in it, and what those hold.
    const holding = (total: number) => {
      let rest = total - 1 - 20;
      return Array.from({ length: 20 }, () => {
        const n = Math.min(INPUT_LIMITS.items, rest);
        rest -= n;
        return Array(n).fill(1);
      });
    };
    expect(inputShapeError(holding(INPUT_LIMITS.values), 'variables')).toBeNull();
    expect(inputShapeError(holding(INPUT_LIMITS.values + 1), 'variables')).toEqual({
      field: 'variables',
      message: `holds more than ${INPUT_LIMITS.values} values in all (objects, lists and what they hold)`,
    });
  });

  test('objects count as values once, with what they hold', () => {
    // Two scalars first, then 10 lists of objects of one field: 1 + 2 + 10 + 2 x 9,994 = 20,001.
    const holding = (scalars: number) => {
      let rest = 9_994;
      const lists = Array.from({ length: 10 }, () => {
        const n = Math.min(INPUT_LIMITS.items, rest);
        rest -= n;
        return Array.from({ length: n }, () => ({ a: 1 }));
      });
      return [...Array(scalars).fill(0), ...lists];
    };
    expect(inputShapeError(holding(1), 'input')).toBeNull();
    expect(inputShapeError(holding(2), 'input')?.field).toBe('input');
  });

  test('objects nest down to the depth limit like lists', () => {
    const objects = (depth: number, inner: unknown) => {
      let value = inner;
      for (let i = 0; i < depth; i++) value = { a: value };
      return value;
    };
    expect(inputShapeError(objects(INPUT_LIMITS.depth + 1, 1), 'input')).toBeNull();
    expect(inputShapeError(objects(INPUT_LIMITS.depth + 1, {}), 'input')).toEqual({
      field: Array(INPUT_LIMITS.depth + 1)
        .fill('a')
        .join('.'),
      message: `nests deeper than ${INPUT_LIMITS.depth} levels of objects and lists`,
    });
  });

  test('the first excess in reading order is named by its whole path', () => {
    const long = 'x'.repeat(INPUT_LIMITS.text + 1);
    expect(inputShapeError({ f: { and: [{}, {}, {}, { status: long }] } }, 'input')?.field).toBe('f.and.3.status');
    expect(inputShapeError([long, 'ok', long], 'input')?.field).toBe('0');
    expect(inputShapeError(['ok', long, long], 'input')?.field).toBe('1');
    expect(inputShapeError({ a: long, b: long }, 'input')?.field).toBe('a');
    expect(inputShapeError({ a: 'ok', b: long, c: long }, 'input')?.field).toBe('b');
  });
});

describe('checkInputShape', () => {
  test('throws a ValidationError with the field error; returns quietly within the bounds', () => {
    expect(() => checkInputShape({ a: 1 }, 'input')).not.toThrow();
    const input = { a: 'x'.repeat(INPUT_LIMITS.text + 1) };
    let thrown: unknown;
    try {
      checkInputShape(input, 'body');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ValidationError);
    expect((thrown as ValidationError).fieldErrors).toEqual([inputShapeError(input, 'body')]);
  });
});

describe('InFlight (per credential)', () => {
  test('a subject holds at most perSubject slots; others are not affected', () => {
    const inFlight = new InFlight(2);
    expect(inFlight.acquire('a')).toBeTypeOf('function');
    expect(inFlight.acquire('a')).toBeTypeOf('function');
    expect(inFlight.acquire('a')).toBeNull();
    expect(inFlight.acquire('b')).toBeTypeOf('function');
  });

  test('a freed slot can be taken again; freeing twice frees one slot only', () => {
    const inFlight = new InFlight(2);
    const first = inFlight.acquire('a')!;
    inFlight.acquire('a');
    first();
    first();
    expect(inFlight.acquire('a')).toBeTypeOf('function');
    expect(inFlight.acquire('a')).toBeNull();
  });

  test('the counts hold only subjects with work running', () => {
    const inFlight = new InFlight(3);
    const first = inFlight.acquire('a')!;
    const second = inFlight.acquire('a')!;
    first();
    expect(inFlight['running'].get('a')).toBe(1);
    second();
    expect(inFlight['running'].size).toBe(0);
  });
});

describe('StreamSlots', () => {
  const noop = () => {};

  test('a credential holds at most perCredential streams, across organizations', () => {
    const slots = new StreamSlots({ perCredential: 2, perOrganization: 10 });
    expect(slots.take('c1', 'o1', noop)).toHaveProperty('release');
    expect(slots.take('c1', 'o2', noop)).toHaveProperty('release');
    expect(slots.take('c1', 'o3', noop)).toEqual({ scope: 'credential', limit: 2 });
    expect(slots.take('c2', 'o1', noop)).toHaveProperty('release');
  });

  test("an organization's members together hold at most perOrganization streams", () => {
    const slots = new StreamSlots({ perCredential: 5, perOrganization: 2 });
    expect(slots.take('c1', 'o1', noop)).toHaveProperty('release');
    expect(slots.take('c2', 'o1', noop)).toHaveProperty('release');
    expect(slots.take('c3', 'o1', noop)).toEqual({ scope: 'organization', limit: 2 });
    expect(slots.take('c3', 'o2', noop)).toHaveProperty('release');
    // The refused stream took no credential slot.
    expect(slots['byCredential'].get('c3')).toBe(1);
  });

  test('the credential cap is checked first, and a refusal takes nothing from the organization', () => {
    const slots = new StreamSlots({ perCredential: 1, perOrganization: 1 });
    slots.take('c1', 'o1', noop);
    expect(slots.take('c1', 'o1', noop)).toEqual({ scope: 'credential', limit: 1 });
    expect(slots['byOrganization'].get('o1')).toBe(1);
  });

  test('release (once) frees both counts; endAll ends the streams still open', () => {
    const slots = new StreamSlots({ perCredential: 2, perOrganization: 2 });
    const ended: string[] = [];
    const a = slots.take('c1', 'o1', () => ended.push('a')) as { release: () => void };
    const b = slots.take('c1', 'o1', () => ended.push('b')) as { release: () => void };
    a.release();
    a.release();
    expect(slots['byCredential'].get('c1')).toBe(1);
    expect(slots['byOrganization'].get('o1')).toBe(1);
    expect(slots.take('c1', 'o1', () => ended.push('c'))).toHaveProperty('release');
    expect(slots.take('c1', 'o1', noop)).toEqual({ scope: 'credential', limit: 2 });
    b.release();
    slots.endAll();
    expect(ended).toEqual(['c']);
  });

  test('the counts hold only credentials and organizations with streams open', () => {
    const slots = new StreamSlots({ perCredential: 2, perOrganization: 2 });
    const a = slots.take('c1', 'o1', noop) as { release: () => void };
    a.release();
    expect(slots['byCredential'].size).toBe(0);
    expect(slots['byOrganization'].size).toBe(0);
  });
});

describe('load shedding', () => {
  let now = 0;
  const SAMPLE_MS = 50;

  function controlledClock() {
    now = 1_000;
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    vi.spyOn(performance, 'now').mockImplementation(() => now);
  }
  /** The sampler fires `lateMs` after it should have. */
  function sample(lateMs: number) {
    now += SAMPLE_MS + lateMs;
    vi.advanceTimersByTime(SAMPLE_MS);
  }

  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  test('a loop on time has no lag; a timer that fires early is no negative lag', () => {
    controlledClock();
    const lag = new EventLoopLag();
    expect(lag.sustainedMs()).toBe(0);
    sample(0);
    expect(lag.sustainedMs()).toBe(0);
    now += 10;
    vi.advanceTimersByTime(SAMPLE_MS);
    expect(lag['lastLagMs']).toBe(0);
    lag.close();
  });

  test('one late sample alone is not sustained lag; an overdue next one makes it so', () => {
    controlledClock();
    const lag = new EventLoopLag();
    sample(200);
    expect(lag.sustainedMs()).toBe(0);
    now += SAMPLE_MS + 300;
    expect(lag.sustainedMs()).toBe(200);
    now -= 300 - 120;
    expect(lag.sustainedMs()).toBe(120);
    lag.close();
  });

  test('two late samples in a row: the smaller of the two', () => {
    controlledClock();
    const lag = new EventLoopLag();
    sample(200);
    sample(100);
    expect(lag.sustainedMs()).toBe(100);
    sample(0);
    expect(lag.sustainedMs()).toBe(0);
    lag.close();
  });

  test('close stops the sampler', () => {
    controlledClock();
    const lag = new EventLoopLag();
    expect(vi.getTimerCount()).toBe(1);
    lag.close();
    expect(vi.getTimerCount()).toBe(0);
    sample(500);
    sample(500);
    expect(lag.sustainedMs()).toBeLessThanOrEqual(0);
  });

  test('the sampler keeps no process alive', () => {
    const lag = new EventLoopLag();
    expect((lag['timer'] as NodeJS.Timeout).hasRef()).toBe(false);
    lag.close();
  });

  test('a lag up to the limit is served; beyond it a 503 overloaded with Retry-After', async () => {
    controlledClock();
    const shedder = new LoadShedder(100);
    sample(100);
    sample(100);
    expect(shedder.refusal()).toBeNull();
    // 100 then 101: the loop kept up 100 ms, no more.
    sample(101);
    expect(shedder.refusal()).toBeNull();
    sample(101);
    const { response, lagMs } = shedder.refusal()!;
    expect(lagMs).toBe(101);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toMatchObject({
      status: 503,
      code: 'overloaded',
      detail: 'The service is overloaded. Retry after Retry-After seconds.',
    });
    shedder.close();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('sign-in throttle', () => {
  function context(clientIp: string, limiter: RateLimiter) {
    return { clientIp, limiter, rateLimits: [] } as unknown as Context;
  }
  async function attempts(ctx: Context, email: string, n: number, forgive = false): Promise<(string | null)[]> {
    const results: (string | null)[] = [];
    for (let i = 0; i < n; i++) {
      const wait = await drawSignInAttempt(ctx, email);
      if (forgive && wait === null) await forgiveSignIn(ctx, email);
      results.push(wait);
    }
    return results;
  }

  test('one address, one account: ten attempts, counted even when they succeed', async () => {
    const limiter = new RateLimiter(new MemoryStore());
    const ctx = context('10.0.0.1', limiter);
    const results = await attempts(ctx, 'a@example.test', 11, true);
    expect(results.slice(0, 10)).toEqual(Array(10).fill(null));
    expect(results[10]).toMatch(/^\d+$/);
    // Another account from the same address, and the same account from another, are still served.
    expect(await drawSignInAttempt(ctx, 'b@example.test')).toBeNull();
    expect(await drawSignInAttempt(context('10.0.0.2', limiter), 'a@example.test')).toBeNull();
    expect(ctx.rateLimits.length).toBeGreaterThan(0);
  });

  test('one address trying many accounts: twenty failures in all', async () => {
    const limiter = new RateLimiter(new MemoryStore());
    const ctx = context('10.0.0.1', limiter);
    for (let i = 0; i < 20; i++) expect(await drawSignInAttempt(ctx, `u${i}@example.test`)).toBeNull();
    expect(await drawSignInAttempt(ctx, 'u20@example.test')).toMatch(/^\d+$/);
    expect(await drawSignInAttempt(context('10.0.0.2', limiter), 'u20@example.test')).toBeNull();
  });

  test('successful sign-ins behind one address never lock each other out', async () => {
    const limiter = new RateLimiter(new MemoryStore());
    const ctx = context('10.0.0.1', limiter);
    for (let i = 0; i < 25; i++) expect(await attempts(ctx, `u${i}@example.test`, 1, true)).toEqual([null]);
  });

  test('one account tried from many addresses: thirty failures in all', async () => {
    const limiter = new RateLimiter(new MemoryStore());
    for (let i = 0; i < 30; i++) {
      expect(await drawSignInAttempt(context(`10.0.1.${i}`, limiter), 'a@example.test')).toBeNull();
    }
    expect(await drawSignInAttempt(context('10.0.2.1', limiter), 'a@example.test')).toMatch(/^\d+$/);
    expect(await drawSignInAttempt(context('10.0.2.1', limiter), 'b@example.test')).toBeNull();
  });

  test("the account's successful sign-ins from many addresses are forgiven", async () => {
    const limiter = new RateLimiter(new MemoryStore());
    for (let i = 0; i < 35; i++) {
      expect(await attempts(context(`10.0.1.${i}`, limiter), 'a@example.test', 1, true)).toEqual([null]);
    }
  });
});
