import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { MemoryStore } from '../../src/limits/memory-store.js';
import { RedisStore } from '../../src/limits/redis-store.js';
import { createLogger } from '../../src/logger.js';
import { startTestApp, type TestApp } from '../support/app.js';

const METRICS_TOKEN = 'observability-test-token-0123456789abcdef';

/** A logger at info level whose JSON lines the test can read. */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString().split('\n')) if (text.trim()) lines.push(JSON.parse(text));
      done();
    },
  });
  return { logger: createLogger('info', stream), lines };
}

let t: TestApp;
let app: App;
let logs: Record<string, unknown>[];
const apps: App[] = [];

async function newApp(overrides: Parameters<typeof testConfig>[0] = {}, options: Parameters<typeof createApp>[1] = {}) {
  const made = await createApp(testConfig(overrides), { db: t.app.db, limiterStore: new MemoryStore(), ...options });
  apps.push(made);
  return made;
}

const call = (target: App, path: string, init: RequestInit & { remoteAddress?: string } = {}) =>
  target.fetch(new Request(`http://localhost:4000${path}`, init), { remoteAddress: init.remoteAddress ?? '10.1.2.3' });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  t = await startTestApp();
  const captured = capturingLogger();
  logs = captured.lines;
  app = await newApp({ metricsToken: METRICS_TOKEN }, { logger: captured.logger });
});
afterAll(async () => {
  for (const made of apps) await made.close();
  await t.close();
});

describe('health and readiness', () => {
  test('/healthz and /readyz answer without a credential, and draw nothing from the rate limit', async () => {
    const before = await call(app, '/api/me', { remoteAddress: '10.9.9.9' });
    for (let i = 0; i < 5; i++) {
      const live = await call(app, '/healthz', { remoteAddress: '10.9.9.9' });
      expect(live.status).toBe(200);
      expect(await live.json()).toEqual({ status: 'ok' });
      expect(live.headers.get('x-ratelimit-remaining')).toBeNull();
      const ready = await call(app, '/readyz', {
        remoteAddress: '10.9.9.9',
        headers: bearer('tok_live_not-even-well-formed'),
      });
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok' } });
    }
    const after = await call(app, '/api/me', { remoteAddress: '10.9.9.9' });
    expect(Number(after.headers.get('x-ratelimit-remaining'))).toBe(
      Number(before.headers.get('x-ratelimit-remaining')) - 1,
    );
  });

  test('a migration missing from the database: 503 naming it', async () => {
    const [row] = await t.app.db.prisma.$queryRawUnsafe<{ id: string }[]>(
      `SELECT id FROM _prisma_migrations ORDER BY migration_name DESC LIMIT 1`,
    );
    await t.app.db.prisma.$executeRawUnsafe(
      `UPDATE _prisma_migrations SET rolled_back_at = now() WHERE id = '${row!.id}'`,
    );
    try {
      const response = await call(await newApp(), '/readyz');
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({
        status: 'not_ready',
        failing: ['migrations'],
        checks: { database: 'ok', migrations: 'failed' },
      });
    } finally {
      await t.app.db.prisma.$executeRawUnsafe(
        `UPDATE _prisma_migrations SET rolled_back_at = NULL WHERE id = '${row!.id}'`,
      );
    }
  });

  test('Redis configured and not answering: 503 naming redis (the database is still checked)', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    const response = await call(
      await newApp({}, { limiterStore: new RedisStore(`redis://127.0.0.1:${port}`) }),
      '/readyz',
    );
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      status: 'not_ready',
      failing: ['redis'],
      checks: { database: 'ok', migrations: 'ok', redis: 'failed' },
    });
  });

  test('Redis answering: ready, with the redis check', async () => {
    const store = new RedisStore(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', {
      prefix: `ops-test:${Math.random()}:`,
    });
    expect(await store.ready()).toBe(true);
    const response = await call(await newApp({}, { limiterStore: store }), '/readyz');
    expect(await response.json()).toEqual({
      status: 'ready',
      checks: { database: 'ok', migrations: 'ok', redis: 'ok' },
    });
  });

  test('the database gone: 503 naming it; once shutdown starts: 503 shutting_down, while liveness stays 200', async () => {
    const own = await createApp(testConfig());
    try {
      expect((await call(own, '/readyz')).status).toBe(200);
      own.ops.health.startShutdown();
      const shutting = await call(own, '/readyz');
      expect(shutting.status).toBe(503);
      expect(await shutting.json()).toEqual({ status: 'shutting_down' });
      expect((await call(own, '/healthz')).status).toBe(200);
    } finally {
      await own.close();
    }
    const gone = await createApp(testConfig());
    await gone.db.close();
    const response = await call(gone, '/readyz');
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      status: 'not_ready',
      failing: ['database'],
      checks: { database: 'failed', migrations: 'skipped' },
    });
  });
});

