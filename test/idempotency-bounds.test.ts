import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { KEY_TTL_MS } from '../src/idempotency/key.js';
import { MAX_ANSWER_BYTES, MAX_BYTES_PER_USER, MAX_KEYS_PER_USER } from '../src/idempotency/quota.js';
import { idempotent, keyScope } from '../src/idempotency/run.js';
import { startTestApp, type TestApp } from './support/app.js';
import { expectProblem } from './support/problem.js';

// Finding 3: keyed GraphQL queries kept their (large) answers for 24 h, without a cap or a quota.
let t: TestApp;
let token: string;
let userId: string;
let projectId: string;
beforeAll(async () => {
  t = await startTestApp();
  ({ token, id: userId } = t.user('mark'));
  projectId = t.org('acme').projects[0]!.id;
}, 120_000);
afterAll(() => t.close());
// Each test starts with none of mark's keys, so the quota tests see only their own rows.
afterEach(() => t.app.db.prisma.idempotencyKey.deleteMany({ where: { userId } }));

const keyed = (key: string) => ({ 'idempotency-key': `"${key}"` });
const rowsOf = (key: string) => t.app.db.prisma.idempotencyKey.count({ where: { userId, key } });
const gql = (key: string, body: unknown) => t.call('POST', '/api/graphql', { token, body, headers: keyed(key) });
const createMutation = 'mutation Create($input: CreateIssueInput!) { createIssue(input: $input) { __typename } }';

describe('only writes are kept', () => {
  test('a keyed GraphQL query runs each time and writes no row to idempotency_keys', async () => {
    const key = randomUUID();
    const first = await gql(key, { query: '{ issuePriorities }' });
    expect(first.status).toBe(200);
    expect((await first.json()).data.issuePriorities.length).toBeGreaterThan(0);
    // Not a replay, and not "reused" for another query: nothing was kept under the key.
    const other = await gql(key, { query: '{ issueStatuses }' });
    expect(other.status).toBe(200);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(await rowsOf(key)).toBe(0);
  });

  test('the operation that runs decides: a document with a query and a mutation is kept only when the mutation runs', async () => {
    const query = `query Read { issuePriorities } ${createMutation}`;
    const readKey = randomUUID();
    expect((await gql(readKey, { query, operationName: 'Read' })).status).toBe(200);
    expect(await rowsOf(readKey)).toBe(0);
    const writeKey = randomUUID();
    const variables = { input: { projectId, title: `kept ${randomUUID()}` } };
    const write = await gql(writeKey, { query, operationName: 'Create', variables });
    expect((await write.json()).data.createIssue.__typename).toBe('MutationCreateIssueSuccess');
    expect(await rowsOf(writeKey)).toBe(1);
    expect(
      (await gql(writeKey, { query, operationName: 'Create', variables })).headers.get('idempotent-replayed'),
    ).toBe('true');
  });

  test('a keyed REST GET writes no row either', async () => {
    const key = randomUUID();
    expect((await t.call('GET', '/api/issues?limit=1', { token, headers: keyed(key) })).status).toBe(200);
    expect(await rowsOf(key)).toBe(0);
  });
});

