import {
  ApiProblem,
  authorizeWithLoopback,
  exportIssues,
  type OAuthTokens,
  OAuthSession,
  verifyWebhook,
  WebhookVerificationError,
  WorkmgmtClient,
} from '@workmgmt/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ClientService, DELIVERING_WEBHOOKS, startClientService } from './support/client-service.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

// The client package against the real service on a socket: every operation of the contract,
// paging, the bulk export, webhook verification and an OAuth sign-in from a command line (loopback
// redirect, PKCE, dynamic registration) with its refreshes, as a user of the package writes them.
let s: ClientService;
let receiver: WebhookReceiver;
let hookUrl: string;
beforeAll(async () => {
  s = await startClientService(DELIVERING_WEBHOOKS);
  receiver = new WebhookReceiver();
  hookUrl = await receiver.start();
});
afterAll(async () => {
  await s.close();
  await receiver.close();
});

/** The operations (methods of the generated class) a client was asked for. */
function recording(client: WorkmgmtClient): { client: WorkmgmtClient; called: Set<string> } {
  const called = new Set<string>();
  const operations = new Set(Object.getOwnPropertyNames(Object.getPrototypeOf(WorkmgmtClient.prototype)));
  const proxy = new Proxy(client, {
    get(target, name, receiver) {
      if (typeof name === 'string' && operations.has(name)) called.add(name);
      return Reflect.get(target, name, receiver);
    },
  });
  return { client: proxy, called };
}

const problemOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => (error instanceof ApiProblem ? { status: error.status, code: error.code } : error),
  );

