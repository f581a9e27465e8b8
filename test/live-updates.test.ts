import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { mintApiKey } from '../src/auth/api-keys.js';
import { removeMember, revokeApiKey } from '../src/cli/operations.js';
import { testConfig } from '../src/config.js';
import { ROUTE_POLICIES } from '../src/limits/policy.js';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';
import { listen } from './support/socket.js';
import { subscribe } from './support/sse.js';

// Redis DB 4 is this suite's (the shared server's other indexes belong to other suites).
const REDIS_URL = process.env.TEST_LIVE_REDIS_URL ?? 'redis://127.0.0.1:6379/4';

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let url: string;
beforeAll(async () => {
  // Caps on open streams well above what these tests hold: the bounds have their own tests below.
  t = await startTestApp({ liveStreams: { perCredential: 100, perOrganization: 1000, recheckMs: 5_000 } });
  server = await listen(t.app);
  url = `http://127.0.0.1:${server.port}/api/graphql`;
});
afterAll(async () => {
  await server.close();
  await t.close();
});

const ISSUE_CHANGED = `subscription($p: ID) { issueChanged(projectId: $p) { kind issueId projectId fields issue { title status } } }`;

async function createIssue(app: App, token: string, projectId: string, title: string) {
  const response = await app.fetch(
    new Request(`${app.config.baseUrl}/api/issues`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: projectId, title }),
    }),
  );
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string };
}

describe('issueChanged over SSE on a real socket', () => {
  test('receives a change made through REST, of its organization and project only', async () => {
    const [web, mob] = t.org('acme').projects;
    const viewer = await subscribe(url, { authorization: `Bearer ${t.user('victor').token}` }, ISSUE_CHANGED, {
      p: mob!.id,
    });
    expect(viewer.status).toBe(200);
    const globex = await subscribe(url, { authorization: `Bearer ${t.user('bella', 'globex').token}` }, ISSUE_CHANGED);
    await createIssue(t.app, t.user('mark').token, web!.id, 'Not in MOB');
    const created = await createIssue(t.app, t.user('mark').token, mob!.id, 'Live one');
    expect(await viewer.next()).toEqual({
      data: {
        issueChanged: {
          kind: 'CREATED',
          issueId: created.id,
          projectId: mob!.id,
          fields: expect.arrayContaining(['title', 'status']),
          issue: { title: 'Live one', status: 'BACKLOG' },
        },
      },
    });
    const patched = await t.call('PATCH', `/api/issues/${created.id}`, {
      token: t.user('mark').token,
      body: { status: 'In Progress' },
    });
    expect(patched.status).toBe(200);
    expect(await viewer.next()).toMatchObject({
      data: { issueChanged: { kind: 'UPDATED', fields: ['status'], issue: { status: 'IN_PROGRESS' } } },
    });
    // The other organization heard nothing of acme: its first event is its own change.
    const own = await createIssue(
      t.app,
      t.user('bella', 'globex').token,
      t.org('globex').projects[0]!.id,
      'Globex change',
    );
    expect(await globex.next()).toMatchObject({ data: { issueChanged: { issueId: own.id } } });
    viewer.close();
    globex.close();
  });

  test('a create that gives labels reports them among its fields', async () => {
    const mob = t.org('acme').projects[1]!;
    const live = await subscribe(url, { authorization: `Bearer ${t.user('victor').token}` }, ISSUE_CHANGED, {
      p: mob.id,
    });
    const label = await t.call('POST', '/api/labels', {
      token: t.user('maya').token,
      body: { name: 'live-label', color: '#123456' },
    });
    expect(label.status).toBe(201);
    const response = await t.call('POST', '/api/issues', {
      token: t.user('mark').token,
      body: { project_id: mob.id, title: 'Labelled live', labels: ['LIVE-LABEL'] },
    });
    expect(response.status).toBe(201);
    expect(await live.next()).toMatchObject({
      data: { issueChanged: { kind: 'CREATED', fields: expect.arrayContaining(['title', 'labels']) } },
    });
    live.close();
  });

  test("a revoked key's subscription ends at the next change, with FORBIDDEN", async () => {
    const victor = t.user('victor');
    const key = await mintApiKey(t.app.db.prisma, { userId: victor.id, orgId: t.org('acme').id, name: 'live' });
    const live = await subscribe(url, { authorization: `Bearer ${key.token}` }, ISSUE_CHANGED);
    const projectId = t.org('acme').projects[0]!.id;
    await createIssue(t.app, t.user('mark').token, projectId, 'Before revocation');
    expect(await live.next()).toMatchObject({ data: { issueChanged: { kind: 'CREATED' } } });
    await revokeApiKey(t.app.db.prisma, key.key.id, t.app.credentialEpoch);
    await createIssue(t.app, t.user('mark').token, projectId, 'After revocation');
    const last = await live.next();
    expect(last.data ?? null).toBeNull();
    expect(last.errors![0]!.extensions).toMatchObject({ code: 'FORBIDDEN' });
    await live.completed;
  });

  test('a member removed from the organization stops receiving (a browser session)', async () => {
    const cookie = await t.signIn('maya@example.com');
    const orgId = t.org('acme').id;
    const live = await subscribe(url, { cookie, origin: ORIGIN, 'x-org-id': orgId }, ISSUE_CHANGED);
    expect(live.status).toBe(200);
    const projectId = t.org('acme').projects[0]!.id;
    await createIssue(t.app, t.user('mark').token, projectId, 'Maya sees this');
    expect(await live.next()).toMatchObject({ data: { issueChanged: { issue: { title: 'Maya sees this' } } } });
    await removeMember(t.app.db.prisma, { orgId, userId: t.user('maya').id }, t.app.credentialEpoch);
    await createIssue(t.app, t.user('mark').token, projectId, 'Maya must not see this');
    const last = await live.next();
    expect(JSON.stringify(last)).not.toContain('Maya must not see this');
    expect(last.errors![0]!.extensions).toMatchObject({ code: 'FORBIDDEN' });
    await live.completed;
  });

  test('subscription starts are rate limited per credential', async () => {
    const { token } = t.user('olivia');
    const streams = [];
    for (let i = 0; i < ROUTE_POLICIES.subscriptionStart.limit; i++)
      streams.push(
        await subscribe(url, { authorization: `Bearer ${token}` }, 'subscription { projectChanged { kind } }'),
      );
    const refused = await subscribe(
      url,
      { authorization: `Bearer ${token}` },
      'subscription { projectChanged { kind } }',
    );
    const answer = await refused.next();
    expect(answer.errors![0]!.extensions).toMatchObject({ code: 'RATE_LIMITED' });
    for (const stream of [...streams, refused]) stream.close();
  });
});

