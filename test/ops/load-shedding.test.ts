import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { loadConfig, testConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startTestApp, type TestApp } from '../support/app.js';

const MAX_LAG_MS = 200;

let t: TestApp;
let app: App;
const logs: Record<string, unknown>[] = [];

beforeAll(async () => {
  t = await startTestApp();
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString().split('\n')) if (text.trim()) logs.push(JSON.parse(text));
      done();
    },
  });
  app = await createApp(testConfig({ loadShedLagMs: MAX_LAG_MS }), {
    db: t.app.db,
    logger: createLogger('info', stream),
  });
});
afterAll(async () => {
  await app.close();
  await t.close();
});

/** Holds this process's event loop, the app's too (it runs in the test's process), for `ms`. */
function blockEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

const get = (path: string) =>
  app.fetch(
    new Request(`http://localhost:4000${path}`, { headers: { authorization: `Bearer ${t.user('olivia').token}` } }),
  );

describe('load shedding: while the event loop lags, new requests get 503', () => {
  test('on by default, at 300 ms; 0 turns it off', () => {
    expect(loadConfig({}).loadShedLagMs).toBe(300);
    expect(loadConfig({ LOAD_SHED_LAG_MS: '0' }).loadShedLagMs).toBe(0);
  });

  test(`one stretch of the loop held longer than ${MAX_LAG_MS} ms sheds nothing: the requests behind it are served`, async () => {
    await expect.poll(async () => (await get('/api/me')).status, { timeout: 60_000, interval: 100 }).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200)); // two on-time samples
    blockEventLoop(3 * MAX_LAG_MS);
    expect((await get('/api/me')).status).toBe(200);
  });

  test(`a request that arrives while the loop keeps lagging more than ${MAX_LAG_MS} ms is 503 overloaded with Retry-After; health and readiness still answer; then it recovers`, async () => {
    // The busy test machine may lag by itself: start from a moment it does not.
    await expect.poll(async () => (await get('/api/me')).status, { timeout: 60_000, interval: 100 }).toBe(200);
    // Held twice, with the sampler's timer let through in between: a lag that persists.
    blockEventLoop(3 * MAX_LAG_MS);
    await new Promise((resolve) => setTimeout(resolve, 0));
    blockEventLoop(3 * MAX_LAG_MS);
    const shed = await get('/api/me');
    expect(shed.status).toBe(503);
    expect(shed.headers.get('retry-after')).toBe('1');
    expect(shed.headers.get('content-type')).toBe('application/problem+json');
    expect(await shed.json()).toMatchObject({ status: 503, code: 'overloaded', request_id: expect.any(String) });
    expect((await get('/healthz')).status).toBe(200);
    expect((await get('/readyz')).status).toBe(200);
    // Once the sampler has seen the loop on time again, requests are served.
    await expect.poll(async () => (await get('/api/me')).status, { timeout: 60_000, interval: 100 }).toBe(200);
    expect(
      logs.some((l) => l.msg === 'event loop lagging: new requests get 503 overloaded' && Number(l.lagMs) > MAX_LAG_MS),
    ).toBe(true);
    expect(logs.some((l) => l.msg === 'event loop caught up: serving new requests again')).toBe(true);
  });

  test('off (LOAD_SHED_LAG_MS=0, as in the other suites): the same lag sheds nothing', async () => {
    blockEventLoop(3 * MAX_LAG_MS);
    expect((await t.call('GET', '/api/me', { token: t.user('olivia').token })).status).toBe(200);
  });
});