describe('every operation of openapi.json through the client', () => {
  test('each is called once and answers its documented success (or, for an API key, its documented 403)', async () => {
    const { client: wm, called } = recording(
      new WorkmgmtClient({ baseUrl: s.base, token: await s.token('adam'), sleep: s.sleep }),
    );
    const me = (await wm.getMe()).data;
    expect(me.username).toBe('adam');
    expect((await wm.listMyOrgs()).data.orgs.map((o) => o.org_slug)).toEqual(['acme']);
    expect((await wm.listOrgs()).data.orgs).toHaveLength(1);
    expect((await wm.listProjects()).data.length).toBeGreaterThan(0);

    const { data: project, response } = await wm.createProject({ body: { name: 'Client', key: 'CLI' } });
    expect(response.status).toBe(201);
    expect((await wm.getProject({ path: { id: 'CLI' } })).data.id).toBe(project.id);
    expect((await wm.updateProject({ path: { id: project.id }, body: { name: 'Client library' } })).data.name).toBe(
      'Client library',
    );
    const { data: issue } = await wm.createIssue({ body: { project_id: 'CLI', title: 'Typed', priority: 'high' } });
    expect(issue.key).toBe('CLI-1');
    expect((await wm.getIssue({ path: { id: 'CLI-1' } })).data.title).toBe('Typed');
    expect((await wm.updateIssue({ path: { id: issue.id }, body: { status: 'Done' } })).data.status).toBe('Done');
    expect((await wm.listIssues({ query: { project_id: 'CLI', status: ['Done'] } })).data.map((i) => i.id)).toEqual([
      issue.id,
    ]);
    expect((await wm.listIssueHistory({ path: { id: issue.id } })).data.map((e) => e.type)).toEqual([
      'issue.updated',
      'issue.created',
    ]);
    expect((await wm.searchPeople({ query: { q: 'ada' } })).data.map((p) => p.username)).toContain('adam');
    expect((await wm.paletteSearch({ query: { q: 'Typed' } })).data.length).toBeGreaterThan(0);
    expect((await wm.createInvitation({ body: { role: 'member' } })).data.invite_code).toMatch(/\S/);
    expect((await wm.listApiKeys()).data.length).toBeGreaterThan(0);

    const { data: hook } = await wm.createWebhook({ body: { url: hookUrl, events: ['issue.created'] } });
    expect(hook.secret).toMatch(/^whsec_/);
    expect((await wm.getWebhook({ path: { id: hook.id } })).data.url).toBe(hookUrl);
    expect((await wm.listWebhooks()).data.map((w) => w.id)).toContain(hook.id);
    expect((await wm.updateWebhook({ path: { id: hook.id }, body: { description: 'typed' } })).data.description).toBe(
      'typed',
    );
    const { data: ping } = await wm.pingWebhook({ path: { id: hook.id } });
    const { data: deliveries } = await wm.listWebhookDeliveries({ path: { id: hook.id } });
    expect(deliveries.map((d) => d.id)).toContain(ping.id);
    expect((await wm.redeliverWebhookDelivery({ path: { id: hook.id, delivery_id: ping.id } })).response.status).toBe(
      201,
    );
    expect((await wm.deleteWebhook({ path: { id: hook.id } })).response.status).toBe(204);

    const { data: answer } = await wm.graphql({ body: { query: '{ me { username } }' } });
    expect(answer).toEqual({ data: { me: { username: 'adam' } } });
    expect((await wm.getOpenApiDocument()).data.openapi).toBe('3.1.0');

    const { data: comment } = await wm.createComment({ path: { id: 'CLI-1' }, body: { body: 'Typed *comment*' } });
    expect((await wm.listComments({ path: { id: issue.id } })).data.map((c) => c.id)).toEqual([comment.id]);
    expect(
      (await wm.updateComment({ path: { id: 'CLI-1', comment_id: comment.id }, body: { body: 'Edited' } })).data.body,
    ).toBe('Edited');
    expect((await wm.deleteComment({ path: { id: 'CLI-1', comment_id: comment.id } })).response.status).toBe(204);

    const { data: label } = await wm.createLabel({ body: { name: 'client-bug', color: '#d73a4a' } });
    expect((await wm.getLabel({ path: { id: 'CLIENT-BUG' } })).data.id).toBe(label.id);
    expect((await wm.listLabels()).data.map((l) => l.id)).toContain(label.id);
    expect((await wm.updateLabel({ path: { id: label.id }, body: { color: '#00ff00' } })).data.color).toBe('#00ff00');
    expect((await wm.addIssueLabels({ path: { id: 'CLI-1' }, body: { labels: ['client-bug'] } })).data).toEqual([
      { id: label.id, name: 'client-bug', color: '#00ff00' },
    ]);
    expect((await wm.removeIssueLabel({ path: { id: 'CLI-1', label: label.id } })).data).toEqual([]);
    expect((await wm.setIssueLabels({ path: { id: 'CLI-1' }, body: { labels: [label.id] } })).data).toHaveLength(1);
    const { data: changed } = await wm.bulkIssues({ body: { ids: ['CLI-1'], change: { priority: 'low' } } });
    expect(changed.map((i) => [i.key, i.priority, i.labels.map((l) => l.name)])).toEqual([
      ['CLI-1', 'low', ['client-bug']],
    ]);
    expect((await wm.deleteLabel({ path: { id: label.id } })).response.status).toBe(204);

    expect((await wm.deleteIssue({ path: { id: issue.id } })).response.status).toBe(204);
    expect((await wm.deleteProject({ path: { id: project.id } })).response.status).toBe(204);

    // What an API key may not do (keys are minted and revoked by people; cross-organization calls).
    const forbidden = { status: 403, code: 'forbidden' };
    expect(await problemOf(wm.createApiKey({ body: { name: 'by a key' } }))).toEqual(forbidden);
    expect(await problemOf(wm.revokeApiKey({ path: { id: me.id } }))).toEqual(forbidden);
    expect(await problemOf(wm.createOrg({ body: { name: 'Other', slug: 'other' } }))).toEqual(forbidden);
    expect(await problemOf(wm.searchOrgs({ query: { q: 'glob' } }))).toEqual(forbidden);
    expect(await problemOf(wm.joinOrg({ body: { invite_code: 'x'.repeat(20) } }))).toEqual(forbidden);

    const operations = Object.getOwnPropertyNames(Object.getPrototypeOf(WorkmgmtClient.prototype)).filter(
      (name) => name !== 'constructor',
    );
    expect([...called].sort()).toEqual(operations.sort());
  });
});

describe('paging', () => {
  test('the iterator returns every issue of a 250-issue project once, following Link rel="next"', async () => {
    const org = s.t.org('acme');
    const project = await s.t.app.db.prisma.project.create({ data: { orgId: org.id, name: 'Paged', key: 'PAGED' } });
    await s.t.app.db.prisma.issue.createMany({
      data: Array.from({ length: 250 }, (_, i) => ({
        orgId: org.id,
        projectId: project.id,
        number: i + 1,
        title: `paged ${i}`,
        status: 'Todo',
        priority: 'low',
      })),
    });
    const wm = new WorkmgmtClient({ baseUrl: s.base, token: await s.token(), sleep: s.sleep });
    const sizes: number[] = [];
    for await (const page of wm.pages('listIssues', { query: { project_id: 'PAGED', limit: 100 } })) {
      sizes.push(page.length);
    }
    expect(sizes).toEqual([100, 100, 50]);
    const seen: string[] = [];
    for await (const issue of wm.each('listIssues', { query: { project_id: project.id, limit: 100 } })) {
      seen.push(issue.id);
    }
    const stored = await s.t.app.db.prisma.issue.findMany({ where: { projectId: project.id }, select: { id: true } });
    expect(seen).toHaveLength(250);
    expect(new Set(seen)).toEqual(new Set(stored.map((i) => i.id)));
  });
});

