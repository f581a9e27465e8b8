import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { generatePat } from '../src/auth/pat-token.js';
import { testConfig } from '../src/config.js';
import { MemoryStore } from '../src/limits/memory-store.js';
import { startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
let clock = 1_000_000;
let app: App;
let proxied: App;
beforeAll(async () => {
  t = await startTestApp();
  app = await createApp(testConfig(), { db: t.app.db, limiterStore: new MemoryStore({ now: () => clock }) });
  proxied = await createApp(testConfig({ trustProxy: true }), {
    db: t.app.db,
    limiterStore: new MemoryStore({ now: () => clock }),
  });
});
afterAll(async () => {
  await app.close();
  await proxied.close();
  await t.close();
});

const get = (path: string, headers: Record<string, string> = {}, remoteAddress = '10.0.0.1', target = app) =>
  target.fetch(new Request(`http://localhost:4000${path}`, { headers }), { remoteAddress });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function limits(response: Response) {
  return {
    limit: Number(response.headers.get('x-ratelimit-limit')),
    remaining: Number(response.headers.get('x-ratelimit-remaining')),
    reset: Number(response.headers.get('x-ratelimit-reset')),
  };
}

describe('global bucket: 600 per 60-second sliding window per token', () => {
  test('of 700 concurrent requests on one token exactly 600 are admitted; the rest get 429 with Retry-After', async () => {
    const { token } = t.user('adam');
    const responses = await Promise.all(Array.from({ length: 700 }, () => get('/api/me', bearer(token))));
    const ok = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 429);
    expect(ok).toHaveLength(600);
    expect(refused).toHaveLength(100);
    expect(new Set(ok.map((r) => limits(r).remaining)).size).toBe(600);
    const problem = refused[0]!;
    expect(problem.headers.get('content-type')).toBe('application/problem+json');
    expect(await problem.json()).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(problem.headers.get('retry-after')).toBe('60');
    expect(limits(problem)).toEqual({ limit: 600, remaining: 0, reset: 60 });
    // Another token is a different bucket.
    expect((await get('/api/me', bearer(t.user('maya').token))).status).toBe(200);
  });

  test('headers are consistent with admissions at every step, and the 601st waits for the window to slide', async () => {
    const { token } = t.user('olivia');
    const start = clock;
    for (let i = 1; i <= 600; i++) {
      if (i === 301) clock = start + 30_000; // the second half arrives 30 s later
      const response = await get('/api/me', bearer(token));
      expect(response.status).toBe(200);
      expect(limits(response)).toEqual({ limit: 600, remaining: 600 - i, reset: i <= 300 ? 60 : 30 });
    }
    expect((await get('/api/me', bearer(token))).status).toBe(429);
    clock = start + 59_999;
    const stillRefused = await get('/api/me', bearer(token));
    expect(stillRefused.status).toBe(429);
    expect(stillRefused.headers.get('retry-after')).toBe('1');
    clock = start + 60_000; // the first 300 leave the window
    const again = await get('/api/me', bearer(token));
    expect(again.status).toBe(200);
    expect(limits(again)).toEqual({ limit: 600, remaining: 299, reset: 30 });
  });

  test('a refused request has no effect', async () => {
    const mark = t.user('mark');
    const body = JSON.stringify({ project_id: t.org('acme').projects[0]!.id, title: 'Refused write' });
    const post = () =>
      app.fetch(
        new Request('http://localhost:4000/api/issues', {
          method: 'POST',
          body,
          headers: { ...bearer(mark.token), 'content-type': 'application/json' },
        }),
        { remoteAddress: '10.0.0.1' },
      );
    await Promise.all(Array.from({ length: 600 }, () => get('/api/me', bearer(mark.token))));
    expect((await post()).status).toBe(429);
    expect(await t.app.db.prisma.issue.count({ where: { title: 'Refused write' } })).toBe(0);
  });
});

describe('requests without a valid credential', () => {
  test('are counted per client address, with headers on every status', async () => {
    const first = await get('/api/me', {}, '192.0.2.1');
    expect(first.status).toBe(401);
    expect(limits(first)).toMatchObject({ limit: 600, remaining: 599 });
    expect(limits(await get('/nowhere', {}, '192.0.2.1')).remaining).toBe(598);
    expect(limits(await get('/api/me', {}, '192.0.2.2')).remaining).toBe(599);
  });

  test('IPv6 addresses count by their /64 (a client chooses its host part); IPv4 written as IPv6 by the address', async () => {
    expect(limits(await get('/api/me', {}, '2001:db8:1:2::1')).remaining).toBe(599);
    expect(limits(await get('/api/me', {}, '2001:db8:1:2:ffff:ffff:ffff:fffe')).remaining).toBe(598);
    expect(limits(await get('/api/me', {}, '2001:db8:1:3::1')).remaining).toBe(599); // the next /64
    expect(limits(await get('/api/me', {}, '::ffff:192.0.2.77')).remaining).toBe(599);
    expect(limits(await get('/api/me', {}, '192.0.2.77')).remaining).toBe(598);
  });

  test('a flood of made-up tokens is limited by address', async () => {
    const responses = [];
    for (let i = 0; i < 601; i++) responses.push(await get('/api/me', bearer(generatePat()), '192.0.2.9'));
    expect(responses.slice(0, 600).every((r) => r.status === 401)).toBe(true);
    expect(responses[600]!.status).toBe(429);
  });

  test('a session is one bucket, from whatever address it comes', async () => {
    const cookie = await t.signIn('olivia@example.com');
    const first = limits(await get('/api/me', { cookie }, '198.51.100.21'));
    const second = limits(await get('/api/me', { cookie }, '198.51.100.22'));
    expect([first.remaining, second.remaining]).toEqual([599, 598]);
    expect(limits(await get('/api/me', {}, '198.51.100.22')).remaining).toBe(599); // the address has its own bucket
  });

  test('X-Forwarded-For names the client only behind a trusted proxy', async () => {
    const spoofed = { 'x-forwarded-for': '203.0.113.50' };
    const a = limits(await get('/api/me', spoofed, '198.51.100.1'));
    const b = limits(await get('/api/me', spoofed, '198.51.100.2'));
    expect([a.remaining, b.remaining]).toEqual([599, 599]); // the socket address counts
    const c = limits(await get('/api/me', { 'x-forwarded-for': 'forged, 203.0.113.60' }, '10.9.9.9', proxied));
    const d = limits(await get('/api/me', { 'x-forwarded-for': '203.0.113.60' }, '10.9.9.8', proxied));
    expect([c.remaining, d.remaining]).toEqual([599, 598]); // the proxy's last entry counts
  });
});

describe('IETF fields', () => {
  test('RateLimit-Policy and RateLimit describe the bucket', async () => {
    const response = await get('/api/me', bearer(t.user('victor').token));
    expect(response.headers.get('ratelimit-policy')).toBe('"global";q=600;w=60');
    expect(response.headers.get('ratelimit')).toBe('"global";r=599;t=60');
  });
});
