import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GLOBAL_POLICY } from '../src/limits/policy.js';
import { MemoryStore } from '../src/limits/memory-store.js';
import { rateLimitSubject } from '../src/pipeline/rate-limit.js';
import { BULK_MAX } from '../src/schema/core/bulk.js';
import { startTestApp, type TestApp } from './support/app.js';
import { expectProblem } from './support/problem.js';

let t: TestApp;
let token: string;
let projectId: string;
const settings = {
  allowPrivateNetworks: true,
  secretKey: 'test key for sealing webhook secrets, 32+ chars',
  worker: false,
  leaseSeconds: 60,
};
beforeAll(async () => {
  t = await startTestApp({ webhooks: settings });
  token = t.user('mark').token;
  projectId = t.org('acme').projects[0]!.id;
  const hook = await t.call('POST', '/api/webhooks', {
    token: t.user('olivia').token,
    body: { url: 'http://127.0.0.1:9/hook', events: ['*'] },
  });
  expect(hook.status).toBe(201);
});
afterAll(() => t.close());

const bulk = (body: unknown, as = token, headers: Record<string, string> = {}) =>
  t.call('POST', '/api/issues/bulk', { token: as, body, headers });
const json = async (response: Response, status = 200) => {
  if (response.status !== status) throw new Error(`${response.status}: ${await response.text()}`);
  return response.json();
};
const createMany = async (count: number, title = 'Bulk') =>
  (await json(
    await bulk({
      issues: Array.from({ length: count }, (_, i) => ({ project_id: projectId, title: `${title} ${i}` })),
    }),
  )) as { id: string; key: string; number: number; status: string; priority: string; assignee_id: string | null }[];
const eventsOf = (ids: string[]) =>
  t.app.db.prisma.event.findMany({ where: { subjectId: { in: ids } }, orderBy: { seq: 'asc' } });
const deliveriesOf = (eventIds: string[]) =>
  t.app.db.prisma.webhookDelivery.count({ where: { messageId: { in: eventIds } } });

describe('POST /api/issues/bulk: create', () => {
  test('creates every issue in order, numbered one after another, each with its history and webhook event', async () => {
    const issues = await createMany(3, 'Numbered');
    expect(issues.map((issue) => issue.key)).toEqual(issues.map((issue) => `WEB-${issue.number}`));
    expect(issues.map((issue) => issue.number)).toEqual([0, 1, 2].map((i) => issues[0]!.number + i));
    const events = await eventsOf(issues.map((issue) => issue.id));
    expect(events.map((event) => [event.type, event.subjectId])).toEqual(
      issues.map((issue) => ['issue.created', issue.id]),
    );
    expect(await deliveriesOf(events.map((event) => event.id))).toBe(3);
    const listed = await json(await t.call('GET', `/api/issues/${issues[1]!.key}`, { token }));
    expect(listed).toEqual(issues[1]);
  });

  test('every bad item at once with its index, and nothing written', async () => {
    const before = await t.app.db.prisma.issue.count();
    const response = await bulk({
      issues: [
        { project_id: projectId, title: 'fine' },
        { project_id: projectId, title: '', priority: 'p1' },
        { project_id: 'NOPE', title: 'no such project' },
        { project_id: projectId, title: 'stranger', assignee_id: t.user('bella', 'globex').id },
        { project_id: projectId, title: 'fine too', colour: 'red' },
      ],
    });
    const body = await expectProblem(response, 400, 'validation_failed');
    expect(body.errors).toEqual([
      { index: 1, field: 'issues.1.title', message: expect.stringMatching(/empty/) },
      { index: 1, field: 'issues.1.priority', message: expect.stringMatching(/must be one of/) },
      { index: 4, field: 'issues.4.colour', message: 'is not a known field' },
    ]);
    // Past the rules of each field, the references: each named with its index too.
    const refs = await expectProblem(
      await bulk({
        issues: [
          { project_id: projectId, title: 'fine' },
          { project_id: 'NOPE', title: 'no such project' },
          { project_id: projectId, title: 'stranger', assignee_id: t.user('bella', 'globex').id },
        ],
      }),
      400,
      'validation_failed',
    );
    expect(refs.errors).toEqual([
      { index: 1, field: 'issues.1.project_id', message: 'names no project in this organization' },
      { index: 2, field: 'issues.2.assignee_id', message: 'must be a member of the organization' },
    ]);
    expect(await t.app.db.prisma.issue.count()).toBe(before);
  });

  test(`at most ${BULK_MAX} items; none is no call; create goes without ids and change`, async () => {
    const item = { project_id: projectId, title: 'x' };
    expect(
      (await expectProblem(await bulk({ issues: Array(BULK_MAX + 1).fill(item) }), 400, 'validation_failed')).errors,
    ).toEqual([{ field: 'issues', message: `must hold between 1 and ${BULK_MAX} items` }]);
    expect((await expectProblem(await bulk({ issues: [] }), 400, 'validation_failed')).errors).toEqual([
      { field: 'issues', message: `must hold between 1 and ${BULK_MAX} items` },
    ]);
    expect((await expectProblem(await bulk({}), 400, 'validation_failed')).errors).toEqual([
      { field: 'ids', message: 'is required (or issues, to create)' },
      { field: 'change', message: 'is required with ids' },
    ]);
    const both = await bulk({ issues: [item], ids: ['WEB-1'], change: { status: 'Done' } });
    expect((await expectProblem(both, 400, 'validation_failed')).errors).toEqual([
      { field: 'issues', message: 'cannot be sent with ids or change: one call creates or changes' },
    ]);
  });
});