describe('the bulk export', () => {
  test('2,000 issues of 8 projects with 4 API keys: every issue once, each key a worker, no 429 (10,000: test/pglite/client-pack.test.ts)', async () => {
    const org = s.t.org('acme');
    const projectIds: string[] = [];
    for (let p = 0; p < 8; p++) {
      const project = await s.t.app.db.prisma.project.create({
        data: { orgId: org.id, name: `Bulk ${p}`, key: `BULK${p}` },
      });
      projectIds.push(project.id);
      await s.t.app.db.prisma.issue.createMany({
        data: Array.from({ length: 250 }, (_, i) => ({
          orgId: org.id,
          projectId: project.id,
          number: i + 1,
          title: `bulk ${p}.${i}`,
          status: 'Todo',
          priority: 'low',
        })),
      });
    }
    const tokens = await Promise.all(['olivia', 'adam', 'maya', 'mark'].map((u) => s.token(u)));
    const requestsByToken = new Map<string, number>();
    const statuses = new Set<number>();
    const counting: typeof fetch = async (input, init) => {
      const token = (input as Request).headers.get('authorization')!.slice('Bearer '.length);
      const response = await fetch(input, init);
      requestsByToken.set(token, (requestsByToken.get(token) ?? 0) + 1);
      statuses.add(response.status);
      return response;
    };
    const seen = new Set<string>();
    let emitted = 0;
    const result = await exportIssues(
      { baseUrl: s.base, tokens, projectIds, fetch: counting, sleep: s.sleep },
      (issue) => {
        seen.add(issue.id);
        emitted++;
      },
    );
    expect(result.issues).toBe(2_000);
    expect(emitted).toBe(2_000);
    expect(seen.size).toBe(2_000);
    expect([...statuses]).toEqual([200]);
    // 8 projects of 3 pages each (100 issues a page), shared among the 4 keys: answers counted.
    expect([...requestsByToken.keys()].sort()).toEqual([...tokens].sort());
    expect([...requestsByToken.values()].reduce((a, b) => a + b)).toBe(8 * 3);
  });
});

describe('webhooks', () => {
  test('a delivery signed by the service verifies; the same with its body or signature changed does not', async () => {
    const wm = new WorkmgmtClient({ baseUrl: s.base, token: await s.token('adam'), sleep: s.sleep });
    const { data: hook } = await wm.createWebhook({ body: { url: hookUrl, events: ['issue.created'] } });
    const before = receiver.received.length;
    const { data: issue } = await wm.createIssue({
      body: { project_id: s.t.org('acme').projects[0]!.id, title: 'Signed' },
    });
    await receiver.waitFor(before + 1);
    const delivered = receiver.received.find(
      (r) => r.payload.type === 'issue.created' && r.payload.data.id === issue.id,
    );
    expect(delivered).toBeDefined();
    const asSent = (body: string, headers: Record<string, string> = {}) =>
      new Request(hookUrl, {
        method: 'POST',
        headers: { ...(delivered!.headers as Record<string, string>), ...headers },
        body,
      });

    const event = await verifyWebhook(asSent(delivered!.body), hook.secret!);
    if (event.type !== 'issue.created') throw new Error(`unexpected ${event.type}`);
    expect(event.data.key).toBe(issue.key);
    expect(event.actor.via).toBe('pat');
    expect(event.changes.map((c) => c.field)).toContain('title');

    const tampered = delivered!.body.replace('"Signed"', '"Forged"');
    expect(tampered).not.toBe(delivered!.body);
    await expect(verifyWebhook(asSent(tampered), hook.secret!)).rejects.toBeInstanceOf(WebhookVerificationError);
    const otherSecret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    await expect(verifyWebhook(asSent(delivered!.body), otherSecret)).rejects.toBeInstanceOf(WebhookVerificationError);
    await wm.deleteWebhook({ path: { id: hook.id } });
  });
});

