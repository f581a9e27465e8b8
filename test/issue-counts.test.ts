import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Database } from '../src/db/client.js';
import { aggregateIssues } from '../src/schema/issues/aggregates.js';
import { createIssue, deleteIssue, updateIssue } from '../src/schema/issues/operations.js';
import { operatorContext } from '../src/schema/core/operator.js';
import { deleteProject } from '../src/schema/projects/operations.js';
import { ISSUE_PRIORITIES, ISSUE_STATUSES } from '../src/schema/issues/workflow.js';
import { openTestDatabase } from './support/database.js';

// The counts the database keeps for the dashboards (issue_counts, issue_week_counts: triggers of
// the issue_counts migration) against a GROUP BY over the issues themselves, after every kind of
// write: the operations, bulk statements, cascades, and concurrent moves.

let db: Database;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db.close());

async function world() {
  const suffix = randomUUID().slice(0, 8);
  const org = await db.prisma.organization.create({ data: { name: `Org ${suffix}`, slug: `org-${suffix}` } });
  const projects = [];
  for (const key of ['AA', 'BB'])
    projects.push(await db.prisma.project.create({ data: { orgId: org.id, name: key, key } }));
  const users = [];
  for (let i = 0; i < 3; i++) {
    const user = await db.prisma.user.create({
      data: { email: `u${i}-${suffix}@example.com`, name: `U${i}`, username: `u${i}-${suffix}` },
    });
    await db.prisma.membership.create({ data: { orgId: org.id, userId: user.id, role: 'member' } });
    users.push(user);
  }
  return {
    orgId: org.id,
    projectIds: projects.map((p) => p.id),
    userIds: users.map((u) => u.id),
    ctx: operatorContext(db.prisma, { orgId: org.id }),
  };
}

/** The kept counts and the counts of the issues, as comparable sorted lists. */
async function keptAndActual(orgId: string) {
  const groups = (sql: string) => db.prisma.$queryRawUnsafe<Record<string, unknown>[]>(sql, orgId);
  const key = "project_id::text || '/' || status || '/' || priority || '/' || coalesce(assignee_id::text, '-')";
  const week = "project_id::text || '/' || to_char(week AT TIME ZONE 'UTC', 'YYYY-MM-DD')";
  return {
    kept: {
      groups: await groups(`SELECT ${key} AS key, count FROM issue_counts WHERE org_id = $1::uuid ORDER BY 1`),
      weeks: await groups(`SELECT ${week} AS key, count FROM issue_week_counts WHERE org_id = $1::uuid ORDER BY 1`),
    },
    actual: {
      groups: await groups(
        `SELECT ${key} AS key, count(*)::int AS count FROM issues WHERE org_id = $1::uuid GROUP BY 1 ORDER BY 1`,
      ),
      weeks: await groups(
        `SELECT ${week} AS key, count(*)::int AS count FROM (SELECT project_id, date_trunc('week', created_at, 'UTC') AS week FROM issues WHERE org_id = $1::uuid) i GROUP BY 1 ORDER BY 1`,
      ),
    },
  };
}

async function expectExact(orgId: string) {
  const { kept, actual } = await keptAndActual(orgId);
  expect(kept).toEqual(actual);
  return kept;
}

const pick = <T>(list: readonly T[], n: number) => list[n % list.length]!;

