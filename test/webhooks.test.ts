import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { committedEvents } from '../src/events/committed.js';
import { formPost, startTestApp, type TestApp } from './support/app.js';
import { expectProblem } from './support/problem.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

let t: TestApp;
let receiver: WebhookReceiver;
let url: string;
let projectId: string;
const settings = {
  allowPrivateNetworks: true,
  secretKey: 'test key for sealing webhook secrets, 32+ chars',
  worker: true,
  leaseSeconds: 60,
};

beforeAll(async () => {
  t = await startTestApp({ webhooks: settings });
  receiver = new WebhookReceiver();
  url = await receiver.start();
  projectId = t.org('acme').projects[0]!.id;
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const admin = () => t.user('adam').token;
const json = async (response: Response, status = 200) => {
  if (response.status !== status) throw new Error(`${response.status}: ${await response.text()}`);
  return response.json();
};
const createHook = async (body: Record<string, unknown>) =>
  json(await t.call('POST', '/api/webhooks', { token: admin(), body }), 201);
const deliveries = async (id: string) =>
  json(await t.call('GET', `/api/webhooks/${id}/deliveries`, { token: admin() }));
async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('webhooks', () => {
  let hook: { id: string; secret: string };

  test('owners and admins manage them on REST; the secret is shown once and stored sealed', async () => {
    const created = await createHook({
      url,
      events: ['issue.created', 'issue.updated', 'issue.deleted'],
      description: 'CI',
    });
    expect(created).toMatchObject({
      url: `${url}`,
      events: ['issue.created', 'issue.updated', 'issue.deleted'],
      enabled: true,
      description: 'CI',
      disabled_reason: null,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    hook = created;
    receiver.secrets = [created.secret];
    const row = await t.app.db.prisma.webhook.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.secret).not.toContain(created.secret.slice(6));
    expect(await json(await t.call('GET', `/api/webhooks/${created.id}`, { token: admin() }))).not.toHaveProperty(
      'secret',
    );
    expect(
      (await json(await t.call('GET', '/api/webhooks', { token: t.user('olivia').token }))).map(
        (w: { id: string }) => w.id,
      ),
    ).toContain(created.id);
    // Managers and below, and other organizations, do not see them.
    await expectProblem(await t.call('GET', '/api/webhooks', { token: t.user('maya').token }), 403, 'forbidden');
    await expectProblem(
      await t.call('POST', '/api/webhooks', { token: t.user('mark').token, body: { url, events: ['*'] } }),
      403,
      'forbidden',
    );
    await expectProblem(
      await t.call('GET', `/api/webhooks/${created.id}`, { token: t.user('bella', 'globex').token }),
      404,
      'not_found',
    );
  });

  test('bad input: every mistake at once', async () => {
    const body = await expectProblem(
      await t.call('POST', '/api/webhooks', { token: admin(), body: { url: 'ftp://x', events: ['issue.moved'] } }),
      400,
      'validation_failed',
    );
    expect(body.errors!.map((e: { field: string }) => e.field).sort()).toEqual(['events.0', 'url'].sort());
  });

  test('changes are delivered, signed over the exact bytes, in order per issue', async () => {
    const start = receiver.received.length;
    const mark = t.user('mark').token;
    const issue = await json(
      await t.call('POST', '/api/issues', { token: mark, body: { project_id: projectId, title: 'Hook me' } }),
      201,
    );
    for (const status of ['Todo', 'In Progress', 'In Review', 'Done']) {
      await json(await t.call('PATCH', `/api/issues/${issue.id}`, { token: mark, body: { status } }));
    }
    await receiver.waitFor(start + 5);
    const got = receiver.received.slice(start);
    expect(got.every((r) => r.verifiedWith.length === 1)).toBe(true);
    expect(got.map((r) => r.payload.type)).toEqual([
      'issue.created',
      'issue.updated',
      'issue.updated',
      'issue.updated',
      'issue.updated',
    ]);
    expect(got.slice(1).map((r) => r.payload.changes![0]!.new)).toEqual(['Todo', 'In Progress', 'In Review', 'Done']);
    expect(got[0]!.payload).toMatchObject({
      type: 'issue.created',
      data: { id: issue.id, key: issue.key, title: 'Hook me', status: 'Backlog' },
      actor: { user_id: t.user('mark').id, via: 'pat' },
    });
    // The created issue exactly as the create answered it (its number and key come from the statement).
    expect(got[0]!.payload.data).toEqual(issue);
    expect(got[0]!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    // The webhook-id is the event id, which the history shows too.
    const history = await json(await t.call('GET', `/api/issues/${issue.id}/history`, { token: mark }));
    expect(history.map((e: { id: string }) => e.id).reverse()).toEqual(got.map((r) => r.id));
    const list = await until(
      () => deliveries(hook.id),
      (d) => d.filter((x: { status: string }) => x.status === 'delivered').length >= 5,
    );
    expect(list[0]).toMatchObject({
      status: 'delivered',
      response_code: 200,
      attempt: 1,
      response_body: 'ok',
      next_attempt_at: null,
    });
    expect(list[0].duration_ms).toBeGreaterThanOrEqual(0);
    // Tracing is off in this process (no preload): the outbox keeps no trace for the deliveries to link to.
    const kept = await t.app.db.prisma.webhookDelivery.findMany({ where: { webhookId: hook.id } });
    expect(kept.map((row) => row.traceparent)).toEqual(kept.map(() => null));
  });

  test('5xx and 429 are retried (Retry-After honoured), other 4xx are final', async () => {
    const start = receiver.received.length;
    receiver.answers = [{ status: 503 }];
    const issue = await json(
      await t.call('POST', '/api/issues', {
        token: t.user('mark').token,
        body: { project_id: projectId, title: 'Flaky' },
      }),
      201,
    );
    await receiver.waitFor(start + 2, 15_000);
    const [first, second] = receiver.received.slice(start);
    expect(second!.id).toBe(first!.id);
    expect(second!.body).toBe(first!.body);
    // The first retry comes within seconds (5 s ± 20 %).
    expect(second!.at - first!.at).toBeGreaterThan(3_500);
    expect(second!.at - first!.at).toBeLessThan(8_000);
    const delivered = await until(
      () => deliveries(hook.id),
      (d) => d.find((x: { message_id: string }) => x.message_id === first!.id)?.status === 'delivered',
    );
    expect(delivered.find((x: { message_id: string }) => x.message_id === first!.id)).toMatchObject({
      status: 'delivered',
      attempt: 2,
    });

    receiver.answers = [{ status: 429, headers: { 'retry-after': '120' } }];
    await json(
      await t.call('PATCH', `/api/issues/${issue.id}`, {
        token: t.user('mark').token,
        body: { title: 'Rate limited' },
      }),
    );
    await receiver.waitFor(start + 3);
    const waiting = await until(
      () => deliveries(hook.id),
      (d) => d[0].attempt === 1 && d[0].response_code === 429,
    );
    expect(waiting[0]).toMatchObject({ status: 'pending', response_code: 429 });
    expect(Date.parse(waiting[0].next_attempt_at) - Date.now()).toBeGreaterThan(100_000);
    // Let it go now, as a redelivery would.
    await t.app.db.prisma.webhookDelivery.update({ where: { id: waiting[0].id }, data: { nextAttemptAt: new Date() } });
    await receiver.waitFor(start + 4);

    receiver.answers = [{ status: 410 }];
    await json(
      await t.call('PATCH', `/api/issues/${issue.id}`, { token: t.user('mark').token, body: { title: 'Gone' } }),
    );
    const failed = await until(
      () => deliveries(hook.id),
      (d) => d[0].status === 'failed',
    );
    expect(failed[0]).toMatchObject({ status: 'failed', response_code: 410, attempt: 1, next_attempt_at: null });

    // Redeliver: the same message id and bytes, as a new delivery.
    const again = await json(
      await t.call('POST', `/api/webhooks/${hook.id}/deliveries/${failed[0].id}/redeliver`, { token: admin() }),
      201,
    );
    expect(again).toMatchObject({ message_id: failed[0].message_id, status: 'pending' });
    const count = receiver.received.length;
    await receiver.waitFor(count + 1);
    expect(receiver.received.at(-1)!.id).toBe(failed[0].message_id);
  });

  test('ping; rotation signs with both secrets during the grace period', async () => {
    const count = receiver.received.length;
    const rotated = await json(
      await t.call('PATCH', `/api/webhooks/${hook.id}`, { token: admin(), body: { rotate_secret: true } }),
    );
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.rotating).toBe(true);
    receiver.secrets = [hook.secret, rotated.secret];
    expect(await json(await t.call('POST', `/api/webhooks/${hook.id}/ping`, { token: admin() }), 201)).toMatchObject({
      event_type: 'webhook.ping',
    });
    await receiver.waitFor(count + 1);
    const ping = receiver.received.at(-1)!;
    expect(ping.payload.type).toBe('webhook.ping');
    expect(ping.verifiedWith).toEqual([hook.secret, rotated.secret]);
    expect(String(ping.headers['webhook-signature']).split(' ')).toHaveLength(2);
  });

  test('an endpoint failing for days is disabled, and says why', async () => {
    // The ping before has been recorded (a success would clear failing_since).
    await until(
      () => deliveries(hook.id),
      (d) => d.every((x: { status: string }) => x.status !== 'pending'),
    );
    await t.app.db.prisma.webhook.update({
      where: { id: hook.id },
      data: { failingSince: new Date(Date.now() - 4 * 86_400_000) },
    });
    receiver.answers = [{ status: 500 }];
    await json(await t.call('POST', `/api/webhooks/${hook.id}/ping`, { token: admin() }), 201);
    const disabled = await until(
      async () => json(await t.call('GET', `/api/webhooks/${hook.id}`, { token: admin() })),
      (w: { enabled: boolean; disabled_reason: string | null }) => !w.enabled,
    );
    expect(disabled.enabled).toBe(false);
    expect(disabled.disabled_reason).toMatch(/failed for 3 days\. Last error: HTTP 500/);
    const enabled = await json(
      await t.call('PATCH', `/api/webhooks/${hook.id}`, { token: admin(), body: { enabled: true } }),
    );
    expect(enabled).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
  });

  test('GraphQL: list, create and delete with typed errors', async () => {
    const gql = async (query: string, variables = {}) =>
      json(await t.call('POST', '/api/graphql', { token: admin(), body: { query, variables } }));
    const created = await gql(
      `mutation($i: CreateWebhookInput!) { createWebhook(input: $i) { __typename ... on MutationCreateWebhookSuccess { data { secret webhook { id url events } } } ... on ValidationError { fieldErrors { field message } } } }`,
      { i: { url, events: ['*'] } },
    );
    expect(created.data.createWebhook.data.secret).toMatch(/^whsec_/);
    const id = created.data.createWebhook.data.webhook.id;
    const refused = await gql(
      `mutation($i: CreateWebhookInput!) { createWebhook(input: $i) { __typename ... on ValidationError { fieldErrors { field message } } } }`,
      { i: { url: 'http://169.254.169.254/latest', events: ['*'] } },
    );
    expect(refused.data.createWebhook.fieldErrors).toEqual([
      { field: 'url', message: expect.stringMatching(/metadata/) },
    ]);
    const listed = await gql(`{ webhooks { id enabled deliveries(first: 5) { state } } }`);
    expect(listed.data.webhooks.map((w: { id: string }) => w.id)).toContain(id);
    expect((await gql(`mutation { deleteWebhook(id: "${id}") { __typename } }`)).data.deleteWebhook.__typename).toBe(
      'MutationDeleteWebhookSuccess',
    );
  });
});

describe('issue history', () => {
  test('GET /api/issues/:id/history pages newest first; Issue.history in GraphQL', async () => {
    const mark = t.user('mark').token;
    const issue = await json(
      await t.call('POST', '/api/issues', { token: mark, body: { project_id: projectId, title: 'Paged' } }),
      201,
    );
    for (const p of ['low', 'high', 'urgent'])
      await json(await t.call('PATCH', `/api/issues/${issue.key}`, { token: mark, body: { priority: p } }));
    const first = await t.call('GET', `/api/issues/${issue.key}/history?limit=2`, { token: t.user('victor').token });
    const page1 = await json(first);
    expect(page1.map((e: { changes: { new: unknown }[] }) => e.changes[0]!.new)).toEqual(['urgent', 'high']);
    expect(page1[0]).toMatchObject({
      type: 'issue.updated',
      actor_id: t.user('mark').id,
      via: 'pat',
      changes: [{ field: 'priority', old: 'high', new: 'urgent' }],
    });
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link')!)![1]!;
    const page2 = await json(await t.call('GET', new URL(next).pathname + new URL(next).search, { token: mark }));
    expect(page2.map((e: { type: string }) => e.type)).toEqual(['issue.updated', 'issue.created']);

    const gql = await json(
      await t.call('POST', '/api/graphql', {
        token: mark,
        body: {
          query: `{ issue(id: "${issue.id}") { history(first: 1) { edges { node { type via changes { field old new } } } pageInfo { hasNextPage } } } }`,
        },
      }),
    );
    expect(gql.data.issue.history).toEqual({
      edges: [
        { node: { type: 'issue.updated', via: 'pat', changes: [{ field: 'priority', old: 'high', new: 'urgent' }] } },
      ],
      pageInfo: { hasNextPage: true },
    });

    // Deleted: owners and admins still read it, by id; others get 404.
    expect((await t.call('DELETE', `/api/issues/${issue.id}`, { token: t.user('maya').token })).status).toBe(204);
    expect((await json(await t.call('GET', `/api/issues/${issue.id}/history`, { token: admin() })))[0].type).toBe(
      'issue.deleted',
    );
    await expectProblem(await t.call('GET', `/api/issues/${issue.id}/history`, { token: mark }), 404, 'not_found');
    await expectProblem(
      await t.call('GET', `/api/issues/${issue.id}/history`, { token: t.user('bella', 'globex').token }),
      404,
      'not_found',
    );
  });
});

describe('Settings > Webhooks page', () => {
  test('owners add an endpoint and see its secret once; a disabled one shows why; managers are told who can', async () => {
    const cookie = await t.signIn(t.user('olivia').email);
    const path = '/orgs/acme/settings/webhooks';
    const shown = await t.app.fetch(new Request(`http://localhost:4000${path}`, { headers: { cookie } }));
    expect(shown.status).toBe(200);
    const created = await t.app.fetch(
      formPost(path, { url, events: 'issue.created', description: 'From the page' }, { cookie }),
    );
    // Post/redirect/get: the secret travels in the flash cookie to the page, which shows it once.
    expect(created.status).toBe(303);
    expect(created.headers.get('location')).toBe(path);
    const flash = created.headers.get('set-cookie')!.split(';')[0]!;
    const once = await t.app.fetch(
      new Request(`http://localhost:4000${path}`, { headers: { cookie: `${cookie}; ${flash}` } }),
    );
    expect(await once.text()).toMatch(/whsec_[A-Za-z0-9+/]+=/);
    expect(once.headers.get('set-cookie')).toMatch(/wm_flash=;/);
    const refused = await t.app.fetch(
      formPost(path, { url: 'https://169.254.169.254/', events: 'issue.created' }, { cookie }),
    );
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('cloud metadata address');

    const hook = await t.app.db.prisma.webhook.findFirstOrThrow({ where: { description: 'From the page' } });
    await t.app.db.prisma.webhook.update({
      where: { id: hook.id },
      data: {
        enabled: false,
        disabledReason: 'Disabled on 2026-11-23: every delivery failed for 3 days. Last error: HTTP 500',
      },
    });
    const listed = await (
      await t.app.fetch(new Request(`http://localhost:4000${path}`, { headers: { cookie } }))
    ).text();
    expect(listed).toContain('every delivery failed for 3 days. Last error: HTTP 500');
    const resumed = await t.app.fetch(formPost(`${path}/${hook.id}`, { action: 'resume' }, { cookie }));
    expect(resumed.status).toBe(303);
    expect((await t.app.db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } })).enabled).toBe(true);
    expect((await t.app.fetch(formPost(`${path}/${hook.id}`, { action: 'delete' }, { cookie }))).status).toBe(303);

    const maya = await t.signIn(t.user('maya').email);
    expect(
      await (await t.app.fetch(new Request(`http://localhost:4000${path}`, { headers: { cookie: maya } }))).text(),
    ).toContain('Only owners and admins manage webhooks');
  });
});

