import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { KEY_TTL_MS } from '../src/idempotency/key.js';
import { idempotent, keyScope } from '../src/idempotency/run.js';
import { claimKey, deleteExpiredKeys } from '../src/idempotency/store.js';
import { startTestApp, type TestApp } from './support/app.js';
import { expectProblem } from './support/problem.js';

let t: TestApp;
let token: string;
let projectId: string;
beforeAll(async () => {
  t = await startTestApp();
  token = t.user('mark').token;
  projectId = t.org('acme').projects[0]!.id;
});
afterAll(() => t.close());

const createIssue = (key: string | null, body: unknown, as = token, extra: Record<string, string> = {}) =>
  t.call('POST', '/api/issues', {
    token: as,
    body,
    headers: { ...(key === null ? {} : { 'idempotency-key': key }), ...extra },
  });
const issuesTitled = (title: string) => t.app.db.prisma.issue.count({ where: { title } });
const quoted = (key: string) => `"${key}"`;

describe('Idempotency-Key on REST POSTs', () => {
  test('a retry with the same key and body replays the first answer (status, headers, body) without a second write', async () => {
    const title = `retried ${randomUUID()}`;
    const key = quoted(randomUUID());
    const first = await createIssue(key, { project_id: projectId, title });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const firstBody = await first.text();
    for (let i = 0; i < 3; i++) {
      const retry = await createIssue(key, { project_id: projectId, title });
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.headers.get('location')).toBe(first.headers.get('location'));
      expect(retry.headers.get('content-type')).toBe(first.headers.get('content-type'));
      expect(await retry.text()).toBe(firstBody);
      // A fresh request id and rate-limit headers: those describe this request, not the first.
      expect(retry.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
      expect(retry.headers.get('x-ratelimit-remaining')).not.toBeNull();
    }
    expect(await issuesTitled(title)).toBe(1);
  });

  test('a bare (unquoted) key works the same; without a key every POST writes', async () => {
    const title = `bare ${randomUUID()}`;
    const key = randomUUID();
    expect((await createIssue(key, { project_id: projectId, title })).status).toBe(201);
    expect((await createIssue(key, { project_id: projectId, title })).headers.get('idempotent-replayed')).toBe('true');
    expect((await createIssue(null, { project_id: projectId, title })).status).toBe(201);
    expect((await createIssue(null, { project_id: projectId, title })).status).toBe(201);
    expect(await issuesTitled(title)).toBe(3);
  });

  test('the same key with another body or another path is 422, and writes nothing', async () => {
    const title = `reused ${randomUUID()}`;
    const key = quoted(randomUUID());
    expect((await createIssue(key, { project_id: projectId, title })).status).toBe(201);
    await expectProblem(
      await createIssue(key, { project_id: projectId, title: `${title} (changed)` }),
      422,
      'idempotency_key_reused',
    );
    // Another user's key space: maya's key of the same text is hers, not mark's.
    const project = await t.call('POST', '/api/projects', {
      token: t.user('maya').token,
      body: { name: 'Other', key: 'OTH' },
      headers: { 'idempotency-key': key },
    });
    expect(project.status).toBe(201);
    await expectProblem(
      await t.call('POST', '/api/projects', {
        token,
        body: { name: 'Other', key: 'OTHX' },
        headers: { 'idempotency-key': key },
      }),
      422,
      'idempotency_key_reused',
    );
    expect(await issuesTitled(`${title} (changed)`)).toBe(0);
  });

  test('keys are per user and organization: the same key from another user, or from the same user in another org, is another request', async () => {
    const key = quoted(randomUUID());
    const title = `per user ${randomUUID()}`;
    const mine = await createIssue(key, { project_id: projectId, title });
    const theirs = await createIssue(key, { project_id: projectId, title }, t.user('maya').token);
    const globex = t.org('globex').projects[0]!.id;
    const inGlobex = await createIssue(key, { project_id: globex, title }, t.user('mark', 'globex').token);
    for (const response of [mine, theirs, inGlobex]) {
      expect(response.status).toBe(201);
      expect(response.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(await issuesTitled(title)).toBe(3);
  });

  test('concurrent duplicates: exactly one write; the others wait for it (same answer) or are 409', async () => {
    const title = `concurrent ${randomUUID()}`;
    const key = quoted(randomUUID());
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => createIssue(key, { project_id: projectId, title })),
    );
    const created = responses.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    const ids = new Set(await Promise.all(created.map(async (r) => (await r.json()).id)));
    expect(ids.size).toBe(1);
    for (const other of responses.filter((r) => r.status !== 201))
      await expectProblem(other, 409, 'idempotency_key_in_use');
    expect(await issuesTitled(title)).toBe(1);
  });

  test('a client mistake is kept and replayed too; the key stays bound to that body', async () => {
    const key = quoted(randomUUID());
    const first = await expectProblem(
      await createIssue(key, { project_id: projectId, title: '' }),
      400,
      'validation_failed',
    );
    const retry = await createIssue(key, { project_id: projectId, title: '' });
    expect(retry.status).toBe(400);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    // The first answer byte for byte: its request_id names the request that ran.
    const { request_id: requestId, ...replayed } = await retry.json();
    expect(replayed).toEqual(first);
    expect(requestId).not.toBe(retry.headers.get('x-request-id'));
  });

  test('a refusal of the headers (415) is not kept: the retry with the headers fixed runs', async () => {
    const title = `media type ${randomUUID()}`;
    const key = quoted(randomUUID());
    const body = JSON.stringify({ project_id: projectId, title });
    const wrong = await t.call('POST', '/api/issues', {
      token,
      body,
      headers: { 'idempotency-key': key, 'content-type': 'text/plain' },
    });
    expect(wrong.status).toBe(415);
    const fixed = await t.call('POST', '/api/issues', {
      token,
      body,
      headers: { 'idempotency-key': key, 'content-type': 'application/json' },
    });
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
    expect(await issuesTitled(title)).toBe(1);
  });

  test('a malformed key is a 400 and runs nothing', async () => {
    const title = `malformed ${randomUUID()}`;
    for (const key of [
      '""',
      '"a", "b"',
      'a, b',
      'a b',
      '"unterminated',
      'x'.repeat(256),
      '"é"',
      `"${'x'.repeat(256)}"`,
    ]) {
      await expectProblem(await createIssue(key, { project_id: projectId, title }), 400, 'invalid_idempotency_key');
    }
    expect(await issuesTitled(title)).toBe(0);
  });

  test('the header is ignored on methods that are idempotent already', async () => {
    const response = await t.call('GET', '/api/issues?limit=1', {
      token,
      headers: { 'idempotency-key': 'not "valid' },
    });
    expect(response.status).toBe(200);
  });
});