describe('open streams are bounded', () => {
  // Small caps, and a re-check interval short enough that a test waits for it in a blink.
  const LIMITS = { perCredential: 3, perOrganization: 5, recheckMs: 100 };
  const PROJECT_CHANGED = 'subscription { projectChanged { kind } }';
  let b: TestApp;
  let bServer: Awaited<ReturnType<typeof listen>>;
  let bUrl: string;
  beforeAll(async () => {
    b = await startTestApp({ liveStreams: LIMITS });
    bServer = await listen(b.app);
    bUrl = `http://127.0.0.1:${bServer.port}/api/graphql`;
  });
  afterAll(async () => {
    await bServer.close();
    await b.close();
  });
  const open = (token: string) => subscribe(bUrl, { authorization: `Bearer ${token}` }, PROJECT_CHANGED);
  /** DELETE /api/api-keys/{id}, as its owner in the browser. */
  async function revokeKey(id: string, email: string, orgId: string) {
    const headers = { cookie: await b.signIn(email), origin: ORIGIN, 'x-org-id': orgId };
    return b.app.fetch(new Request(`${b.app.config.baseUrl}/api/api-keys/${id}`, { method: 'DELETE', headers }));
  }

  test('a credential holds at most its cap of streams; 429 beyond it; closing one frees its slot', async () => {
    const { token } = b.user('adam');
    const streams = [await open(token), await open(token), await open(token)];
    expect(streams.map((stream) => stream.status)).toEqual([200, 200, 200]);
    const refused = await open(token);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    const scope = { scope: 'credential', limit: LIMITS.perCredential };
    expect(await refused.next()).toMatchObject({ errors: [{ extensions: { code: 'TOO_MANY_STREAMS', ...scope } }] });
    await refused.completed;
    streams.pop()!.close();
    // The slot is freed when the server sees the client go: ask until it has.
    const admitted = await vi.waitFor(
      async () => {
        const stream = await open(token);
        if (stream.status === 200) return stream;
        stream.close();
        throw new Error(`still refused with ${stream.status}`);
      },
      { timeout: 10_000, interval: 50 },
    );
    for (const stream of [...streams, admitted]) stream.close();
  });

  test("an organization's members share its cap; a stream the server ends frees its place", async () => {
    const globex = b.org('globex');
    const bella = b.user('bella', 'globex');
    const mark = b.user('mark', 'globex');
    const ofBella = [await open(bella.token), await open(bella.token), await open(bella.token)];
    const ofMark = [await open(mark.token), await open(mark.token)];
    expect([...ofBella, ...ofMark].map((stream) => stream.status)).toEqual([200, 200, 200, 200, 200]);
    const refused = await open(mark.token);
    expect(refused.status).toBe(429);
    const scope = { scope: 'organization', limit: LIMITS.perOrganization };
    expect(await refused.next()).toMatchObject({ errors: [{ extensions: { code: 'TOO_MANY_STREAMS', ...scope } }] });
    const acme = await open(b.user('olivia').token);
    expect(acme.status).toBe(200);
    // Mark's key revoked: the server ends his streams, and their places go to a new key of Bella's.
    const markKey = await b.app.db.prisma.apiKey.findFirstOrThrow({ where: { userId: mark.id, orgId: globex.id } });
    expect((await revokeKey(markKey.id, mark.email, globex.id)).status).toBe(204);
    await Promise.all(ofMark.map((stream) => stream.completed));
    const bellaKey = await mintApiKey(b.app.db.prisma, { userId: bella.id, orgId: globex.id, name: 'second' });
    const admitted = await open(bellaKey.token);
    expect(admitted.status).toBe(200);
    for (const stream of [...ofBella, acme, admitted]) stream.close();
  });

  test('a key revoked through the API ends its stream although no change comes', async () => {
    const victor = b.user('victor');
    const orgId = b.org('acme').id;
    const key = await mintApiKey(b.app.db.prisma, { userId: victor.id, orgId, name: 'quiet' });
    const live = await open(key.token);
    expect(live.status).toBe(200);
    expect((await revokeKey(key.key.id, victor.email, orgId)).status).toBe(204);
    const last = await live.next();
    expect(last.data ?? null).toBeNull();
    expect(last.errors![0]!.extensions).toMatchObject({ code: 'FORBIDDEN' });
    await live.completed;
  });

  test('a key that expires ends its stream although no change comes', async () => {
    const victor = b.user('victor');
    const expiresAt = new Date(Date.now() + 1_500);
    const orgId = b.org('acme').id;
    const key = await mintApiKey(b.app.db.prisma, { userId: victor.id, orgId, name: 'soon', expiresAt });
    const live = await open(key.token);
    expect(live.status).toBe(200);
    expect((await live.next()).errors![0]!.extensions).toMatchObject({ code: 'FORBIDDEN' });
    await live.completed;
  });
});

