import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { QUERY_LIMITS } from '../src/limits/graphql-query.js';
import { DESCRIPTION_MAX, TITLE_MAX } from '../src/schema/issues/workflow.js';
import { startTestApp, type TestApp } from './support/app.js';

/**
 * Finding 7: queries within the cost limit saturated the process. Twenty concurrent viewer
 * queries of 14 MB answers each stalled another tenant's cheap request for seconds; the cost
 * counted a 50,000-character description as 100 fields' worth, so 400 of them fitted in it.
 */
let t: TestApp;
const ISSUES = 100;
/** The descriptions of the finding: 400 of them made a 14 MB answer. */
const DESCRIPTION_LENGTH = 35_000;

interface GqlBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: { code?: string; [key: string]: unknown } }[];
}

beforeAll(async () => {
  t = await startTestApp();
  const org = t.org('acme');
  const project = await t.app.db.prisma.project.create({
    data: { orgId: org.id, name: 'Big', key: 'BIG', issueCount: ISSUES },
  });
  await t.app.db.prisma.issue.createMany({
    data: Array.from({ length: ISSUES }, (_, i) => ({
      orgId: org.id,
      projectId: project.id,
      number: i + 1,
      title: 'T'.repeat(TITLE_MAX),
      status: 'Todo',
      priority: 'low',
      description: 'd'.repeat(DESCRIPTION_LENGTH),
    })),
  });
});
afterAll(() => t.close());

async function gql(token: string, query: string) {
  const response = await t.call('POST', '/api/graphql', { token, body: { query } });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as GqlBody,
  };
}

const page = (alias: string) => `${alias}: issues(first: 100) { edges { node { description } } }`;
/** One page of 100 descriptions: 3.5 MB here, at most 5 MB. */
const BIG = `{ ${page('a')} }`;

describe('the cost counts text by its length', () => {
  test('finding 7: four pages of descriptions (a 14 MB answer) cost more than the limit and do not run', async () => {
    const { token } = t.user('victor');
    await gql(token, '{ me { id } }');
    const before = t.app.db.queries.count;
    const { body } = await gql(token, `{ ${page('a')} ${page('b')} ${page('c')} ${page('d')} }`);
    expect(t.app.db.queries.count - before).toBe(0);
    expect(body.data).toBeUndefined();
    // 4 x (1 + 100 x (edges 1 + node 1 + description 500)).
    expect(body.errors?.[0]?.extensions).toMatchObject({
      code: 'COST_LIMIT_EXCEEDED',
      cost: 200_804,
      maxCost: QUERY_LIMITS.maxCost,
    });
    expect(body.errors?.[0]?.message).toContain(`a description ${DESCRIPTION_MAX / 100}`);
  });

  test('one page of 100 issues with their descriptions still fits, and answers', async () => {
    const { body } = await gql(t.user('victor').token, BIG);
    expect(body.errors).toBeUndefined();
    expect((body.data as { a: { edges: unknown[] } }).a.edges).toHaveLength(ISSUES);
  });

  test('a title costs by its 255 characters: 3', async () => {
    // 1 + 100 x (edges + node + title 3) = 501 for a key, which has one membership.
    const query = `{ issues(first: 100) { edges { node { title } } } }`;
    const over = `{ ${Array.from({ length: 15 }, (_, i) => `a${i}: projects(first: 9) { issues(first: 100) { edges { node { title } } } }`).join(' ')} }`;
    expect((await gql(t.user('victor').token, query)).body.errors).toBeUndefined();
    // 15 x (1 + 9 x (1 + 100 x 5)) = 67,650: over, where titles costing 1 made 40,650.
    expect((await gql(t.user('victor').token, over)).body.errors?.[0]?.extensions).toMatchObject({
      code: 'COST_LIMIT_EXCEEDED',
      cost: 67_650,
    });
  });
});

describe('expensive executions running at once, per credential', () => {
  /**
   * Holds every statement on the issues table (PostgreSQL: a lock; PGlite, one connection: the
   * transaction itself) until `release` is called, so that executions stay running.
   */
  async function holdIssues() {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const transaction = t.app.db.prisma.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe('LOCK TABLE issues IN ACCESS EXCLUSIVE MODE');
        locked();
        await released;
      },
      { timeout: 30_000 },
    );
    await isLocked;
    return async () => {
      release();
      await transaction;
    };
  }

  test(`finding 7: of 20 concurrent big-answer queries of one key, ${QUERY_LIMITS.expensivePerCredential} run; the others are 429 with Retry-After`, async () => {
    const victor = t.user('victor').token;
    const olivia = t.user('olivia').token;
    // Keys verified once, so that authentication needs no statement while the table is held.
    await gql(victor, '{ me { id } }');
    await gql(olivia, '{ me { id } }');
    const release = await holdIssues();
    const settled: Awaited<ReturnType<typeof gql>>[] = [];
    const all = Array.from({ length: 20 }, async () => {
      const r = await gql(victor, BIG);
      settled.push(r);
      return r;
    });
    const refusedCount = 20 - QUERY_LIMITS.expensivePerCredential;
    await expect.poll(() => settled.length).toBe(refusedCount);
    // Another credential has slots of its own; cheap executions are not counted.
    const other = gql(olivia, BIG);
    const cheap = Array.from({ length: 5 }, () => gql(victor, '{ me { username } }'));
    for (const refused of settled) {
      expect(refused.status).toBe(429);
      expect(refused.retryAfter).toBe('1');
      expect(refused.body.errors?.[0]?.extensions).toEqual({ code: 'RATE_LIMITED', retryAfter: 1 });
      expect(refused.body.errors?.[0]?.message).toContain(
        `already has ${QUERY_LIMITS.expensivePerCredential} GraphQL executions`,
      );
    }
    await release();
    const results = await Promise.all(all);
    expect(results.filter((r) => r.status === 200 && !r.body.errors)).toHaveLength(QUERY_LIMITS.expensivePerCredential);
    expect((await other).body.errors).toBeUndefined();
    expect((await Promise.all(cheap)).map((r) => r.body)).toEqual(
      Array(5).fill({ data: { me: { username: 'victor' } } }),
    );
    // Their slots are free again.
    expect((await gql(victor, BIG)).body.errors).toBeUndefined();
  });
});
