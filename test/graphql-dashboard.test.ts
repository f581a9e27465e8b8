import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

type Result = { data?: Record<string, any> | null; errors?: { message: string; extensions?: { code?: string } }[] };

async function gql(token: string, query: string, variables?: Record<string, unknown>): Promise<Result> {
  const response = await t.call('POST', '/api/graphql', { token, body: { query, variables } });
  expect(response.status).toBe(200);
  return (await response.json()) as Result;
}

const DASHBOARD = `query Dashboard($filter: IssueFilter) {
  issueAggregates(filter: $filter, weeks: 12) {
    total
    byStatus { status count }
    byPriority { priority count }
    byAssignee { assignee { username } count }
    byProject { project { key } count }
    createdPerWeek { weekStart count }
  }
}`;

describe('a dashboard in one request', () => {
  test('counts by status, priority, assignee, project and week, the organization of the key only', async () => {
    const { data, errors } = await gql(t.user('victor').token, DASHBOARD);
    expect(errors).toBeUndefined();
    const stats = data!.issueAggregates;
    // The demo seed: 4 issues in each acme project (globex's issues are not counted).
    expect(stats.total).toBe(8);
    expect(stats.byStatus).toEqual([
      { status: 'BACKLOG', count: 2 },
      { status: 'TODO', count: 2 },
      { status: 'IN_PROGRESS', count: 2 },
      { status: 'IN_REVIEW', count: 0 },
      { status: 'DONE', count: 2 },
      { status: 'CANCELED', count: 0 },
    ]);
    expect(stats.byPriority.map((p: { priority: string }) => p.priority)).toEqual([
      'URGENT',
      'HIGH',
      'MEDIUM',
      'LOW',
      'NONE',
    ]);
    expect(
      stats.byProject.map((p: { project: { key: string }; count: number }) => [p.project.key, p.count]).sort(),
    ).toEqual([
      ['MOB', 4],
      ['WEB', 4],
    ]);
    expect(stats.byAssignee.reduce((sum: number, a: { count: number }) => sum + a.count, 0)).toBe(8);
    expect(stats.createdPerWeek).toHaveLength(12);
    expect(stats.createdPerWeek[11].count).toBe(8);
    const globex = await gql(
      t.user('bella', 'globex').token,
      '{ issueAggregates { total byProject { project { key } count } } }',
    );
    expect(globex.data!.issueAggregates.byProject.map((p: { project: { key: string } }) => p.project.key)).toEqual([
      'RES',
    ]);
  });

  test('completedPerWeek counts the issues moved to Done this week, from the history, under the filter', async () => {
    const member = t.user('mark').token;
    const projectId = t.org('acme').projects[1]!.id;
    const created = await t.call('POST', '/api/issues', {
      token: member,
      body: { project_id: projectId, title: 'To finish', priority: 'low' },
    });
    const issue = (await created.json()) as { id: string };
    const query = 'query($f: IssueFilter) { issueAggregates(filter: $f, weeks: 2) { completedPerWeek { count } } }';
    const thisWeek = async (f?: object) =>
      (await gql(member, query, { f })).data!.issueAggregates.completedPerWeek[1].count as number;
    const before = await thisWeek();
    expect((await t.call('PATCH', `/api/issues/${issue.id}`, { token: member, body: { status: 'Done' } })).status).toBe(
      200,
    );
    expect(await thisWeek()).toBe(before + 1);
    // Moved away and back: still one issue completed this week.
    await t.call('PATCH', `/api/issues/${issue.id}`, { token: member, body: { status: 'Todo' } });
    await t.call('PATCH', `/api/issues/${issue.id}`, { token: member, body: { status: 'Done' } });
    expect(await thisWeek()).toBe(before + 1);
    expect(await thisWeek({ priority: ['URGENT'] })).toBe(0);
    expect(await thisWeek({ title: { equals: 'To finish' } })).toBe(1);
    expect((await gql(t.user('bella', 'globex').token, query)).data!.issueAggregates.completedPerWeek[1].count).toBe(0);
    await t.call('DELETE', `/api/issues/${issue.id}`, { token: t.user('maya').token });
  });

  test("the issue list's filter, with enum values", async () => {
    const { data } = await gql(
      t.user('victor').token,
      'query($f: IssueFilter) { issueAggregates(filter: $f) { total } issues(filter: $f) { totalCount } }',
      {
        f: { or: [{ status: ['DONE'] }, { priority: ['URGENT'] }] },
      },
    );
    expect(data).toEqual({ issueAggregates: { total: 4 }, issues: { totalCount: 4 } });
  });

  test('an unknown enum value is refused before anything runs', async () => {
    const { data, errors } = await gql(
      t.user('victor').token,
      '{ issueAggregates(filter: { status: [DONE, Open] }) { total } }',
    );
    expect(data).toBeUndefined();
    expect(errors![0]!.message).toContain('Open');
  });

  test('input mistakes are reported together, with the field names', async () => {
    const projectId = t.org('globex').projects[0]!.id;
    const { errors } = await gql(t.user('victor').token, `{ issueAggregates(weeks: 0, filter: { q: "" }) { total } }`);
    expect(errors![0]!.extensions).toMatchObject({
      code: 'VALIDATION_FAILED',
      fieldErrors: [{ field: 'filter.q' }, { field: 'weeks' }],
    });
    const foreign = await gql(t.user('victor').token, `{ issueAggregates(projectId: "${projectId}") { total } }`);
    expect(foreign.errors![0]!.extensions!.code).toBe('NOT_FOUND');
  });

  test('groupings not selected are not computed: one statement for the groups, one more for the weeks of creation', async () => {
    const token = t.user('victor').token;
    await gql(token, '{ me { id } }'); // the key is cached from here on
    const statements = async (query: string) => {
      const before = t.app.db.queries.count;
      const { errors } = await gql(token, query);
      expect(errors).toBeUndefined();
      return t.app.db.queries.count - before;
    };
    expect(await statements('{ issueAggregates { total } }')).toBe(1);
    expect(
      await statements(
        '{ issueAggregates { total byStatus { count } ...P } } fragment P on IssueAggregates { byPriority { count } }',
      ),
    ).toBe(1);
    // The weekly counts are their own table (src/schema/issues/aggregates.ts: answeredByCounts).
    expect(
      await statements(
        '{ issueAggregates { total byStatus { count } ...P } } fragment P on IssueAggregates { byPriority { count } n: createdPerWeek { count } }',
      ),
    ).toBe(2);
  });
});