describe('two instances', () => {
  async function pair(redisUrl: string | undefined) {
    const a = await createApp(testConfig({ redisUrl }), { db: t.app.db });
    const b = await createApp(testConfig({ redisUrl }), { db: t.app.db });
    const bServer = await listen(b);
    return {
      a,
      bUrl: `http://127.0.0.1:${bServer.port}/api/graphql`,
      async close() {
        await bServer.close();
        await a.close();
        await b.close();
      },
    };
  }

  test('with Redis, a change made on one reaches a subscriber on the other', async () => {
    const { a, bUrl, close } = await pair(REDIS_URL);
    try {
      const live = await subscribe(bUrl, { authorization: `Bearer ${t.user('olivia').token}` }, ISSUE_CHANGED);
      expect(live.status).toBe(200);
      // The subscription is registered with Redis once its stream is open; a change after it is heard.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const created = await createIssue(a, t.user('mark').token, t.org('acme').projects[0]!.id, 'Made on instance A');
      expect(await live.next()).toMatchObject({
        data: { issueChanged: { issueId: created.id, issue: { title: 'Made on instance A' } } },
      });
      live.close();
    } finally {
      await close();
    }
  });

  test('without Redis, each instance hears only its own changes', async () => {
    const { a, bUrl, close } = await pair(undefined);
    try {
      const live = await subscribe(bUrl, { authorization: `Bearer ${t.user('olivia').token}` }, ISSUE_CHANGED);
      await createIssue(a, t.user('mark').token, t.org('acme').projects[0]!.id, 'Unheard on B');
      const heard = await Promise.race([
        live.next(),
        new Promise((resolve) => setTimeout(() => resolve('nothing'), 500)),
      ]);
      expect(heard).toBe('nothing');
      live.close();
    } finally {
      await close();
    }
  });
});