describe('the answer cap', () => {
  test('a write whose answer is over the cap is answered once, not kept; its retry is 409 idempotency_answer_too_large and runs nothing', async () => {
    // Eleven issues of 50,000 characters: a mutation that selects their descriptions answers > 512 KiB.
    const description = 'x'.repeat(50_000);
    for (let i = 0; i < 11; i++) {
      expect(
        (
          await t.call('POST', '/api/issues', {
            token,
            body: { project_id: projectId, title: `big ${i}`, description },
          })
        ).status,
      ).toBe(201);
    }
    const query = `mutation($input: CreateIssueInput!) { createIssue(input: $input) {
      ... on MutationCreateIssueSuccess { data { id project { issues(first: 12) { edges { node { description } } } } } } } }`;
    const title = `large answer ${randomUUID()}`;
    const body = { query, variables: { input: { projectId, title } } };
    const key = randomUUID();
    const first = await gql(key, body);
    expect(first.status).toBe(200);
    const text = await first.text();
    expect(Buffer.byteLength(text)).toBeGreaterThan(MAX_ANSWER_BYTES);
    expect(JSON.parse(text).data.createIssue.data.id).toBeTruthy();
    const row = await t.app.db.prisma.idempotencyKey.findFirstOrThrow({ where: { userId, key } });
    expect({ status: row.status, body: row.body, bytes: row.bytes }).toEqual({ status: 200, body: null, bytes: 0 });
    const problem = await expectProblem(await gql(key, body), 409, 'idempotency_answer_too_large');
    expect(problem.detail).toContain('answered 200');
    expect(await t.app.db.prisma.issue.count({ where: { title } })).toBe(1);
  });

  test('the module keeps an answer up to the cap and omits a larger one', async () => {
    const scope = keyScope(
      { kind: 'user', userId, credential: { kind: 'pat', id: 'x' }, org: null, orgBound: false },
      randomUUID(),
    )!;
    const large = { status: 201, headers: {}, body: 'y'.repeat(2_000) };
    expect(
      await idempotent(
        t.app.db.prisma,
        scope,
        'print',
        async () => large,
        () => true,
        { maxAnswerBytes: 1_000 },
      ),
    ).toEqual({ kind: 'fresh', response: large });
    const never = async () => {
      throw new Error('must not run again');
    };
    expect(await idempotent(t.app.db.prisma, scope, 'print', never, () => true)).toEqual({
      kind: 'answer_too_large',
      status: 201,
    });
  });
});

describe('the per-user quota', () => {
  /** Rows of live keys of mark's, as earlier keyed writes would have left them (one statement: 10,000 rows in a blink). */
  async function fill(count: number, bytes: number) {
    await t.app.db.prisma.$executeRaw`
      INSERT INTO idempotency_keys (id, user_id, org_id, key, fingerprint, status, headers, body, bytes, created_at, expires_at)
      SELECT gen_random_uuid(), ${userId}::uuid, ${t.org('acme').id}, 'filler-' || i, 'f', 201, '{}'::jsonb, '', ${bytes},
             now() - i * interval '1 second', now() + interval '24 hours' - i * interval '1 second'
      FROM generate_series(1, ${count}::int) AS i`;
  }
  const create = (key: string | null, title: string) =>
    t.call('POST', '/api/issues', { token, body: { project_id: projectId, title }, headers: key ? keyed(key) : {} });

  test(`at ${MAX_KEYS_PER_USER} live keys a keyed write is 429 idempotency_quota_exceeded and runs nothing; replays and unkeyed writes still work`, async () => {
    const kept = randomUUID();
    const title = `quota ${randomUUID()}`;
    expect((await create(kept, title)).status).toBe(201);
    await fill(MAX_KEYS_PER_USER - 1, 0);
    const refused = await create(randomUUID(), title);
    await expectProblem(refused, 429, 'idempotency_quota_exceeded');
    // Until the oldest filler expires: within a day, at least a second.
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(KEY_TTL_MS / 1000);
    expect(await t.app.db.prisma.issue.count({ where: { title } })).toBe(1);
    expect(await t.app.db.prisma.idempotencyKey.count({ where: { userId } })).toBe(MAX_KEYS_PER_USER);
    expect((await create(kept, title)).headers.get('idempotent-replayed')).toBe('true');
    expect((await create(null, title)).status).toBe(201);
    // Another user has a quota of its own.
    const theirs = await t.call('POST', '/api/issues', {
      token: t.user('maya').token,
      body: { project_id: projectId, title },
      headers: keyed(randomUUID()),
    });
    expect(theirs.status).toBe(201);
  });

  test(`at ${MAX_BYTES_PER_USER} bytes of kept answers a keyed write is 429 too, and so is a keyed MCP create`, async () => {
    await fill(1, MAX_BYTES_PER_USER);
    const title = `bytes quota ${randomUUID()}`;
    await expectProblem(await create(randomUUID(), title), 429, 'idempotency_quota_exceeded');
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'create_issue', arguments: { project_id: projectId, title, idempotency_key: randomUUID() } },
    };
    const mcp = await t.call('POST', '/api/mcp', {
      token,
      body: call,
      headers: { accept: 'application/json, text/event-stream' },
    });
    const { result } = await mcp.json();
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0].text)).toMatchObject({ status: 429, code: 'idempotency_quota_exceeded' });
    expect(await t.app.db.prisma.issue.count({ where: { title } })).toBe(0);
  });
});