// Last: its writes reach the receiver, which the tests above count.
describe('waking the delivery worker', () => {
  test('the delivery worker is woken only by a write that queued a delivery', async () => {
    let wakes = 0;
    const wake = () => wakes++;
    committedEvents.on('queued', wake);
    try {
      // Globex has no webhook: its create and update queue nothing, and wake nobody.
      const bella = t.user('bella', 'globex').token;
      const quiet = await json(
        await t.call('POST', '/api/issues', {
          token: bella,
          body: { project_id: t.org('globex').projects[0]!.id, title: 'No hook here' },
        }),
        201,
      );
      await json(await t.call('PATCH', `/api/issues/${quiet.id}`, { token: bella, body: { status: 'Done' } }));
      expect(wakes).toBe(0);
      // A hook of Acme wants both: each write wakes the worker.
      await createHook({ url, events: ['issue.created', 'issue.updated'] });
      const heard = await json(
        await t.call('POST', '/api/issues', {
          token: admin(),
          body: { project_id: projectId, title: 'A hook hears this' },
        }),
        201,
      );
      expect(wakes).toBe(1);
      await json(await t.call('PATCH', `/api/issues/${heard.id}`, { token: admin(), body: { status: 'Done' } }));
      expect(wakes).toBe(2);
    } finally {
      committedEvents.off('queued', wake);
    }
  });
});