describe('POST /api/issues/bulk: change', () => {
  test('the same change to each issue, by id or key; one history entry and one webhook event per issue changed', async () => {
    const issues = await createMany(3, 'Change');
    const mark = t.user('mark');
    // The first is already In Progress: setting it again changes nothing of it, so it records nothing.
    await json(await t.call('PATCH', `/api/issues/${issues[0]!.id}`, { token, body: { status: 'In Progress' } }));
    const changed = await json(
      await bulk({
        ids: [issues[0]!.id, issues[1]!.key.toLowerCase(), issues[2]!.id.toUpperCase()],
        change: { status: 'In Progress', assignee_id: mark.id },
      }),
    );
    expect(changed.map((issue: { id: string }) => issue.id)).toEqual(issues.map((issue) => issue.id));
    for (const issue of changed) expect(issue).toMatchObject({ status: 'In Progress', assignee_id: mark.id });
    const events = (await eventsOf(issues.map((issue) => issue.id))).filter((e) => e.type === 'issue.updated');
    expect(events.map((event) => event.subjectId)).toEqual([issues[0]!.id, ...issues.map((issue) => issue.id)]);
    const bulkEvents = events.slice(1);
    expect(bulkEvents[0]!.changes).toEqual([{ field: 'assigneeId', old: null, new: mark.id }]);
    expect(bulkEvents[1]!.changes).toEqual([
      { field: 'status', old: 'Backlog', new: 'In Progress' },
      { field: 'assigneeId', old: null, new: mark.id },
    ]);
    expect(await deliveriesOf(bulkEvents.map((event) => event.id))).toBe(3);
    // Null unassigns.
    const cleared = await json(await bulk({ ids: [issues[0]!.id], change: { assignee_id: null } }));
    expect(cleared[0].assignee_id).toBeNull();
  });

  test('unknown, foreign and repeated issues are each named by index; nothing changes', async () => {
    const [issue] = await createMany(1, 'Untouched');
    const foreign = await json(
      await t.call('POST', '/api/issues', {
        token: t.user('bella', 'globex').token,
        body: { project_id: t.org('globex').projects[0]!.id, title: 'Theirs' },
      }),
      201,
    );
    const response = await bulk({
      ids: [issue!.id, foreign.id, 'WEB-999999', issue!.key, 'not an id'],
      change: { status: 'Done', priority: 'urgent' },
    });
    expect((await expectProblem(response, 400, 'validation_failed')).errors).toEqual([
      { index: 1, field: 'ids.1', message: 'names no issue in this organization' },
      { index: 2, field: 'ids.2', message: 'names no issue in this organization' },
      { index: 3, field: 'ids.3', message: 'names the same issue as ids.0' },
      { index: 4, field: 'ids.4', message: 'names no issue in this organization' },
    ]);
    expect(await json(await t.call('GET', `/api/issues/${issue!.id}`, { token }))).toMatchObject({
      status: 'Backlog',
      priority: 'none',
    });
    expect(
      await json(await t.call('GET', `/api/issues/${foreign.id}`, { token: t.user('bella', 'globex').token })),
    ).toMatchObject({ status: 'Backlog' });
  });

  test('the change is checked by the update rules: an empty change, a bad value, a stranger as assignee', async () => {
    const [issue] = await createMany(1, 'Checked');
    const errorsOf = async (change: unknown) =>
      (await expectProblem(await bulk({ ids: [issue!.id], change }), 400, 'validation_failed')).errors;
    expect(await errorsOf({})).toEqual([{ field: 'change', message: 'must set at least one field' }]);
    expect(await errorsOf({ status: 'Blocked', title: 'x' })).toEqual([
      { field: 'change.status', message: expect.stringMatching(/must be one of/) },
      { field: 'change.title', message: 'is not a known field' },
    ]);
    expect(await errorsOf({ status: null })).toEqual([{ field: 'change.status', message: 'cannot be null' }]);
    expect(await errorsOf({ assignee_id: t.user('bella', 'globex').id })).toEqual([
      { field: 'change.assignee_id', message: 'must be a member of the organization' },
    ]);
  });

  test('a viewer may not; an issue of another organization is not changed through its key', async () => {
    const [issue] = await createMany(1, 'Viewer');
    await expectProblem(
      await bulk({ ids: [issue!.id], change: { status: 'Done' } }, t.user('victor').token),
      403,
      'forbidden',
    );
    const bella = t.user('bella', 'globex').token;
    const response = await bulk({ ids: [issue!.key], change: { status: 'Done' } }, bella);
    expect((await expectProblem(response, 400, 'validation_failed')).errors).toEqual([
      { index: 0, field: 'ids.0', message: 'names no issue in this organization' },
    ]);
  });
});

