import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CIRCUIT_OPEN_AFTER_FAILURES } from '../src/webhooks/circuit.js';
import { ENDPOINT_IN_FLIGHT_MAX, ORG_IN_FLIGHT_MAX } from '../src/webhooks/fairness.js';
import { WEBHOOKS_PER_ORG_MAX } from '../src/schema/webhooks/operations.js';
import { DELIVERIES_KEPT_PER_WEBHOOK, pruneDeliveries } from '../src/webhooks/retention.js';
import { DeliveryWorker } from '../src/webhooks/worker.js';
import { startTestApp, type TestApp } from './support/app.js';
import { expectProblem } from './support/problem.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

let t: TestApp;
let worker: DeliveryWorker | undefined;
const receivers: WebhookReceiver[] = [];
// The app runs no worker: the first test starts one on a backlog, as an instance starting (or one that fell
// behind) finds it.
const settings = {
  allowPrivateNetworks: true,
  secretKey: 'test key for sealing webhook secrets, 32+ chars',
  worker: false,
  leaseSeconds: 60,
};

beforeAll(async () => {
  t = await startTestApp({ webhooks: settings });
}, 180_000);
afterAll(async () => {
  // Receivers first: their held connections end, so the worker's sends finish and it stops at once.
  for (const receiver of receivers) await receiver.close();
  await worker?.stop();
  await t.close();
});

async function receiver(): Promise<{ receiver: WebhookReceiver; url: string }> {
  const r = new WebhookReceiver();
  receivers.push(r);
  return { receiver: r, url: await r.start() };
}
const json = async (response: Response, status = 200) => {
  if (response.status !== status) throw new Error(`${response.status}: ${await response.text()}`);
  return response.json();
};
const createHook = (token: string, url: string) =>
  t.call('POST', '/api/webhooks', { token, body: { url, events: ['*'] } }).then((r) => json(r, 201));
const createIssue = (slug: string, username: string, title: string) =>
  t
    .call('POST', '/api/issues', {
      token: t.user(username, slug).token,
      body: { project_id: t.org(slug).projects[0]!.id, title },
    })
    .then((r) => json(r, 201));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > end) return value;
    await sleep(100);
  }
}

describe('webhook delivery is fair across organizations and endpoints', { timeout: 120_000 }, () => {
  test('finding 5: endpoints that never answer hold a few slots; another org is delivered at once', async () => {
    // Acme: six endpoints that accept the connection and never answer, and 72 deliveries for them.
    const hanging = await Promise.all(Array.from({ length: 6 }, () => receiver()));
    for (const h of hanging) {
      h.receiver.otherwise = 'hang';
      await createHook(t.user('adam').token, h.url);
    }
    for (let i = 0; i < 12; i++) await createIssue('acme', 'mark', `noisy ${i}`);
    // Globex queues one delivery after all of them.
    const quiet = await receiver();
    await createHook(t.user('bella', 'globex').token, quiet.url);
    const issue = await createIssue('globex', 'bella', 'quiet');
    worker = new DeliveryWorker(t.app.db.prisma, { ...settings, worker: true }, t.app.logger);
    worker.start();
    // One FIFO in batches that wait for their slowest send reaches it only after 3 rounds of 10 s timeouts.
    await quiet.receiver.waitFor(1, 60_000);
    expect(quiet.receiver.received[0]!.payload.data.id).toBe(issue.id);
    // It came while acme's first sends were still hanging (they end at the 10 s send timeout).
    const firstEnded = Math.min(...hanging.flatMap((h) => h.receiver.closedAt));
    expect(quiet.receiver.received[0]!.at).toBeLessThan(firstEnded);
    // Each endpoint held at most its cap of connections, the organization at most its own.
    for (const h of hanging) expect(h.receiver.maxOpen).toBeLessThanOrEqual(ENDPOINT_IN_FLIGHT_MAX);
    const acmeInFlight = await t.app.db.prisma.webhookDelivery.count({
      where: { orgId: t.org('acme').id, state: 'pending', leaseUntil: { gt: new Date() } },
    });
    expect(acmeInFlight).toBeLessThanOrEqual(ORG_IN_FLIGHT_MAX);
    expect(hanging.map((h) => h.receiver.maxOpen).reduce((a, b) => a + b)).toBeLessThanOrEqual(ORG_IN_FLIGHT_MAX);
    // Their endpoints go away: nothing is left to send for acme (and no hanging socket outlives the test).
    for (const h of hanging) await h.receiver.close();
    await t.app.db.prisma.webhook.deleteMany({ where: { orgId: t.org('acme').id } });
  });

  test('a failing endpoint opens its circuit: its deliveries wait, no attempt spent; a probe closes it', async () => {
    const failing = await receiver();
    failing.receiver.otherwise = { status: 500 };
    const hook = await createHook(t.user('bella', 'globex').token, failing.url);
    const queued = 10;
    for (let i = 0; i < queued; i++) await createIssue('globex', 'bella', `failing ${i}`);
    const opened = await until(
      () => t.app.db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } }),
      (w) => w.circuitOpenUntil !== null && w.circuitOpenUntil > new Date(),
    );
    expect(opened.circuitOpenUntil!.getTime()).toBeGreaterThan(Date.now());
    expect(opened.consecutiveFailures).toBeGreaterThanOrEqual(CIRCUIT_OPEN_AFTER_FAILURES);
    // Sends already in flight when the circuit opened still arrive and are recorded: wait until none holds a
    // lease (on a slow machine the sixth could reach the receiver after the fifth failure opened the circuit).
    await until(
      () =>
        t.app.db.prisma.webhookDelivery.count({
          where: { webhookId: hook.id, state: 'pending', leaseUntil: { gt: new Date() } },
        }),
      (inFlight) => inFlight === 0,
    );
    // Two polls later nothing more came: the open circuit takes no slot and makes no attempt.
    const sent = failing.receiver.received.length;
    await sleep(2500);
    expect(failing.receiver.received.length).toBe(sent);
    expect(sent).toBeLessThan(queued);
    expect(sent).toBeLessThanOrEqual(CIRCUIT_OPEN_AFTER_FAILURES + ENDPOINT_IN_FLIGHT_MAX - 1);
    const untried = await t.app.db.prisma.webhookDelivery.count({
      where: { webhookId: hook.id, state: 'pending', attempts: 0 },
    });
    expect(untried).toBe(queued - sent);

    // Half-open: the endpoint recovers; one probe goes out alone, and its success lets the rest through.
    failing.receiver.otherwise = { status: 200 };
    failing.receiver.answers = ['hold'];
    await t.app.db.prisma.webhook.update({ where: { id: hook.id }, data: { circuitOpenUntil: new Date() } });
    await failing.receiver.waitFor(sent + 1);
    await sleep(1500);
    expect(failing.receiver.received.length).toBe(sent + 1);
    failing.receiver.release();
    // The untried ones at once; those that failed before at their retry (5 s after their failure).
    const done = await until(
      () => t.app.db.prisma.webhookDelivery.count({ where: { webhookId: hook.id, state: 'delivered' } }),
      (n) => n === queued,
    );
    expect(done).toBe(queued);
    const closed = await t.app.db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    expect(closed).toMatchObject({ consecutiveFailures: 0, circuitOpenUntil: null, failingSince: null });
    await t.app.db.prisma.webhook.delete({ where: { id: hook.id } });
  });
});

