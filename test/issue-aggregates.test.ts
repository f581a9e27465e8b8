import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Principal } from '../src/auth/principal.js';
import type { Context } from '../src/context.js';
import type { Database } from '../src/db/client.js';
import {
  aggregateIssues,
  answeredByCounts,
  ISSUE_GROUPINGS,
  weekStartOf,
  type IssueAggregates,
} from '../src/schema/issues/aggregates.js';
import type { IssueFilterShape } from '../src/schema/issues/filter.js';
import { listIssues } from '../src/schema/issues/operations.js';
import { operatorContext } from '../src/schema/core/operator.js';
import { ISSUE_PRIORITIES, ISSUE_STATUSES } from '../src/schema/issues/workflow.js';
import { openTestDatabase } from './support/database.js';
import { createWorld, DAY, filterArbitrary, issueSpec, NOW, resolveAssignees, WEEKS } from './support/issue-world.js';

let db: Database;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db.close());

// The groupings over the issues' own columns; completedWeek (from the history) is tested through the API.
const ISSUE_COLUMNS_GROUPINGS = ISSUE_GROUPINGS.filter((g) => g !== 'completedWeek');
// Without the weeks, a filter on status, priority and assignee alone is answered from the counts
// the database keeps (issue_counts); with them, by counting the issues. Both must agree with the list.
const GROUP_GROUPINGS = ISSUE_COLUMNS_GROUPINGS.filter((g) => g !== 'createdWeek');
let answeredFromCounts = 0;

/** The aggregates of `filter` both ways (every grouping, and without the weeks), checked against the paged rows. */
async function checkBothWays(ctx: Context, filter: IssueFilterShape, projectId: string | null) {
  const input = { filter, projectId, groupBy: ISSUE_COLUMNS_GROUPINGS, weeks: WEEKS };
  const aggregates = await aggregateIssues.call(ctx, input, undefined);
  const expected = countRows(
    await pageThrough(ctx, filter, projectId),
    aggregates.createdPerWeek!.map((w) => w.weekStart),
  );
  expect({ filter, aggregates }).toEqual({ filter, aggregates: expected });
  if (answeredByCounts({ ...input, groupBy: GROUP_GROUPINGS }, GROUP_GROUPINGS)) answeredFromCounts++;
  const groups = await aggregateIssues.call(ctx, { ...input, groupBy: GROUP_GROUPINGS }, undefined);
  const { createdPerWeek: _weeks, ...expectedGroups } = expected;
  expect({ filter, groups }).toEqual({ filter, groups: expectedGroups });
}
/** Every issue the list returns for `filter`, page after page of the smallest size that makes paging matter. */
async function pageThrough(ctx: Context, filter: IssueFilterShape, projectId: string | null) {
  const rows = [];
  let after: string | null = null;
  for (;;) {
    const page = await listIssues.call(ctx, { filter, projectId, first: 7, after }, {});
    rows.push(...page.edges.map((edge) => edge!.node));
    if (!page.pageInfo.hasNextPage) return rows;
    after = page.pageInfo.endCursor ?? null;
  }
}

/** The aggregates computed from the paged rows, in the operation's shape. */
function countRows(rows: Awaited<ReturnType<typeof pageThrough>>, weekStarts: Date[]): IssueAggregates {
  const tally = <K>(key: (row: (typeof rows)[number]) => K) => {
    const counts = new Map<K, number>();
    for (const row of rows) counts.set(key(row), (counts.get(key(row)) ?? 0) + 1);
    return counts;
  };
  const sorted = <T extends { count: number }>(list: T[], id: (item: T) => string | null) =>
    list.sort((a, b) => b.count - a.count || (id(a) ?? '').localeCompare(id(b) ?? ''));
  const statuses = tally((r) => r.status);
  const priorities = tally((r) => r.priority);
  const weeks = tally((r) => weekStartOf(r.createdAt).getTime());
  return {
    total: rows.length,
    byStatus: ISSUE_STATUSES.map((status) => ({ status, count: statuses.get(status) ?? 0 })),
    byPriority: ISSUE_PRIORITIES.map((priority) => ({ priority, count: priorities.get(priority) ?? 0 })),
    byAssignee: sorted(
      [...tally((r) => r.assigneeId)].map(([assigneeId, count]) => ({ assigneeId, count })),
      (a) => a.assigneeId,
    ),
    byProject: sorted(
      [...tally((r) => r.projectId)].map(([projectId, count]) => ({ projectId, count })),
      (p) => p.projectId,
    ),
    createdPerWeek: weekStarts.map((weekStart) => ({ weekStart, count: weeks.get(weekStart.getTime()) ?? 0 })),
  };
}

function userContext(orgId: string | null, role: 'viewer' | 'member' = 'viewer'): Context {
  const principal: Principal = {
    kind: 'user',
    userId: randomUUID(),
    credential: { kind: 'session', id: randomUUID() },
    org: orgId ? { id: orgId, role } : null,
    orgBound: false,
  };
  return { ...operatorContext(db.prisma), principal };
}

