import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { KEY_TTL_MS } from '../src/idempotency/key.js';
import { fingerprint } from '../src/idempotency/run.js';
import { startTestApp, type TestApp } from './support/app.js';
import { dbKind } from './support/database.js';
import { expectProblem } from './support/problem.js';

// A retry of a request whose process died (kill -9) while it held its Idempotency-Key: the row
// it left says whether its write committed (src/idempotency/claim.ts), so the retry runs it,
// answers that it was applied, or (a write that could not mark the row) that it cannot know.

let t: TestApp;
let token: string;
let userId: string;
let orgId: string;
let projectId: string;
beforeAll(async () => {
  t = await startTestApp();
  const mark = t.user('mark');
  token = mark.token;
  userId = mark.id;
  orgId = t.org('acme').id;
  projectId = t.org('acme').projects[0]!.id;
});
afterAll(() => t.close());

const createIssue = (key: string, title: string) =>
  t.call('POST', '/api/issues', { token, body: { project_id: projectId, title }, headers: { 'idempotency-key': key } });
const issuesTitled = (title: string) => t.app.db.prisma.issue.count({ where: { title } });
const rowOf = (key: string) => t.app.db.prisma.idempotencyKey.findFirstOrThrow({ where: { userId, key } });

/**
 * The row a process leaves when it is killed while running `POST /api/issues` with `key`: claimed
 * (as src/idempotency/store.ts claimKey writes it), never answered, its lease no longer renewed.
 */
async function leftByCrash(
  key: string,
  title: string,
  row: { committedAt?: Date; opaque?: boolean; leaseUntil?: Date; createdAt?: Date } = {},
) {
  const body = new TextEncoder().encode(JSON.stringify({ project_id: projectId, title }));
  const createdAt = row.createdAt ?? new Date(Date.now() - 30_000);
  await t.app.db.prisma.idempotencyKey.create({
    data: {
      id: randomUUID(),
      userId,
      orgId,
      key,
      fingerprint: fingerprint('POST', '/api/issues', body),
      createdAt,
      expiresAt: new Date(createdAt.getTime() + KEY_TTL_MS),
      opaque: row.opaque ?? false,
      leaseUntil: row.leaseUntil ?? new Date(Date.now() - 20_000),
      committedAt: row.committedAt ?? null,
    },
  });
}

describe('a retry after the process holding its key died', () => {
  test('claimed but not committed: nothing was written, so the retry takes the key over, runs once and answers 201', async () => {
    const key = randomUUID();
    const title = `crashed before its write ${key}`;
    await leftByCrash(key, title);
    const retry = await createIssue(key, title);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    const body = await retry.text();
    expect(await issuesTitled(title)).toBe(1);
    // The next retry replays that answer; nothing runs again.
    const again = await createIssue(key, title);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(body);
    expect(await issuesTitled(title)).toBe(1);
  });

  test('committed but not answered: the write happened, so the retry is told it was applied (409) and nothing runs again', async () => {
    const key = randomUUID();
    const title = `crashed after its commit ${key}`;
    await leftByCrash(key, title, { committedAt: new Date(Date.now() - 25_000) });
    const retry = await createIssue(key, title);
    const problem = await expectProblem(retry, 409, 'idempotency_request_applied');
    expect(problem.detail).toContain('took effect');
    expect(await issuesTitled(title)).toBe(0);
  });

  test('a write that could not mark the key (opaque) is never taken over: in progress, then unknown, as before', async () => {
    const key = randomUUID();
    const title = `crashed in an opaque write ${key}`;
    await leftByCrash(key, title, { opaque: true, createdAt: new Date(Date.now() - 121_000) });
    await expectProblem(await createIssue(key, title), 409, 'idempotency_outcome_unknown');
    expect(await issuesTitled(title)).toBe(0);
  });

  test('a live lease is waited for; once it runs out without a commit the retry runs the request', async () => {
    const key = randomUUID();
    const title = `lease runs out ${key}`;
    await leftByCrash(key, title, { leaseUntil: new Date(Date.now() + 1_000) });
    const retry = await createIssue(key, title);
    expect(retry.status).toBe(201);
    expect(await issuesTitled(title)).toBe(1);
  });
});