describe('what an organization can grow is bounded', () => {
  test(`at most ${WEBHOOKS_PER_ORG_MAX} webhooks per organization, even created at once; then 409`, async () => {
    const { url } = await receiver();
    const token = t.user('olivia').token;
    const have = await t.app.db.prisma.webhook.count({ where: { orgId: t.org('acme').id } });
    const answers = await Promise.all(
      Array.from({ length: WEBHOOKS_PER_ORG_MAX - have + 2 }, () =>
        t.call('POST', '/api/webhooks', { token, body: { url, events: ['issue.created'] } }),
      ),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(WEBHOOKS_PER_ORG_MAX - have);
    const refused = answers.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(2);
    for (const response of refused) {
      const body = await expectProblem(response, 409, 'webhook_limit_reached');
      expect(body.detail).toContain(`${WEBHOOKS_PER_ORG_MAX} webhooks`);
    }
    expect(await t.app.db.prisma.webhook.count({ where: { orgId: t.org('acme').id } })).toBe(WEBHOOKS_PER_ORG_MAX);
    const gql = await json(
      await t.call('POST', '/api/graphql', {
        token,
        body: {
          query: `mutation { createWebhook(input: { url: "${url}", events: ["*"] }) {
            __typename ... on ConflictError { code } } }`,
        },
      }),
    );
    expect(gql.data.createWebhook).toEqual({ __typename: 'ConflictError', code: 'WEBHOOK_LIMIT_REACHED' });
    await t.app.db.prisma.webhook.deleteMany({ where: { orgId: t.org('acme').id } });
  });

  test(`an endpoint keeps its newest ${DELIVERIES_KEPT_PER_WEBHOOK} deliveries, finished ones 30 days`, async () => {
    const { url } = await receiver();
    const busy = await createHook(t.user('olivia').token, url);
    const old = await createHook(t.user('olivia').token, url);
    const orgId = t.org('acme').id;
    const insert = (webhookId: string, n: number, state: string, due: string) =>
      t.app.db.prisma.$executeRawUnsafe(
        `INSERT INTO webhook_deliveries
           (id, webhook_id, org_id, message_id, event_type, payload, state, next_attempt_at)
         SELECT gen_random_uuid(), $1::uuid, $2::uuid, gen_random_uuid()::text, 'issue.created', '{}', $3,
                now() + $4::interval
           FROM generate_series(1, $5)`,
        webhookId,
        orgId,
        state,
        due,
        n,
      );
    // Pending ones not yet due (the worker leaves them be), older than the rest; then more finished ones than are kept.
    await insert(busy.id, 5, 'pending', '1 day');
    await insert(busy.id, 60, 'failed', '-1 hour');
    await insert(busy.id, DELIVERIES_KEPT_PER_WEBHOOK + 40, 'delivered', '-1 hour');
    await insert(old.id, 7, 'failed', '-31 days');
    await insert(old.id, 3, 'delivered', '-29 days');
    const count = (webhookId: string, state: string) =>
      t.app.db.prisma.webhookDelivery.count({ where: { webhookId, state } });

    expect(await pruneDeliveries(t.app.db.prisma)).toBe(100 + 7);
    expect(await count(busy.id, 'pending')).toBe(5);
    expect(await count(busy.id, 'failed')).toBe(0);
    expect(await count(busy.id, 'delivered')).toBe(DELIVERIES_KEPT_PER_WEBHOOK);
    expect(await count(old.id, 'failed')).toBe(0);
    expect(await count(old.id, 'delivered')).toBe(3);
    expect(await pruneDeliveries(t.app.db.prisma)).toBe(0);
    await t.app.db.prisma.webhook.deleteMany({ where: { id: { in: [busy.id, old.id] } } });
  });
});