describe('issue connections', () => {
  test('are IssueConnection and IssueEdge, with totalCount of the filtered list', async () => {
    const projectId = t.org('acme').projects[0]!.id;
    const { data } = await gql(
      t.user('victor').token,
      `query($p: ID!) {
        issues(first: 1, filter: { status: [DONE, TODO] }) { __typename totalCount edges { __typename node { status priority } } }
        project(id: $p) { issues(first: 1) { __typename totalCount } }
      }`,
      { p: projectId },
    );
    expect(data!.issues).toMatchObject({
      __typename: 'IssueConnection',
      totalCount: 4,
      edges: [{ __typename: 'IssueEdge' }],
    });
    expect(data!.project.issues).toEqual({ __typename: 'IssueConnection', totalCount: 4 });
  });

  test('totalCount is counted only when selected', async () => {
    const before = t.app.db.queries.count;
    await gql(t.user('victor').token, '{ issues(first: 2) { edges { node { id } } } }');
    const without = t.app.db.queries.count - before;
    const middle = t.app.db.queries.count;
    await gql(t.user('victor').token, '{ issues(first: 2) { totalCount edges { node { id } } } }');
    expect(t.app.db.queries.count - middle).toBe(without + 1);
  });

  test('an empty branch holds for every issue (or: [{}] is everything, not: {} nothing)', async () => {
    const { data } = await gql(
      t.user('victor').token,
      '{ a: issues(filter: { or: [{}] }) { totalCount } b: issues(filter: { not: {} }) { totalCount } }',
    );
    expect(data).toEqual({ a: { totalCount: 8 }, b: { totalCount: 0 } });
  });
});