describe('the issue counts kept by the database', () => {
  test('follow creates, moves, reassignments, edits and deletes through the operations', async () => {
    const w = await world();
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) {
      const input = {
        projectId: pick(w.projectIds, i),
        title: `Issue ${i}`,
        status: pick(ISSUE_STATUSES, i),
        priority: pick(ISSUE_PRIORITIES, i),
        assigneeId: i % 4 === 0 ? null : pick(w.userIds, i),
      };
      ids.push((await createIssue.call(w.ctx, input, {})).id);
    }
    await expectExact(w.orgId);
    for (let i = 0; i < ids.length; i += 2) {
      await updateIssue.call(
        w.ctx,
        {
          id: ids[i]!,
          status: pick(ISSUE_STATUSES, i + 3),
          priority: pick(ISSUE_PRIORITIES, i + 1),
          assigneeId: i % 3 ? null : pick(w.userIds, i + 1),
        },
        {},
      );
    }
    // An edit of other fields changes no group.
    await updateIssue.call(w.ctx, { id: ids[1]!, title: 'Renamed', description: 'Words' }, {});
    for (const id of ids.slice(0, 5)) await deleteIssue.call(w.ctx, { id }, undefined);
    const kept = await expectExact(w.orgId);
    // Only groups with issues have a row.
    expect(kept.groups.every((g) => (g.count as number) > 0)).toBe(true);
    expect(kept.groups.length).toBeGreaterThan(0);
  });

  test('follow bulk statements, and empty out with a deleted project or organization', async () => {
    const w = await world();
    const weeksAgo = (n: number) => new Date(Date.now() - n * 7 * 24 * 3600 * 1000);
    await db.prisma.issue.createMany({
      data: Array.from({ length: 60 }, (_, i) => ({
        orgId: w.orgId,
        projectId: pick(w.projectIds, i),
        number: i + 1,
        title: `Bulk ${i}`,
        status: pick(ISSUE_STATUSES, i),
        priority: pick(ISSUE_PRIORITIES, i * 7),
        assigneeId: i % 5 === 0 ? null : pick(w.userIds, i),
        createdAt: weeksAgo(i % 9),
      })),
    });
    await expectExact(w.orgId);
    // One statement moving many issues between groups, both ways at once.
    await db.prisma.$executeRawUnsafe(
      `UPDATE issues SET status = CASE WHEN status = 'Done' THEN 'Todo' ELSE 'Done' END, assignee_id = NULL WHERE org_id = $1::uuid AND number % 3 = 0`,
      w.orgId,
    );
    await db.prisma.issue.updateMany({
      where: { orgId: w.orgId, number: { lt: 10 } },
      data: { createdAt: weeksAgo(30) },
    });
    await expectExact(w.orgId);
    await deleteProject.call(w.ctx, { id: w.projectIds[0]!, force: true }, undefined);
    const kept = await expectExact(w.orgId);
    expect(kept.groups.length).toBeGreaterThan(0);
    await db.prisma.organization.delete({ where: { id: w.orgId } });
    expect(await keptAndActual(w.orgId)).toEqual({
      kept: { groups: [], weeks: [] },
      actual: { groups: [], weeks: [] },
    });
  });

  test('stay exact under concurrent moves between the same groups, in both directions', async () => {
    const w = await world();
    const projectId = w.projectIds[0]!;
    await db.prisma.issue.createMany({
      data: Array.from({ length: 40 }, (_, i) => ({
        orgId: w.orgId,
        projectId,
        number: i + 1,
        title: `C${i}`,
        status: i % 2 ? 'Todo' : 'Done',
        priority: 'high',
      })),
    });
    const issues = await db.prisma.issue.findMany({ where: { orgId: w.orgId }, select: { id: true, status: true } });
    // Every issue flips at once: half of the statements move Todo -> Done, half Done -> Todo, each
    // in its own transaction (PostgreSQL: separate connections; a deadlock would fail one).
    const results = await Promise.allSettled(
      issues.map((issue) =>
        db.prisma.$executeRawUnsafe(
          `UPDATE issues SET status = $2 WHERE id = $1::uuid`,
          issue.id,
          issue.status === 'Todo' ? 'Done' : 'Todo',
        ),
      ),
    );
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const kept = await expectExact(w.orgId);
    expect(kept.groups.map((g) => g.count)).toEqual([20, 20]);
    // And through the operations, each a transaction with its history row.
    await Promise.all(
      issues.map((issue, i) =>
        updateIssue.call(w.ctx, { id: issue.id, status: i % 2 ? 'In Progress' : 'Backlog' }, {}),
      ),
    );
    await expectExact(w.orgId);
  });

  test('count an issue completed once in a week however often it reached Done, and not once deleted', async () => {
    const w = await world();
    const completedThisWeek = async () =>
      (await aggregateIssues.call(w.ctx, { groupBy: ['completedWeek'], weeks: 1 }, undefined)).completedPerWeek![0]!
        .count;
    const a = await createIssue.call(w.ctx, { projectId: w.projectIds[0]!, title: 'Twice done' }, {});
    const b = await createIssue.call(w.ctx, { projectId: w.projectIds[1]!, title: 'Born done', status: 'Done' }, {});
    for (const status of ['Done', 'Todo', 'Done'] as const) await updateIssue.call(w.ctx, { id: a.id, status }, {});
    expect(await completedThisWeek()).toBe(2);
    expect(await db.prisma.issueCompletion.count({ where: { orgId: w.orgId } })).toBe(2);
    // Under a filter, the issues as they are now: b is Done, a is Done.
    expect(
      (
        await aggregateIssues.call(
          w.ctx,
          { filter: { not: { status: ['Done'] } }, groupBy: ['completedWeek'], weeks: 1 },
          undefined,
        )
      ).completedPerWeek![0]!.count,
    ).toBe(0);
    await deleteIssue.call(w.ctx, { id: b.id }, undefined);
    expect(await completedThisWeek()).toBe(1);
  });
});
