import { createServer, Socket as NetSocket, type Server, type Socket } from 'node:net';
import { ApiProblem, refusalWaitMs, type WaitEvent, WorkmgmtClient } from '@workmgmt/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ClientService, startClientService } from './support/client-service.js';

// The client package's rate-limit and retry behaviour (the spec's "recommended client behaviour")
// against the real service on a socket, its limiter on a clock that the client's waits advance.
let s: ClientService;
beforeAll(async () => {
  s = await startClientService();
});
afterAll(() => s.close());

/** Every answer the client got, by status, through a fetch that counts. */
function counting() {
  const statuses: number[] = [];
  const fetchCounting: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    statuses.push(response.status);
    return response;
  };
  return { statuses, fetch: fetchCounting };
}

const search = (token: string) =>
  s.app.fetch(new Request(`${s.base}/api/people/search?q=a`, { headers: { authorization: `Bearer ${token}` } }));

describe('the retry schedule', () => {
  test('a 429 storm: the server wait, then doubling from it, capped at 30 s; the 6th refusal is thrown', async () => {
    const token = await s.token();
    // Another machine with the same key (one bucket: the route's 30 per 60 s) took a slot every 2 s
    // over the last minute, and takes every slot that opens while this client waits.
    for (let i = 0; i < 30; i++) {
      expect((await search(token)).status).toBe(200);
      await s.sleep(2000);
    }
    await s.sleep(-2000);
    const competitor = async () => {
      while ((await search(token)).status === 200);
    };
    const waits: WaitEvent[] = [];
    const { statuses, fetch } = counting();
    const client = new WorkmgmtClient({
      baseUrl: s.base,
      token,
      fetch,
      onWait: (event) => waits.push(event),
      sleep: async (ms) => {
        await s.sleep(ms);
        await competitor();
      },
    });
    const started = s.now();
    const refused = await client.searchPeople({ query: { q: 'a' } }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiProblem);
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(statuses).toEqual([429, 429, 429, 429, 429, 429]);
    // Each refusal said 2 s (the oldest slot's age); the waits are that, then 4, 8, 16 and the 30 s cap.
    expect(waits.map((w) => [w.reason, w.ms, w.attempt])).toEqual([
      ['rate_limited', 2000, 2],
      ['backoff', 4000, 3],
      ['backoff', 8000, 4],
      ['backoff', 16000, 5],
      ['backoff', 30000, 6],
    ]);
    expect(client.waitedMs).toBe(60_000);
    expect(s.now() - started).toBe(60_000);
  });

  test('on a 429 it waits X-RateLimit-Reset seconds and retries once: the retry gets through', async () => {
    const token = await s.token();
    for (let i = 0; i < 30; i++) expect((await search(token)).status).toBe(200);
    const waits: WaitEvent[] = [];
    const { statuses, fetch } = counting();
    const client = new WorkmgmtClient({ baseUrl: s.base, token, fetch, sleep: s.sleep, onWait: (e) => waits.push(e) });
    const { data } = await client.searchPeople({ query: { q: 'a' } });
    expect(Array.isArray(data)).toBe(true);
    expect(statuses).toEqual([429, 200]);
    expect(waits).toEqual([
      {
        reason: 'rate_limited',
        ms: 60_000,
        attempt: 2,
        method: 'GET',
        url: `${s.base}/api/people/search?q=a`,
        status: 429,
      },
    ]);
  });

  test('the table: first the server wait, then doubling, never under the server wait nor over 30 s unless it asks', () => {
    expect([1, 2, 3, 4, 5].map((n) => refusalWaitMs(n, 3000))).toEqual([3000, 6000, 12000, 24000, 30000]);
    expect([1, 2, 3].map((n) => refusalWaitMs(n, 60_000))).toEqual([60_000, 60_000, 60_000]);
  });

  test('below 10% remaining it slows down, so 700 requests in a row never see a 429', async () => {
    const { statuses, fetch } = counting();
    const waits: WaitEvent[] = [];
    const client = new WorkmgmtClient({
      baseUrl: s.base,
      token: await s.token(),
      fetch,
      sleep: s.sleep,
      onWait: (e) => waits.push(e),
    });
    for (let i = 0; i < 700; i++) await client.getMe();
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(waits.length).toBeGreaterThan(0);
    expect(new Set(waits.map((w) => w.reason))).toEqual(new Set(['slow_down']));
    // The first 540 requests (90% of 600) are sent without a wait.
    expect(waits[0]!.attempt).toBe(1);
    expect(statuses.length).toBe(700);
  });
});

