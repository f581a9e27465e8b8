import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as issueOps from '../src/schema/issues/operations.js';
import * as projectOps from '../src/schema/projects/operations.js';
import { operatorContext } from '../src/schema/core/operator.js';
import { startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
let projectId: string;
beforeAll(async () => {
  t = await startTestApp();
  projectId = t.org('acme').projects[0]!.id;
});
afterAll(() => t.close());

const eventsOf = (subjectId: string) =>
  t.app.db.prisma.event.findMany({ where: { subjectId }, orderBy: { seq: 'asc' } });
const json = async (response: Response) => {
  if (response.status >= 300) throw new Error(`${response.status}: ${await response.text()}`);
  return response.json();
};

describe('history rows, written with the change', () => {
  test('REST: create, update, delete of an issue record who, through what, when and each field changed', async () => {
    const mark = t.user('mark');
    const maya = t.user('maya');
    const before = Date.now();
    const issue = await json(
      await t.call('POST', '/api/issues', {
        token: mark.token,
        body: { project_id: projectId, title: 'Audit me', priority: 'high' },
      }),
    );
    await json(
      await t.call('PATCH', `/api/issues/${issue.id}`, {
        token: mark.token,
        body: { status: 'Done', title: 'Audit me', assignee_id: mark.id },
      }),
    );
    expect((await t.call('DELETE', `/api/issues/${issue.key}`, { token: maya.token })).status).toBe(204);

    const events = await eventsOf(issue.id);
    expect(events.map((e) => e.type)).toEqual(['issue.created', 'issue.updated', 'issue.deleted']);
    const patId = (token: string) =>
      t.app.db.prisma.apiKey
        .findFirstOrThrow({ where: { hint: token.slice(-4) }, select: { id: true } })
        .then((k) => k.id);
    expect(events[0]).toMatchObject({
      orgId: t.org('acme').id,
      projectId,
      actorId: mark.id,
      via: 'pat',
      viaId: await patId(mark.token),
      toStatus: 'Backlog',
      changes: [
        { field: 'title', old: null, new: 'Audit me' },
        { field: 'status', old: null, new: 'Backlog' },
        { field: 'priority', old: null, new: 'high' },
      ],
    });
    expect(events[0]!.createdAt.getTime()).toBeGreaterThanOrEqual(before - 5);
    // Only the fields whose values changed: the title was sent unchanged.
    expect(events[1]).toMatchObject({
      toStatus: 'Done',
      changes: [
        { field: 'status', old: 'Backlog', new: 'Done' },
        { field: 'assigneeId', old: null, new: mark.id },
      ],
    });
    // A delete records the last values, each going to null.
    expect(events[2]).toMatchObject({ actorId: maya.id, via: 'pat', toStatus: null });
    expect(events[2]!.changes).toContainEqual({ field: 'status', old: 'Done', new: null });
  });

  test('GraphQL through a session, and the CLI (operator), record their own "via"', async () => {
    const cookie = await t.signIn(t.user('olivia').email);
    const result = await json(
      await t.call('POST', '/api/graphql', {
        headers: { cookie, origin: 'http://localhost:4000' },
        body: {
          query: `mutation { createProject(input: { name: "Events", key: "EVT" }) { ... on MutationCreateProjectSuccess { data { id } } } }`,
        },
      }),
    );
    const id = result.data.createProject.data.id as string;
    expect(await eventsOf(id)).toMatchObject([
      {
        type: 'project.created',
        actorId: t.user('olivia').id,
        via: 'session',
        viaId: null,
        projectId: id,
        changes: [
          { field: 'name', old: null, new: 'Events' },
          { field: 'key', old: null, new: 'EVT' },
        ],
      },
    ]);

    const ctx = operatorContext(t.app.db.prisma, { orgId: t.org('acme').id });
    const issue = await issueOps.createIssue.call(ctx, { projectId: id, title: 'From the console' }, {});
    await issueOps.updateIssue.call(ctx, { id: issue.id, description: 'Now with words' }, {});
    await projectOps.updateProject.call(ctx, { id, name: 'Events!' }, {});
    expect(await eventsOf(issue.id)).toMatchObject([
      { type: 'issue.created', actorId: null, via: 'cli' },
      { type: 'issue.updated', via: 'cli', changes: [{ field: 'description', old: null, new: 'Now with words' }] },
    ]);
    expect((await eventsOf(id)).at(-1)).toMatchObject({
      type: 'project.updated',
      changes: [{ field: 'name', old: 'Events', new: 'Events!' }],
    });

    // Deleting the project with its issues records each issue's delete, then the project's.
    await projectOps.deleteProject.call(ctx, { id, force: true }, undefined);
    expect((await eventsOf(issue.id)).at(-1)).toMatchObject({ type: 'issue.deleted', via: 'cli' });
    expect((await eventsOf(id)).at(-1)).toMatchObject({ type: 'project.deleted' });
  });

  test('refused writes and writes that change nothing record nothing', async () => {
    const count = () => t.app.db.prisma.event.count();
    const start = await count();
    const victor = t.user('victor').token;
    const mark = t.user('mark').token;
    // Viewer may not write; invalid input; unknown issue; member may not delete; conflict on a project key.
    expect(
      (await t.call('POST', '/api/issues', { token: victor, body: { project_id: projectId, title: 'no' } })).status,
    ).toBe(403);
    expect(
      (await t.call('POST', '/api/issues', { token: mark, body: { project_id: projectId, title: '' } })).status,
    ).toBe(400);
    expect(
      (await t.call('PATCH', '/api/issues/00000000-0000-4000-8000-000000000000', { token: mark, body: { title: 'x' } }))
        .status,
    ).toBe(404);
    const created = await json(
      await t.call('POST', '/api/issues', { token: mark, body: { project_id: projectId, title: 'Keep' } }),
    );
    expect(await count()).toBe(start + 1);
    expect((await t.call('DELETE', `/api/issues/${created.id}`, { token: mark })).status).toBe(403);
    const maya = t.user('maya').token;
    const [first, second] = await t.app.db.prisma.project.findMany({ where: { orgId: t.org('acme').id }, take: 2 });
    const ctx = operatorContext(t.app.db.prisma, { orgId: t.org('acme').id });
    await expect(projectOps.updateProject.call(ctx, { id: second!.id, key: first!.key }, {})).rejects.toThrow(
      /already has the key/,
    );
    // An assignee who is not a member is refused before anything is written.
    expect(
      (
        await t.call('PATCH', `/api/issues/${created.id}`, {
          token: mark,
          body: { assignee_id: t.user('bella', 'globex').id },
        })
      ).status,
    ).toBe(400);
    // Sending the current values changes nothing, so nothing is recorded.
    expect(
      (await t.call('PATCH', `/api/issues/${created.id}`, { token: mark, body: { title: 'Keep', status: 'Backlog' } }))
        .status,
    ).toBe(200);
    expect(await count()).toBe(start + 1);
    // A project with issues, deleted without force, is a conflict: no event, issue still there.
    expect((await t.call('DELETE', `/api/projects/${projectId}`, { token: maya })).status).toBe(409);
    expect(await count()).toBe(start + 1);
  });

  test('"moved to Done per week" is kept from the history: one row per issue and week, read through its index', async () => {
    const prisma = t.app.db.prisma;
    const orgId = t.org('acme').id;
    const mark = t.user('mark');
    const issue = await json(
      await t.call('POST', '/api/issues', { token: mark.token, body: { project_id: projectId, title: 'Done twice' } }),
    );
    for (const status of ['Done', 'Todo', 'Done'])
      await json(await t.call('PATCH', `/api/issues/${issue.id}`, { token: mark.token, body: { status } }));
    expect(await prisma.issueCompletion.count({ where: { issueId: issue.id } })).toBe(1);
    // What the dashboard means by it: issues (still there) moved to Done, once per week.
    const [done] = await prisma.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(DISTINCT (subject_id, date_trunc('week', created_at, 'UTC')))::int AS n FROM events e
        WHERE org_id = $1::uuid AND to_status = 'Done' AND EXISTS (SELECT 1 FROM issues WHERE id = e.subject_id)`,
      orgId,
    );
    expect(done!.n).toBeGreaterThanOrEqual(1);
    expect(await prisma.issueCompletion.count({ where: { orgId } })).toBe(done!.n);
    // The weekly count reads the organization's recent rows through (org_id, week), not the table
    // (with so few rows the planner would pick a sequential scan; one transaction keeps the SET
    // and the EXPLAIN on one connection).
    const [, plan] = await prisma.$transaction([
      prisma.$executeRawUnsafe('SET LOCAL enable_seqscan = off'),
      prisma.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(
        `EXPLAIN SELECT week, count(*) FROM issue_completions WHERE org_id = $1::uuid AND week >= now() - interval '12 weeks' GROUP BY week`,
        orgId,
      ),
    ]);
    expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/issue_completions_org_id_week_project_id_idx/);
  });
});