describe('issue aggregates', () => {
  test('equal the counts obtained by paging through the list, over random issues and filters', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(issueSpec, { minLength: 10, maxLength: 40 }),
        // Several filters over each world: worlds cost inserts, filters only reads.
        fc.array(fc.tuple(filterArbitrary(), fc.option(fc.integer({ min: 0, max: 1 }))), {
          minLength: 1,
          maxLength: 8,
        }),
        async (specs, queries) => {
          const world = await createWorld(db, specs);
          for (const [anyFilter, projectIndex] of queries) {
            const filter = resolveAssignees(anyFilter, world.userIds);
            const projectId = projectIndex === null ? null : world.projectIds[projectIndex]!;
            await checkBothWays(userContext(world.orgId), filter, projectId);
          }
        },
      ),
      { numRuns: 60 },
    );
    // Both ways ran: the random filters include ones on status, priority and assignee alone.
    expect(answeredFromCounts).toBeGreaterThan(20);
  });

  test('equal the paged counts for each filter field alone, on one fixed world (what the random filters may miss)', async () => {
    const specs = fc.sample(fc.array(issueSpec, { minLength: 40, maxLength: 40 }), { seed: 18, numRuns: 1 })[0]!;
    const world = await createWorld(db, specs);
    const at = (days: number) => new Date(NOW - days * DAY);
    const filters: IssueFilterShape[] = [
      { status: ['Todo', 'Done'] },
      { status: [] },
      { priority: ['urgent'] },
      { assigneeId: 'none' },
      { assigneeId: '@1' },
      { q: 'login' },
      { q: '%' },
      { q: '_' },
      { q: 'slash' },
      { title: { equals: 'login' } },
      { title: { contains: 'OG' } },
      { title: { startsWith: 'log' } },
      { number: { eq: 5 } },
      { number: { gt: 5 } },
      { number: { gte: 5 } },
      { number: { lt: 5 } },
      { number: { lte: 5 } },
      { number: { in: [1, 2, 40] } },
      { number: { in: [] } },
      { number: {} },
      { createdAfter: at(30) },
      { createdBefore: at(30) },
      { updatedAfter: at(10) },
      { updatedBefore: at(10) },
      { and: [] },
      { or: [] },
      { or: [{}] },
      { not: {} },
      { and: [{}] },
      { not: { or: [{ and: [{}] }] } },
      { not: { assigneeId: '@1' } },
      { not: { q: 'login' } },
      { or: [{ status: ['Todo'] }, { priority: ['low'] }] },
    ];
    const ctx = userContext(world.orgId);
    for (const anyFilter of filters) await checkBothWays(ctx, resolveAssignees(anyFilter, world.userIds), null);
  });

  test('the weekly series ends with the current week and counts only its weeks', async () => {
    const world = await createWorld(db, [
      {
        project: 0,
        status: 'Todo',
        priority: 'high',
        assignee: null,
        title: 'a',
        description: null,
        ageDays: 0,
        updatedAgeDays: 0,
        labels: [],
      },
      {
        project: 0,
        status: 'Todo',
        priority: 'high',
        assignee: null,
        title: 'b',
        description: null,
        ageDays: 400,
        updatedAgeDays: 0,
        labels: [],
      },
    ]);
    const result = await aggregateIssues.call(
      userContext(world.orgId),
      { groupBy: ['createdWeek'], weeks: 3 },
      undefined,
    );
    expect(result.total).toBe(2);
    expect(result.createdPerWeek!.map((w) => w.count)).toEqual([0, 0, 1]);
    expect(result.createdPerWeek![2]!.weekStart).toEqual(weekStartOf(new Date()));
    expect(result.createdPerWeek![2]!.weekStart.getUTCDay()).toBe(1);
  });

  test("see nothing of another organization, and take the list's rules", async () => {
    const mine = await createWorld(db, [
      {
        project: 0,
        status: 'Todo',
        priority: 'high',
        assignee: 0,
        title: 'a',
        description: null,
        ageDays: 1,
        updatedAgeDays: 0,
        labels: [],
      },
    ]);
    const theirs = await createWorld(db, [
      {
        project: 1,
        status: 'Done',
        priority: 'low',
        assignee: 1,
        title: 'b',
        description: null,
        ageDays: 1,
        updatedAgeDays: 0,
        labels: [],
      },
    ]);
    const ctx = userContext(mine.orgId);
    const result = await aggregateIssues.call(ctx, { groupBy: ['status', 'assignee', 'project'] }, undefined);
    expect(result.total).toBe(1);
    expect(result.byAssignee).toEqual([{ assigneeId: mine.userIds[0], count: 1 }]);
    expect(result.byProject).toEqual([{ projectId: mine.projectIds[0], count: 1 }]);
    // Their project, named by id, is as unknown as a missing one.
    await expect(aggregateIssues.call(ctx, { projectId: theirs.projectIds[1] }, undefined)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    // Their assignee's id filters to nothing.
    expect((await aggregateIssues.call(ctx, { filter: { assigneeId: theirs.userIds[1] } }, undefined)).total).toBe(0);
    await expect(aggregateIssues.call(userContext(null), {}, undefined)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  test('refuse bad input with every mistake at once', async () => {
    const ctx = userContext(randomUUID());
    await expect(
      aggregateIssues.call(
        ctx,
        { groupBy: ['colour'], weeks: 0, filter: { status: ['Open'] }, projectId: 'x' },
        undefined,
      ),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      fieldErrors: expect.arrayContaining([
        expect.objectContaining({ field: 'groupBy.0' }),
        expect.objectContaining({ field: 'weeks', message: 'must be between 1 and 104' }),
        expect.objectContaining({ field: 'filter.status' }),
        expect.objectContaining({ field: 'projectId' }),
      ]),
    });
  });
});