/** What the person does in the browser: sees the consent page, allows Globex, is sent to the loopback address. */
async function personAllows(url: string, cookie: string, orgId: string): Promise<void> {
  const authorize = new URL(url);
  expect(authorize.href.startsWith(`${s.base}/oauth/authorize?`)).toBe(true);
  const shown = await fetch(authorize, { headers: { cookie } });
  expect(shown.status).toBe(200);
  await shown.body?.cancel();
  const allowed = await fetch(`${s.base}/oauth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, origin: s.base, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...Object.fromEntries(authorize.searchParams), org_id: orgId, decision: 'allow' }),
  });
  expect(allowed.status).toBe(302);
  const back = await fetch(allowed.headers.get('location')!);
  expect(back.status).toBe(200);
  expect(await back.text()).toMatch(/close this window/);
}

describe('OAuth through the client', () => {
  test('a CLI signs in through a loopback redirect with PKCE, calls the API, and refreshes its token', async () => {
    const cookie = await s.t.signIn('bella@example.com');
    const saved: OAuthTokens[] = [];
    const opened: string[] = [];
    const session = await authorizeWithLoopback({
      baseUrl: s.base,
      clientName: 'client package test',
      openUrl: async (url) => {
        opened.push(url);
        await personAllows(url, cookie, s.t.org('globex').id);
      },
      onTokens: (tokens) => void saved.push(tokens),
    });
    const asked = new URL(opened[0]!).searchParams;
    expect(asked.get('code_challenge_method')).toBe('S256');
    expect(asked.get('resource')).toBe(`${s.base}/api`);
    expect(asked.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(saved).toHaveLength(1);
    expect(saved[0]!.refresh_token).toMatch(/^rt_/);
    expect(saved[0]!.expires_at).toBeGreaterThan(Date.now());

    const wm = new WorkmgmtClient({ baseUrl: s.base, token: session, sleep: s.sleep });
    expect((await wm.listMyOrgs()).data.orgs.map((o) => o.org_slug)).toEqual(['globex']);
    // A person's OAuth token may mint keys (an API key may not).
    const { data: key } = await wm.createApiKey({ body: { name: 'minted over OAuth' } });
    expect(key.token).toMatch(/^tok_live_/);
    expect((await wm.revokeApiKey({ path: { id: key.id } })).response.status).toBe(204);

    // The access token no longer valid (here: never was): the first 401 refreshes once, then the call succeeds.
    const { client_id } = Object.fromEntries(asked) as { client_id: string };
    const rotated: OAuthTokens[] = [];
    const stale = new OAuthSession({
      baseUrl: s.base,
      clientId: client_id,
      tokens: { ...session.tokens, access_token: 'not-a-valid-access-token' },
      onTokens: (tokens) => void rotated.push(tokens),
    });
    const statuses: number[] = [];
    const counting: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      statuses.push(response.status);
      return response;
    };
    const refreshed = new WorkmgmtClient({ baseUrl: s.base, token: stale, fetch: counting, sleep: s.sleep });
    expect((await refreshed.getMe()).data.username).toBe('bella');
    expect(statuses).toEqual([401, 200]);
    expect(rotated).toHaveLength(1);
    expect(rotated[0]!.refresh_token).not.toBe(session.tokens.refresh_token);

    // An access token past its expiry is refreshed before the request: no 401 at all.
    statuses.length = 0;
    const expiring = new OAuthSession({
      baseUrl: s.base,
      clientId: client_id,
      tokens: { ...rotated[0]!, access_token: 'expired', expires_at: Date.now() - 1000 },
      onTokens: (tokens) => void rotated.push(tokens),
    });
    const early = new WorkmgmtClient({ baseUrl: s.base, token: expiring, fetch: counting, sleep: s.sleep });
    expect((await early.getMe()).data.username).toBe('bella');
    expect(statuses).toEqual([200]);
    expect(rotated).toHaveLength(2);

    // A refresh token used twice: the service revokes the grant; the client stops with the refusal.
    const replayed = new OAuthSession({
      baseUrl: s.base,
      clientId: client_id,
      tokens: { ...rotated[0]!, access_token: 'not-a-valid-access-token' },
    });
    statuses.length = 0;
    const refused = await new WorkmgmtClient({ baseUrl: s.base, token: replayed, fetch: counting, sleep: s.sleep })
      .getMe()
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Error);
    expect(refused).not.toBeInstanceOf(ApiProblem);
    // oauth4webapi's ResponseBodyError, carrying the token endpoint's RFC 6749 error.
    expect(refused).toMatchObject({ error: 'invalid_grant', status: 400 });
    expect(statuses).toEqual([401]);
  });
});