describe('POST /api/issues/bulk: labels', () => {
  test('labels added to and taken off every issue, by name or id; one history entry per issue whose labels changed', async () => {
    const maya = t.user('maya').token;
    const label = async (name: string) =>
      json(await t.call('POST', '/api/labels', { token: maya, body: { name, color: '#0E8A16' } }), 201) as Promise<{
        id: string;
      }>;
    const bug = await label('bulk-bug');
    await label('bulk-ui');
    const issues = await createMany(2, 'Labelled');
    const names = (issue: { labels: { name: string }[] }) => issue.labels.map((l) => l.name);
    const added = await json(
      await bulk({ ids: issues.map((i) => i.id), change: { labels: { add: [bug.id, 'BULK-UI'] } } }),
    );
    expect(added.map(names)).toEqual([
      ['bulk-bug', 'bulk-ui'],
      ['bulk-bug', 'bulk-ui'],
    ]);
    const removed = await json(
      await bulk({ ids: [issues[0]!.key], change: { status: 'Todo', labels: { remove: ['bulk-ui'] } } }),
    );
    expect(removed.map(names)).toEqual([['bulk-bug']]);
    const events = (await eventsOf(issues.map((i) => i.id))).filter((e) => e.type === 'issue.updated');
    expect(events.map((e) => [e.subjectId, e.changes])).toEqual([
      [issues[0]!.id, [{ field: 'labels', old: null, new: 'bulk-bug, bulk-ui' }]],
      [issues[1]!.id, [{ field: 'labels', old: null, new: 'bulk-bug, bulk-ui' }]],
      [
        issues[0]!.id,
        [
          { field: 'status', old: 'Backlog', new: 'Todo' },
          { field: 'labels', old: 'bulk-bug, bulk-ui', new: 'bulk-bug' },
        ],
      ],
    ]);
    const unknown = await bulk({
      ids: [issues[1]!.id],
      change: { labels: { add: ['nope'], remove: ['bulk-bug', 'gone'] } },
    });
    expect((await expectProblem(unknown, 400, 'validation_failed')).errors).toEqual([
      { field: 'change.labels.add.0', message: 'names no label of this organization' },
      { field: 'change.labels.remove.1', message: 'names no label of this organization' },
    ]);
    expect(
      (await expectProblem(await bulk({ ids: [issues[1]!.id], change: { labels: {} } }), 400, 'validation_failed'))
        .errors,
    ).toEqual([{ field: 'change', message: 'must set at least one field' }]);
  });
});