describe('Idempotency-Key on GraphQL', () => {
  const mutation = `mutation($input: CreateIssueInput!) { createIssue(input: $input) { __typename ... on MutationCreateIssueSuccess { data { id title } } } }`;
  const gql = (key: string, title: string) =>
    t.call('POST', '/api/graphql', {
      token,
      body: { query: mutation, variables: { input: { projectId, title } } },
      headers: { 'idempotency-key': key },
    });

  test('createIssue with a key runs once; the retry gets the same result', async () => {
    const title = `graphql ${randomUUID()}`;
    const key = quoted(randomUUID());
    const first = await gql(key, title);
    expect(first.status).toBe(200);
    const body = await first.json();
    expect(body.data.createIssue.__typename).toBe('MutationCreateIssueSuccess');
    const retry = await gql(key, title);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toEqual(body);
    expect(await issuesTitled(title)).toBe(1);
    await expectProblem(await gql(key, `${title}!`), 422, 'idempotency_key_reused');
  });

  test('an answer with top-level errors (nothing ran) is not kept: the retry runs', async () => {
    const key = quoted(randomUUID());
    const broken = await t.call('POST', '/api/graphql', {
      token,
      body: { query: 'mutation { nope }' },
      headers: { 'idempotency-key': key },
    });
    expect((await broken.json()).errors).toBeDefined();
    // The key is free again, so the same key with a corrected document is not "reused".
    const title = `after error ${randomUUID()}`;
    const fixed = await gql(key, title);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
    expect((await fixed.json()).data.createIssue.__typename).toBe('MutationCreateIssueSuccess');
  });
});

describe('the idempotency module', () => {
  const scope = () =>
    keyScope(
      { kind: 'user', userId: randomUUID(), credential: { kind: 'pat', id: 'x' }, org: null, orgBound: false },
      randomUUID(),
    )!;
  const answer = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' };

  test('a duplicate waits for the first request, then gets its answer', async () => {
    const s = scope();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let runs = 0;
    const execute = async () => {
      runs++;
      await gate;
      return answer;
    };
    const first = idempotent(t.app.db.prisma, s, 'print', execute, () => true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = idempotent(t.app.db.prisma, s, 'print', execute, () => true);
    setTimeout(release, 100);
    expect(await first).toEqual({ kind: 'fresh', response: answer });
    expect(await second).toEqual({ kind: 'replay', response: answer });
    expect(runs).toBe(1);
  });

  test('a first request still running past the wait is 409 in_progress; one that never finished is unknown', async () => {
    const s = scope();
    await claimKey(t.app.db.prisma, s, 'print');
    const never = async () => {
      throw new Error('must not run');
    };
    expect(await idempotent(t.app.db.prisma, s, 'print', never, () => true, { waitMs: 50 })).toEqual({
      kind: 'in_progress',
    });
    expect(await idempotent(t.app.db.prisma, s, 'print', never, () => true, { staleMs: 0 })).toEqual({
      kind: 'unknown',
    });
  });

  test('an answer that is not final (and an exception) frees the key for a retry', async () => {
    const s = scope();
    const limited = { ...answer, status: 429 };
    expect(
      await idempotent(
        t.app.db.prisma,
        s,
        'print',
        async () => limited,
        (r) => r.status !== 429,
      ),
    ).toEqual({ kind: 'fresh', response: limited });
    await expect(
      idempotent(
        t.app.db.prisma,
        s,
        'print',
        async () => {
          throw new Error('boom');
        },
        () => true,
      ),
    ).rejects.toThrow('boom');
    expect(
      await idempotent(
        t.app.db.prisma,
        s,
        'print',
        async () => answer,
        () => true,
      ),
    ).toEqual({ kind: 'fresh', response: answer });
  });

  test('expired keys are deleted, and an expired key runs again', async () => {
    const s = scope();
    const past = new Date(Date.now() - KEY_TTL_MS - 1000);
    await claimKey(t.app.db.prisma, s, 'old print', past);
    // The claim of a new request deletes the expired row in its way: not a mismatch.
    expect(
      (
        await idempotent(
          t.app.db.prisma,
          s,
          'print',
          async () => answer,
          () => true,
        )
      ).kind,
    ).toBe('fresh');
    const other = scope();
    await claimKey(t.app.db.prisma, other, 'print', past);
    expect(await deleteExpiredKeys(t.app.db.prisma)).toBeGreaterThanOrEqual(1);
    expect(await t.app.db.prisma.idempotencyKey.count({ where: { userId: other.userId } })).toBe(0);
    expect(await t.app.db.prisma.idempotencyKey.count({ where: { userId: s.userId } })).toBe(1);
  });
});