describe('what a keyed request leaves on its row', () => {
  test('a create over REST, GraphQL and MCP marks its key committed in its transaction', async () => {
    const rest = randomUUID();
    expect((await createIssue(rest, `marked ${rest}`)).status).toBe(201);
    expect(await rowOf(rest)).toMatchObject({ committedAt: expect.any(Date), opaque: false, status: 201 });

    const graphql = randomUUID();
    const mutation = await t.call('POST', '/api/graphql', {
      token,
      headers: { 'idempotency-key': graphql },
      body: {
        query: 'mutation($input: CreateIssueInput!) { createIssue(input: $input) { __typename } }',
        variables: { input: { projectId, title: `marked ${graphql}` } },
      },
    });
    expect(mutation.status).toBe(200);
    expect(await mutation.json()).not.toHaveProperty('errors');
    expect(await rowOf(graphql)).toMatchObject({ committedAt: expect.any(Date), opaque: false, status: 200 });

    const bulk = randomUUID();
    const many = await t.call('POST', '/api/issues/bulk', {
      token,
      headers: { 'idempotency-key': bulk },
      body: {
        issues: [
          { project_id: projectId, title: `marked ${bulk} 1` },
          { project_id: projectId, title: `marked ${bulk} 2` },
        ],
      },
    });
    expect(many.status).toBeLessThan(300);
    expect(await rowOf(bulk)).toMatchObject({ committedAt: expect.any(Date), opaque: false });
  });

  test('a write that does not mark it (a label) makes the key opaque before it runs', async () => {
    const key = randomUUID();
    const maya = t.user('maya');
    const created = await t.call('POST', '/api/labels', {
      token: maya.token,
      headers: { 'idempotency-key': key },
      body: { name: `opaque ${key.slice(0, 8)}`, color: '#00aa55' },
    });
    expect(created.status).toBe(201);
    expect(await t.app.db.prisma.idempotencyKey.findFirstOrThrow({ where: { userId: maya.id, key } })).toMatchObject({
      committedAt: null,
      opaque: true,
      status: 201,
    });
  });

  test('a keyed request refused before it writes leaves its key neither committed nor opaque', async () => {
    const key = randomUUID();
    const refused = await t.call('POST', '/api/issues', {
      token,
      headers: { 'idempotency-key': key },
      body: { project_id: randomUUID(), title: 'nowhere' },
    });
    expect(refused.status).toBe(404);
    expect(await rowOf(key)).toMatchObject({ opaque: false, status: 404 });
  });
});

// PGlite runs one statement at a time: a transaction held open here would stop the app too.
describe.runIf(dbKind === 'postgres')('a live owner racing a takeover', () => {
  test('an owner stalled past its lease loses its claim: its write rolls back, the retry writes, once', async () => {
    const key = randomUUID();
    const title = `raced ${key}`;
    // The project's row lock stalls the owner's create inside its transaction, before its mark.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = t.app.db.prisma.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT id FROM projects WHERE id = ${projectId}::uuid FOR UPDATE`;
        locked();
        await released;
      },
      { timeout: 30_000 },
    );
    await isLocked;
    const owner = createIssue(key, title);
    // The owner has claimed the key; its lease then runs out, as a stalled process's would.
    for (;;) {
      const row = await t.app.db.prisma.idempotencyKey.findFirst({ where: { userId, key } });
      if (row) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    await t.app.db.prisma.idempotencyKey.updateMany({ where: { userId, key }, data: { leaseUntil: new Date(0) } });
    const retry = createIssue(key, title);
    // The retry took the row over (a new claim id) and waits for the project's lock too.
    for (;;) {
      const row = await rowOf(key);
      if (row.leaseUntil.getTime() > 0) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    release();
    await holder;
    const [first, second] = await Promise.all([owner, retry]);
    expect(second.status).toBe(201);
    // The owner's mark found no row of its claim: its transaction rolled back.
    expect(first.status).toBe(500);
    expect(await issuesTitled(title)).toBe(1);
    const again = await createIssue(key, title);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await second.json());
  });
});