describe('POST /api/issues/bulk: rate limit and retries', () => {
  test('costs 1 + ceil(items / 10) requests of the global bucket', async () => {
    const remaining = (response: Response) => Number(response.headers.get('x-ratelimit-remaining'));
    const ownToken = t.user('adam').token;
    const first = await t.call('GET', '/api/me', { token: ownToken });
    const one = await bulk({ issues: [{ project_id: projectId, title: 'one' }] }, ownToken);
    expect(remaining(one)).toBe(remaining(first) - 2);
    const items = Array.from({ length: 21 }, (_, i) => ({ project_id: projectId, title: `t${i}` }));
    const many = await bulk({ issues: items }, ownToken);
    expect(many.status).toBe(200);
    expect(remaining(many)).toBe(remaining(one) - 4);
  });

  test('refused when the bucket cannot pay for every item, with nothing written and nothing drawn', async () => {
    const store = new MemoryStore();
    const small = await startTestApp({}, { limiterStore: store });
    try {
      const own = small.user('mark').token;
      const project = small.org('acme').projects[0]!.id;
      // The bucket holds room for 3 more requests.
      const subject = rateLimitSubject(own, '127.0.0.1');
      for (let i = 0; i < GLOBAL_POLICY.limit - 3; i++) store.consumeAllSync([{ key: subject, policy: GLOBAL_POLICY }]);
      const before = await small.app.db.prisma.issue.count();
      const items = Array.from({ length: 50 }, (_, i) => ({ project_id: project, title: `t${i}` }));
      const refused = await small.call('POST', '/api/issues/bulk', { token: own, body: { issues: items } });
      await expectProblem(refused, 429, 'rate_limited');
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await small.app.db.prisma.issue.count()).toBe(before);
      // Only the request itself was counted: a call of 1 + 1 still fits in the 2 left.
      const fits = await small.call('POST', '/api/issues/bulk', { token: own, body: { issues: items.slice(0, 10) } });
      expect(fits.status).toBe(200);
      expect(fits.headers.get('x-ratelimit-remaining')).toBe('0');
    } finally {
      await small.close();
    }
  });

  test('Idempotency-Key: a retry gets the first answer and creates nothing more', async () => {
    const key = crypto.randomUUID();
    const body = {
      issues: [
        { project_id: projectId, title: 'Once' },
        { project_id: projectId, title: 'Twice?' },
      ],
    };
    const first = await json(await bulk(body, token, { 'idempotency-key': key }));
    const again = await bulk(body, token, { 'idempotency-key': key });
    expect(await json(again)).toEqual(first);
    expect(await t.app.db.prisma.issue.count({ where: { title: 'Twice?' } })).toBe(1);
  });
});