describe('answers that stop the client', () => {
  test('a revoked key stops at the first 401: one request, a typed problem', async () => {
    const token = await s.token();
    const client = new WorkmgmtClient({ baseUrl: s.base, token, sleep: s.sleep });
    await client.getMe();
    await s.revoke(token);
    const { statuses, fetch } = counting();
    const revoked = new WorkmgmtClient({ baseUrl: s.base, token, fetch, sleep: s.sleep });
    const error = await revoked.listIssues().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiProblem);
    expect(error).toMatchObject({ status: 401, code: 'token_revoked', errors: [] });
    expect((error as ApiProblem).request_id).toMatch(/\S/);
    expect(statuses).toEqual([401]);
    expect(revoked.waitedMs).toBe(0);
  });

  test('a validation failure: every bad field in errors, not retried', async () => {
    const { statuses, fetch } = counting();
    const client = new WorkmgmtClient({ baseUrl: s.base, token: await s.token(), fetch, sleep: s.sleep });
    const error = (await client
      .createIssue({ body: { project_id: s.t.org('acme').projects[0]!.id, title: '', priority: 'soon' as 'high' } })
      .catch((e: unknown) => e)) as ApiProblem;
    expect(error).toBeInstanceOf(ApiProblem);
    expect(error.code).toBe('validation_failed');
    expect(error.errors.map((e) => e.field).sort()).toEqual(['priority', 'title']);
    expect(statuses).toEqual([400]);
  });
});

/**
 * A TCP proxy in front of the service that drops the first connection after the service has
 * answered, before the answer reaches the client: the request ran, the client never hears.
 */
async function droppingProxy(target: URL): Promise<{ url: string; dropped: number; close(): Promise<void> }> {
  const state = { dropped: 0 };
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    const drop = state.dropped === 0;
    if (drop) state.dropped++;
    const upstream = new NetSocket();
    sockets.add(upstream);
    upstream.connect(Number(target.port), target.hostname);
    client.pipe(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    if (drop) upstream.once('data', end);
    else upstream.pipe(client);
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    get dropped() {
      return state.dropped;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('a POST whose answer is lost', () => {
  test('is sent again with the same Idempotency-Key and lands once', async () => {
    const proxy = await droppingProxy(new URL(s.base));
    try {
      const keys: (string | null)[] = [];
      const waits: WaitEvent[] = [];
      const recording: typeof fetch = async (input, init) => {
        keys.push((input instanceof Request ? input.headers : new Headers(init?.headers)).get('idempotency-key'));
        return fetch(input, init);
      };
      const client = new WorkmgmtClient({
        baseUrl: proxy.url,
        token: await s.token(),
        fetch: recording,
        sleep: s.sleep,
        onWait: (e) => waits.push(e),
      });
      const title = `lost answer ${s.now()}`;
      const project_id = s.t.org('acme').projects[0]!.id;
      const { data, response } = await client.createIssue({ body: { project_id, title } });
      expect(proxy.dropped).toBe(1);
      expect(response.status).toBe(201);
      expect(response.headers.get('idempotent-replayed')).toBe('true');
      expect(keys).toHaveLength(2);
      expect(keys[0]).toMatch(/^"[0-9a-f-]{36}"$/);
      expect(keys[1]).toBe(keys[0]);
      expect(waits.map((w) => [w.reason, w.ms])).toEqual([['connection_lost', 1000]]);
      const landed = await s.t.app.db.prisma.issue.findMany({ where: { title }, select: { id: true } });
      expect(landed).toEqual([{ id: data.id }]);
      // A second call is another request: a key of its own, a second issue.
      await client.createIssue({ body: { project_id, title } });
      expect(keys[2]).not.toBe(keys[0]);
      expect(await s.t.app.db.prisma.issue.count({ where: { title } })).toBe(2);
      // A key the caller gives is the one sent.
      await client.createIssue({
        body: { project_id, title: `${title} keyed` },
        headers: { 'Idempotency-Key': '"mine-1"' },
      });
      expect(keys[3]).toBe('"mine-1"');
    } finally {
      await proxy.close();
    }
  });
});
