import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Principal } from '../src/auth/principal.js';
import type { Context } from '../src/context.js';
import type { Database } from '../src/db/client.js';
import type { Prisma } from '../src/generated/prisma/client.js';
import type { IssueFilterShape } from '../src/schema/issues/filter.js';
import { sqlListCovers } from '../src/schema/issues/list.js';
import { listIssues } from '../src/schema/issues/operations.js';
import { ISSUE_SORT_FIELDS } from '../src/schema/issues/order.js';
import { operatorContext } from '../src/schema/core/operator.js';
import { ISSUE_LABELS_SELECT } from '../src/schema/labels/issue-labels.js';
import { getMe } from '../src/schema/people/user.js';
import { openTestDatabase } from './support/database.js';
import { createWorld, filterArbitrary, issueSpec, resolveAssignees } from './support/issue-world.js';

// The hot reads sent to the driver adapter by hand (src/db/direct-sql.ts) against the Prisma
// queries they stand in for. The issue list is answered by a hand-written statement
// (src/schema/issues/list-sql.ts) when the caller selects only the issue's columns, its
// description and its project's key, and by Prisma's findMany otherwise: both must give the same
// rows, page by page, for every filter, order and cursor. `me` likewise, for its usual columns.

let db: Database;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db.close());

/** What the REST list selects: answered by the statement (the labels by the one statement after it). */
const BY_SQL: Prisma.IssueSelect = {
  description: true,
  project: { select: { key: true } },
  labels: ISSUE_LABELS_SELECT,
};
/** The same and one relation the statement does not load: answered by Prisma. */
const BY_PRISMA: Prisma.IssueSelect = { ...BY_SQL, org: { select: { id: true } } };

function viewerOf(orgId: string): Context {
  const principal: Principal = {
    kind: 'user',
    userId: randomUUID(),
    credential: { kind: 'session', id: randomUUID() },
    org: { id: orgId, role: 'viewer' },
    orgBound: false,
  };
  return { ...operatorContext(db.prisma), principal };
}

interface ListQuery {
  filter: IssueFilterShape | null;
  projectId: string | null;
  orderBy: { field: (typeof ISSUE_SORT_FIELDS)[number]; direction: 'ASC' | 'DESC' | null } | null;
  size: number;
  backwards: boolean;
}

/** Every page of the list in one direction: the rows without what only the Prisma selection has, and each page's info. */
async function pages(ctx: Context, query: ListQuery, select: Prisma.IssueSelect) {
  const out = [];
  let cursor: string | null = null;
  for (let n = 0; n < 100; n++) {
    const paging = query.backwards ? { last: query.size, before: cursor } : { first: query.size, after: cursor };
    const page = await listIssues.call(
      ctx,
      { filter: query.filter, projectId: query.projectId, orderBy: query.orderBy, ...paging },
      { select },
    );
    const { startCursor, endCursor, hasNextPage, hasPreviousPage } = page.pageInfo;
    out.push({
      rows: page.edges.map((edge) => {
        const { org: _org, ...row } = edge!.node as typeof edge.node & { org?: unknown };
        return { ...row, cursor: edge!.cursor };
      }),
      pageInfo: { startCursor, endCursor, hasNextPage, hasPreviousPage },
    });
    const more = query.backwards ? hasPreviousPage : hasNextPage;
    if (!more) return out;
    cursor = (query.backwards ? startCursor : endCursor) ?? null;
  }
  throw new Error('more than 100 pages');
}

const orderArbitrary = fc.option(
  fc.record({
    field: fc.constantFrom(...ISSUE_SORT_FIELDS),
    direction: fc.constantFrom('ASC' as const, 'DESC' as const, null),
  }),
);

describe('the issue list statement', () => {
  test('answers the selections it covers, and leaves relations to Prisma', () => {
    expect(sqlListCovers(BY_SQL)).toBe(true);
    expect(sqlListCovers({})).toBe(true);
    expect(sqlListCovers(BY_PRISMA)).toBe(false);
    expect(sqlListCovers({ assignee: { select: { id: true } } })).toBe(false);
    expect(sqlListCovers({ project: true })).toBe(false);
    expect(sqlListCovers(undefined)).toBe(false);
  });

  test('gives the rows, cursors and page info of the Prisma query, over random issues, filters, orders and pages', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(issueSpec, { minLength: 5, maxLength: 30 }),
        fc.array(
          fc.record({
            filter: fc.option(filterArbitrary()),
            project: fc.option(fc.integer({ min: 0, max: 1 })),
            orderBy: orderArbitrary,
            size: fc.integer({ min: 1, max: 9 }),
            backwards: fc.boolean(),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        async (specs, queries) => {
          const world = await createWorld(db, specs);
          const ctx = viewerOf(world.orgId);
          for (const q of queries) {
            const query: ListQuery = {
              filter: q.filter && resolveAssignees(q.filter, world.userIds),
              projectId: q.project === null ? null : world.projectIds[q.project]!,
              orderBy: q.orderBy,
              size: q.size,
              backwards: q.backwards,
            };
            const bySql = await pages(ctx, query, BY_SQL);
            expect({ query, pages: bySql }).toEqual({ query, pages: await pages(ctx, query, BY_PRISMA) });
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  test("sees only the caller's organization, and a project of another one is not found", async () => {
    const mine = await createWorld(db, [
      {
        project: 0,
        status: 'Todo',
        priority: 'high',
        assignee: 0,
        title: 'mine',
        description: null,
        ageDays: 1,
        updatedAgeDays: 0,
        labels: [],
      },
    ]);
    const theirs = await createWorld(db, [
      {
        project: 0,
        status: 'Todo',
        priority: 'high',
        assignee: 0,
        title: 'theirs',
        description: null,
        ageDays: 1,
        updatedAgeDays: 0,
        labels: [],
      },
    ]);
    const ctx = viewerOf(mine.orgId);
    const page = await listIssues.call(ctx, {}, { select: BY_SQL });
    expect(page.edges.map((e) => e!.node.title)).toEqual(['mine']);
    await expect(listIssues.call(ctx, { projectId: theirs.projectIds[0] }, { select: BY_SQL })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});

describe('the signed-in user statement', () => {
  test('gives the columns Prisma gives, and NOT_FOUND both ways once the user is gone', async () => {
    const world = await createWorld(db, []);
    const ctx = {
      ...viewerOf(world.orgId),
      principal: {
        ...(viewerOf(world.orgId).principal as Extract<Principal, { kind: 'user' }>),
        userId: world.userIds[1]!,
      },
    };
    const columns = { id: true, email: true, name: true, username: true, locale: true } as const;
    const bySql = await getMe.call(ctx, {}, { select: columns });
    const { createdAt, ...byPrisma } = await getMe.call(ctx, {}, { select: { ...columns, createdAt: true } });
    expect(createdAt).toBeInstanceOf(Date);
    expect(bySql).toEqual(byPrisma);
    expect(bySql).toMatchObject({ id: world.userIds[1], name: 'U1' });
    await db.prisma.user.delete({ where: { id: world.userIds[1]! } });
    await expect(getMe.call(ctx, {}, { select: columns })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(getMe.call(ctx, {}, { select: { ...columns, createdAt: true } })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});
