import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServerAdapter } from '@whatwg-node/server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { mintApiKey } from '../src/auth/api-keys.js';
import { ApiClient, ApiError, GaveUpError } from '../src/client/api-client.js';
import { exportIssues } from '../src/client/bulk-export.js';
import { testConfig } from '../src/config.js';
import { MemoryStore } from '../src/limits/memory-store.js';
import { startTestApp, type TestApp } from './support/app.js';

// The real server on a socket, its limiter on a clock the client's sleeps advance.
let t: TestApp;
let app: App;
let server: Server;
let base: string;
let clock = 5_000_000;
const sleep = async (ms: number) => {
  clock += ms;
};
const statuses: number[] = [];
const countingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  statuses.push(response.status);
  return response;
};

beforeAll(async () => {
  t = await startTestApp();
  server = createServer(
    createServerAdapter<{ req: IncomingMessage }>((request, { req }) =>
      app.fetch(request, { remoteAddress: req.socket.remoteAddress }),
    ),
  );
  // Long keep-alive: a loaded test machine must not race an idle-socket close against fetch's reuse of it.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  app = await createApp(testConfig({ baseUrl: base }), {
    db: t.app.db,
    limiterStore: new MemoryStore({ now: () => clock }),
  });
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await app.close();
  await t.close();
});

async function freshToken(username = 'mark') {
  const user = t.user(username);
  return (await mintApiKey(t.app.db.prisma, { userId: user.id, orgId: user.org_id, name: 'client test' })).token;
}

describe('the client helper against the real server', () => {
  test('slows down below 10% remaining, so 700 requests in a row never see a 429', async () => {
    statuses.length = 0;
    const client = new ApiClient({ baseUrl: base, token: await freshToken(), sleep, fetch: countingFetch });
    for (let i = 0; i < 700; i++) expect((await client.request('GET', '/api/me')).status).toBe(200);
    expect(statuses.filter((s) => s === 429)).toHaveLength(0);
    expect(client.waitedMs).toBeGreaterThan(0);
    expect(client.waitedMs).toBeLessThan(120_000);
  });

  test('on a 429 it waits X-RateLimit-Reset seconds and retries once', async () => {
    const token = await freshToken();
    const start = clock;
    for (let i = 0; i < 600; i++)
      await app.fetch(new Request(`${base}/api/me`, { headers: { authorization: `Bearer ${token}` } }));
    statuses.length = 0;
    const client = new ApiClient({ baseUrl: base, token, sleep, fetch: countingFetch });
    const response = await client.request('GET', '/api/me');
    expect(response.status).toBe(200);
    expect(statuses).toEqual([429, 200]);
    expect(client.waitedMs).toBe(60_000);
    expect(clock - start).toBe(60_000);
  });

  test('a 401 is not retried', async () => {
    statuses.length = 0;
    const client = new ApiClient({
      baseUrl: base,
      token: 'tok_live_00000000000000000000000000000000',
      sleep,
      fetch: countingFetch,
    });
    await expect(client.json('GET', '/api/me')).rejects.toBeInstanceOf(ApiError);
    expect(statuses).toEqual([401]);
  });

  test('a bulk export with one token per worker visits every issue once', async () => {
    const project = await t.app.db.prisma.project.create({
      data: { orgId: t.org('acme').id, name: 'Bulk', key: 'BULK' },
    });
    await t.app.db.prisma.issue.createMany({
      data: Array.from({ length: 250 }, (_, i) => ({
        orgId: project.orgId,
        projectId: project.id,
        number: i + 1,
        title: `bulk ${i}`,
        status: 'Todo',
        priority: 'low',
      })),
    });
    const tokens = await Promise.all(['olivia', 'adam', 'maya', 'mark'].map((u) => freshToken(u)));
    const seen: string[] = [];
    const projectIds = [project.id, ...t.org('acme').projects.map((p) => p.id)];
    const result = await exportIssues({ baseUrl: base, tokens, projectIds, sleep }, (issue) =>
      seen.push(issue.id as string),
    );
    const expected = await t.app.db.prisma.issue.count({ where: { projectId: { in: projectIds } } });
    expect(result.issues).toBe(expected);
    expect(new Set(seen).size).toBe(expected);
  });
});

describe('backoff when the server keeps refusing', () => {
  test('exponential after two consecutive 429s, capped at 30 s, giving up after 6 tries', async () => {
    const waits: number[] = [];
    let calls = 0;
    const refusing: typeof fetch = async () => {
      calls++;
      return new Response(null, {
        status: 429,
        headers: {
          'x-ratelimit-limit': '600',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': '3',
          'retry-after': '3',
        },
      });
    };
    const client = new ApiClient({
      baseUrl: 'http://unused',
      token: 'x',
      fetch: refusing,
      sleep: async (ms) => void waits.push(ms),
    });
    await expect(client.request('GET', '/api/me')).rejects.toBeInstanceOf(GaveUpError);
    expect(calls).toBe(6);
    // First 429: the reset (3 s). Then doubling from 1 s, never below the reset, capped at 30 s.
    expect(waits).toEqual([3000, 3000, 3000, 4000, 8000]);

    const longReset: typeof fetch = async () =>
      new Response(null, { status: 429, headers: { 'x-ratelimit-reset': '100' } });
    const capped: number[] = [];
    await expect(
      new ApiClient({
        baseUrl: 'http://unused',
        token: 'x',
        fetch: longReset,
        sleep: async (ms) => void capped.push(ms),
      }).request('GET', '/'),
    ).rejects.toBeInstanceOf(GaveUpError);
    expect(capped).toEqual([100_000, 30_000, 30_000, 30_000, 30_000]);
  });

  test('a POST whose answer is lost is retried with the same Idempotency-Key and writes once', async () => {
    const token = await freshToken();
    const keys: (string | null)[] = [];
    let lost = false;
    // The real server handles the first try; its answer never reaches the client (the connection broke).
    const losing: typeof fetch = async (input, init) => {
      keys.push(new Headers(init?.headers).get('idempotency-key'));
      const response = await fetch(input, init);
      if (!lost) {
        lost = true;
        await response.body?.cancel();
        throw new TypeError('fetch failed');
      }
      return response;
    };
    const title = `lost answer ${Date.now()}`;
    const client = new ApiClient({ baseUrl: base, token, sleep, fetch: losing });
    const { body, response } = await client.json<{ id: string }>('POST', '/api/issues', {
      project_id: t.org('acme').projects[0]!.id,
      title,
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^"[0-9a-f-]{36}"$/);
    expect(keys[1]).toBe(keys[0]);
    expect(await t.app.db.prisma.issue.findMany({ where: { title }, select: { id: true } })).toEqual([{ id: body.id }]);
    // Each call is its own request: a second call gets a new key (and so a second issue).
    await client.json('POST', '/api/issues', { project_id: t.org('acme').projects[0]!.id, title });
    expect(keys[2]).not.toBe(keys[0]);
    expect(await t.app.db.prisma.issue.count({ where: { title } })).toBe(2);
  });
});