describe('request ids', () => {
  test("a client's plain X-Request-Id is kept: response header, problem body, the request's log lines", async () => {
    const response = await call(app, '/api/projects', { headers: { 'x-request-id': 'req-42.abc:ZZ' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('x-request-id')).toBe('req-42.abc:ZZ');
    expect(await response.json()).toMatchObject({ code: 'unauthenticated', request_id: 'req-42.abc:ZZ' });
    expect(logs.filter((line) => line.request_id === 'req-42.abc:ZZ')).toEqual([
      expect.objectContaining({ msg: 'request', status: 401 }),
    ]);
  });

  test('a missing, overlong or unsafe X-Request-Id is replaced by a new UUID', async () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    for (const sent of [undefined, 'x'.repeat(129), 'a b', '<script>', 'x"y', 'caf\u00e9', '']) {
      const response = await call(app, '/nowhere', { headers: sent === undefined ? {} : { 'x-request-id': sent } });
      expect(response.status).toBe(404);
      expect(response.headers.get('x-request-id')).toMatch(uuid);
    }
    expect(
      (await call(app, '/nowhere', { headers: { 'x-request-id': 'y'.repeat(128) } })).headers.get('x-request-id'),
    ).toBe('y'.repeat(128));
  });

  test('every surface answers with one: REST, GraphQL, pages, OAuth, 429, health', async () => {
    const { token } = t.user('adam');
    const responses = [
      await call(app, '/api/me', { headers: bearer(token) }),
      await call(app, '/api/graphql', {
        method: 'POST',
        headers: { ...bearer(token), 'content-type': 'application/json' },
        body: '{"query":"{ me { id } }"}',
      }),
      await call(app, '/login'),
      await call(app, '/.well-known/oauth-authorization-server'),
      await call(app, '/oauth/token', { method: 'POST' }),
      await call(app, '/healthz'),
    ];
    for (const response of responses) expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(new Set(responses.map((r) => r.headers.get('x-request-id'))).size).toBe(responses.length);
  });

  test("a line logged by another module while serving carries that request's id", async () => {
    const captured = capturingLogger();
    const own = await newApp({}, { logger: captured.logger });
    await own.db.prisma.$executeRawUnsafe('SELECT 1'); // the shared database is up: "ready" is logged by the readiness check
    await call(own, '/readyz', { headers: { 'x-request-id': 'probe-7' } });
    expect(captured.lines.filter((line) => line.request_id === 'probe-7').map((line) => line.msg)).toEqual([
      'ready',
      'request',
    ]);
  });
});

describe('access log', () => {
  test('one line per request: method, route template, status, duration, principal, org, address; never the token or the path', async () => {
    const { token, org_id: orgId, id: userId } = t.user('adam');
    const issues = await (await call(app, '/api/issues?limit=1', { headers: bearer(token) })).json();
    const key = issues[0].key as string;
    const before = logs.length;
    const response = await call(app, `/api/issues/${key}?secret=s3cr3t`, {
      headers: { ...bearer(token), 'x-request-id': 'access-1', cookie: 'wm_session=abc' },
      remoteAddress: '10.7.7.7',
    });
    expect(response.status).toBe(200);
    const lines = logs.slice(before);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toEqual({
      level: 30,
      time: expect.any(Number),
      pid: process.pid,
      hostname: expect.any(String),
      request_id: 'access-1',
      msg: 'request',
      method: 'GET',
      route: '/api/issues/:id',
      status: 200,
      duration_ms: expect.any(Number),
      principal: 'pat',
      user_id: userId,
      org_id: orgId,
      client_ip: '10.7.7.7',
    });
    const text = JSON.stringify(lines[0]);
    for (const secret of [token, key, 's3cr3t', 'wm_session']) expect(text).not.toContain(secret);
  });
});

describe('metrics', () => {
  const scrape = async (target: App) => {
    const response = await call(target, '/metrics', { headers: bearer(METRICS_TOKEN) });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return response.text();
  };
  const sample = (text: string, name: string, labels: string) =>
    Number(
      new RegExp(`^${name}\\{${labels.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN,
    );

  test('not served without METRICS_TOKEN; with it, only for the right bearer token', async () => {
    const plain = await newApp();
    expect((await call(plain, '/metrics')).status).toBe(404);
    expect((await call(plain, '/metrics', { headers: bearer(METRICS_TOKEN) })).status).toBe(404);
    for (const headers of [
      {},
      bearer('wrong-token-0123456789abcdef0123456789ab'),
      bearer(`${METRICS_TOKEN}x`),
      { authorization: `Basic ${METRICS_TOKEN}` },
    ]) {
      const refused = await call(app, '/metrics', { headers });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    }
  });

  test('request durations by route template, method and status; auth failures by reason; refusals by policy; queries; in flight; process', async () => {
    const { token } = t.user('maya');
    const key = (await (await call(app, '/api/issues?limit=1', { headers: bearer(token) })).json())[0].key as string;
    await call(app, `/api/issues/${key}`, { headers: bearer(token) });
    await call(app, `/api/issues/${key.toLowerCase()}`, { headers: bearer(token) });
    await call(app, '/api/me', { headers: bearer('tok_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA') });
    await call(app, '/api/me');
    await call(app, '/api/me', { method: 'BREW' });
    for (let i = 0; i < 31; i++) await call(app, '/api/people/search?q=a', { headers: bearer(token) });
    const text = await scrape(app);
    expect(
      sample(text, 'http_request_duration_seconds_count', 'method="GET",route="/api/issues/:id",status="200"'),
    ).toBeGreaterThanOrEqual(2);
    expect(text).not.toContain(key);
    expect(sample(text, 'http_request_duration_seconds_count', 'method="OTHER",route="/api*",status="401"')).toBe(1);
    expect(
      sample(text, 'http_request_duration_seconds_count', 'method="GET",route="/api/people/search",status="429"'),
    ).toBe(1);
    // A made-up token fails its checksum: refused as malformed, without a database lookup.
    expect(sample(text, 'auth_failures_total', 'reason="token_malformed"')).toBe(1);
    expect(sample(text, 'auth_failures_total', 'reason="unauthenticated"')).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'rate_limit_refusals_total', 'policy="search"')).toBe(1);
    expect(Number(/^db_query_duration_seconds_count (\d+)$/m.exec(text)?.[1])).toBeGreaterThan(0);
    expect(text).toMatch(/^http_requests_in_flight 1$/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });

  test('each app has its own registry', async () => {
    const other = await newApp({ metricsToken: METRICS_TOKEN });
    await call(other, '/healthz');
    const text = await scrape(other);
    expect(sample(text, 'http_request_duration_seconds_count', 'method="GET",route="/healthz",status="200"')).toBe(1);
    expect(text).not.toContain('route="/api/issues/:id"');
  });
});
