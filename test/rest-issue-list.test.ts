import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ISSUE_PRIORITIES, ISSUE_STATUSES } from '../src/schema/issues/workflow.js';
import { startTestApp, type TestApp } from './support/app.js';
import { fieldErrors } from './support/problem.js';

let t: TestApp;
let token: string;
let projectId: string;

interface Row {
  id: string;
  key: string;
  title: string;
  status: string;
  priority: string;
  description: string | null;
  assignee_id: string | null;
  created_at: string;
  updated_at: string;
}
let rows: Row[];

const BASE = Date.parse('2025-03-01T00:00:00.000Z');
const at = (seconds: number) => new Date(BASE + seconds * 1000);
const COUNT = 60;

beforeAll(async () => {
  t = await startTestApp();
  token = t.user('mark').token;
  const orgId = t.org('acme').id;
  const project = await t.app.db.prisma.project.create({
    data: { orgId, name: 'Filters', key: 'FLT', issueCount: COUNT },
  });
  projectId = project.id;
  const assignees = [t.user('mark').id, t.user('victor').id, null];
  await t.app.db.prisma.issue.createMany({
    data: Array.from({ length: COUNT }, (_, i) => ({
      orgId,
      projectId,
      number: i + 1,
      // Titles repeat (ties on title) and sort the same in every collation.
      title: `Title ${String(i % 20).padStart(2, '0')}${i % 9 === 0 ? ' Needle' : ''}${i === 7 ? ' 100% done' : ''}${i === 8 ? ' snake_case' : ''}`,
      status: ISSUE_STATUSES[i % ISSUE_STATUSES.length]!,
      priority: ISSUE_PRIORITIES[(i * 3) % ISSUE_PRIORITIES.length]!,
      description: i % 10 === 5 ? 'Hidden NEEDLE in the description.' : i % 4 === 0 ? null : 'Plain text.',
      assigneeId: assignees[i % 3],
      // Pairs share a creation time, and update times repeat, so the tie-breaks are exercised.
      createdAt: at(Math.floor(i / 2) * 10),
      updatedAt: at(1000 + ((i * 7) % 30) * 10),
    })),
  });
  const all = await t.call('GET', `/api/issues?project_id=${projectId}&limit=100`, { token });
  rows = await all.json();
  expect(rows).toHaveLength(COUNT);
});
afterAll(() => t.close());

const list = (query: string, as = token) =>
  t.call('GET', `/api/issues?project_id=${projectId}&${query}`, { token: as });
const ids = (items: { id: string }[]) => items.map((i) => i.id);
const sorted = (items: string[]) => [...items].sort();

async function listed(query: string): Promise<Row[]> {
  const response = await list(`limit=100&${query}`);
  expect(response.status).toBe(200);
  return response.json();
}

/** Follows the Link headers from the first page to the last. */
async function walk(query: string): Promise<{ items: Row[]; pages: number }> {
  let url: string | null = `/api/issues?project_id=${projectId}&${query}`;
  const items: Row[] = [];
  let pages = 0;
  while (url) {
    const response = await t.call('GET', url, { token });
    expect(response.status).toBe(200);
    items.push(...(await response.json()));
    pages++;
    const next = response.headers.get('link')?.match(/^<([^>]+)>; rel="next"$/)?.[1];
    url = next ? next.replace('http://localhost:4000', '') : null;
    expect(pages).toBeLessThan(100);
  }
  return { items, pages };
}

const rank = (list: readonly string[]) => (value: string) => list.indexOf(value);
const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
const newestFirst = (a: Row, b: Row) => cmp(b.created_at, a.created_at) || cmp(b.id, a.id);

/** The documented order of each sort, written out independently of the implementation. */
const ORDERS: Record<string, (dir: 1 | -1) => (a: Row, b: Row) => number> = {
  created_at: (d) => (a, b) => d * (cmp(a.created_at, b.created_at) || cmp(a.id, b.id)),
  updated_at: (d) => (a, b) => d * (cmp(a.updated_at, b.updated_at) || cmp(a.id, b.id)),
  title: (d) => (a, b) => d * (cmp(a.title, b.title) || cmp(a.id, b.id)),
  priority: (d) => (a, b) =>
    d * cmp(rank(ISSUE_PRIORITIES)(a.priority), rank(ISSUE_PRIORITIES)(b.priority)) || newestFirst(a, b),
  status: (d) => (a, b) => d * cmp(rank(ISSUE_STATUSES)(a.status), rank(ISSUE_STATUSES)(b.status)) || newestFirst(a, b),
};

describe('filters', () => {
  test('status and priority: one value, repeated, or comma-separated', async () => {
    const todo = await listed('status=Todo');
    expect(sorted(ids(todo))).toEqual(sorted(ids(rows.filter((r) => r.status === 'Todo'))));
    expect(todo.length).toBe(10);
    const two = rows.filter((r) => ['Todo', 'In Progress'].includes(r.status));
    expect(sorted(ids(await listed('status=Todo&status=In%20Progress')))).toEqual(sorted(ids(two)));
    expect(sorted(ids(await listed('status=Todo,In%20Progress')))).toEqual(sorted(ids(two)));
    const urgentOrLow = rows.filter((r) => ['urgent', 'low'].includes(r.priority));
    expect(sorted(ids(await listed('priority=urgent,low')))).toEqual(sorted(ids(urgentOrLow)));
    const both = rows.filter((r) => r.status === 'Done' && r.priority === 'high');
    expect(both.length).toBeGreaterThan(0);
    expect(sorted(ids(await listed('status=Done&priority=high')))).toEqual(sorted(ids(both)));
  });

  test('assignee_id: a user id, or none for unassigned', async () => {
    const victor = t.user('victor').id;
    expect(sorted(ids(await listed(`assignee_id=${victor}`)))).toEqual(
      sorted(ids(rows.filter((r) => r.assignee_id === victor))),
    );
    const none = await listed('assignee_id=none');
    expect(none.length).toBe(COUNT / 3);
    expect(none.every((r) => r.assignee_id === null)).toBe(true);
  });

  test('q: case-insensitive substring of title or description; % and _ match only themselves', async () => {
    const needle = rows.filter((r) => /needle/i.test(r.title) || /needle/i.test(r.description ?? ''));
    expect(needle.some((r) => !/needle/i.test(r.title))).toBe(true);
    expect(sorted(ids(await listed('q=nEeDlE')))).toEqual(sorted(ids(needle)));
    expect((await listed('q=100%25')).map((r) => r.title)).toEqual(['Title 07 100% done']);
    expect((await listed('q=%25')).map((r) => r.title)).toEqual(['Title 07 100% done']);
    expect((await listed('q=_')).map((r) => r.title)).toEqual(['Title 08 snake_case']);
    expect(await listed('q=zzz-nothing')).toEqual([]);
  });

  test('created_after / created_before and updated_after / updated_before are strict bounds', async () => {
    const from = at(100).toISOString();
    const to = at(200).toISOString();
    const created = rows.filter((r) => r.created_at > from && r.created_at < to);
    expect(created.length).toBe(18);
    expect(sorted(ids(await listed(`created_after=${from}&created_before=${to}`)))).toEqual(sorted(ids(created)));
    const updatedFrom = at(1100).toISOString();
    const updated = rows.filter((r) => r.updated_at > updatedFrom);
    expect(sorted(ids(await listed(`updated_after=${updatedFrom}`)))).toEqual(sorted(ids(updated)));
    const early = rows.filter((r) => r.updated_at < at(1050).toISOString());
    expect(sorted(ids(await listed(`updated_before=${encodeURIComponent('2025-03-01T00:17:30+00:00')}`)))).toEqual(
      sorted(ids(early)),
    );
    // A date alone is midnight UTC.
    expect(await listed('created_before=2025-03-01')).toEqual([]);
    expect(await listed('created_after=2025-03-02')).toEqual([]);
  });

  test('every filter at once', async () => {
    const mark = t.user('mark').id;
    const expected = rows.filter(
      (r) =>
        ['Backlog', 'Done'].includes(r.status) &&
        r.assignee_id === mark &&
        /title/i.test(r.title) &&
        r.created_at > at(0).toISOString(),
    );
    expect(expected.length).toBeGreaterThan(1);
    const got = await listed(`status=Backlog,Done&assignee_id=${mark}&q=TITLE&created_after=${at(0).toISOString()}`);
    expect(sorted(ids(got))).toEqual(sorted(ids(expected)));
  });

  test('bad values are a 400 listing every bad field', async () => {
    const errors = await fieldErrors(
      await list(
        'status=Todo,Blocked&priority=P0&assignee_id=bob&created_after=yesterday&updated_before=2026-02-30&created_before=2026-01-01T10:00:00&sort=size&direction=up',
      ),
    );
    expect(errors).toEqual(
      expect.arrayContaining([
        { field: 'created_after', message: expect.stringMatching(/ISO 8601/) },
        { field: 'created_before', message: expect.stringMatching(/ISO 8601/) },
        { field: 'updated_before', message: expect.stringMatching(/ISO 8601/) },
        { field: 'sort', message: 'must be one of: created_at, priority, status, title, updated_at' },
        { field: 'direction', message: 'must be one of: asc, desc' },
      ]),
    );
    // Every mistake of the request at once: the values' own rules too, not only their types.
    expect(errors).toEqual(
      expect.arrayContaining([
        { field: 'status', message: 'must each be one of: Backlog, Todo, In Progress, In Review, Done, Canceled' },
        { field: 'priority', message: 'must each be one of: urgent, high, medium, low, none' },
        { field: 'assignee_id', message: 'must be a UUID or none' },
      ]),
    );
    expect(errors).toHaveLength(8);
    expect(await fieldErrors(await list('status=Todo,Blocked&priority=P0&assignee_id=bob&q='))).toEqual([
      { field: 'status', message: 'must each be one of: Backlog, Todo, In Progress, In Review, Done, Canceled' },
      { field: 'priority', message: 'must each be one of: urgent, high, medium, low, none' },
      { field: 'assignee_id', message: 'must be a UUID or none' },
      { field: 'q', message: 'must not be empty' },
    ]);
    expect(await fieldErrors(await list(`q=${'x'.repeat(101)}`))).toEqual([
      { field: 'q', message: 'must be at most 100 characters' },
    ]);
    expect(await fieldErrors(await list('assignee_id=none&assignee_id=none'))).toEqual([
      { field: 'assignee_id', message: 'must be given once' },
    ]);
  });
});

describe('sorting and paging', () => {
  test('each sort, both directions: follows its documented order', async () => {
    for (const sort of Object.keys(ORDERS)) {
      for (const direction of ['asc', 'desc'] as const) {
        const got = await listed(`sort=${sort}&direction=${direction}`);
        const expected = [...rows].sort(ORDERS[sort]!(direction === 'asc' ? 1 : -1));
        expect(ids(got), `${sort} ${direction}`).toEqual(ids(expected));
      }
    }
  });

  test('default directions: newest first for the times, workflow order (urgent, Backlog) and A-Z for the others', async () => {
    expect(ids(await listed(''))).toEqual(ids([...rows].sort(ORDERS.created_at!(-1))));
    expect(ids(await listed('sort=updated_at'))).toEqual(ids([...rows].sort(ORDERS.updated_at!(-1))));
    expect((await listed('sort=priority'))[0]!.priority).toBe('urgent');
    expect((await listed('sort=status'))[0]!.status).toBe('Backlog');
    expect((await listed('sort=title'))[0]!.title).toMatch(/^Title 00/);
    expect(ids(await listed('direction=asc'))).toEqual(ids([...rows].sort(ORDERS.created_at!(1))));
  });

  test('paging a sorted, filtered list by Link visits each matching issue exactly once, in order', async () => {
    const filter = 'status=Backlog,Todo,In%20Progress,Done&q=title';
    for (const sort of Object.keys(ORDERS)) {
      for (const direction of ['asc', 'desc']) {
        const whole = await listed(`${filter}&sort=${sort}&direction=${direction}`);
        expect(whole.length).toBe(40);
        const { items, pages } = await walk(`${filter}&sort=${sort}&direction=${direction}&limit=7`);
        expect(pages, `${sort} ${direction}`).toBe(6);
        expect(ids(items), `${sort} ${direction}`).toEqual(ids(whole));
      }
    }
  });

  test('a page boundary inside a run of equal sort values loses and repeats nothing', async () => {
    // 12 issues share each priority; pages of 5 cut every run.
    const { items } = await walk('sort=priority&limit=5');
    expect(ids(items)).toEqual(ids([...rows].sort(ORDERS.priority!(1))));
  });

  test('the cursor holds its place when the issues around it change', async () => {
    const first = await list('sort=updated_at&limit=10');
    const page1: Row[] = await first.json();
    const next = first.headers
      .get('link')!
      .match(/<([^>]+)>/)![1]!
      .replace('http://localhost:4000', '');
    // Touching an issue of page 1 moves it to the top; deleting the last one removes the cursor's own row.
    await t.app.db.prisma.issue.update({ where: { id: page1[3]!.id }, data: { title: 'Touched' } });
    await t.app.db.prisma.issue.delete({ where: { id: page1[9]!.id } });
    const page2: Row[] = await (await t.call('GET', next, { token })).json();
    const expected = [...rows].sort(ORDERS.updated_at!(-1)).slice(10, 20);
    expect(ids(page2)).toEqual(ids(expected));
  });

  test('a cursor is only good for the order that made it', async () => {
    const first = await list('sort=title&limit=5');
    const cursor = new URL(first.headers.get('link')!.match(/<([^>]+)>/)![1]!).searchParams.get('cursor')!;
    expect((await list(`sort=title&limit=5&cursor=${cursor}`)).status).toBe(200);
    for (const other of ['sort=title&direction=desc', 'sort=status', '']) {
      const errors = await fieldErrors(await list(`${other}&limit=5&cursor=${cursor}`));
      expect(errors?.map((e) => e.field)).toEqual(['cursor']);
    }
    const forged = Buffer.from(JSON.stringify(['TITLE', 'ASC', 'x', 'not-a-uuid'])).toString('base64url');
    expect((await fieldErrors(await list(`sort=title&cursor=${forged}`)))?.map((e) => e.field)).toEqual(['cursor']);
  });
});

describe('cost', () => {
  test('a page costs one SQL statement (authentication: none from the PAT cache), keys included, whatever its size', async () => {
    const count = async (query: string) => {
      const before = t.app.db.queries.count;
      const response = await t.call('GET', `/api/issues?${query}`, { token });
      expect(response.status).toBe(200);
      const body = await response.json();
      return { statements: t.app.db.queries.count - before, body };
    };
    await count('limit=1'); // puts the key in the PAT cache
    const small = await count('limit=2');
    const large = await count('limit=100&sort=priority&status=Todo,Done,Backlog&q=e');
    expect(large.body.length).toBeGreaterThan(20);
    expect(large.body.every((i: Row) => /^[A-Z][A-Z0-9]+-\d+$/.test(i.key))).toBe(true);
    expect(small.statements).toBe(1);
    expect(large.statements).toBe(1);
  });
});

describe('the workflow tables', () => {
  test('the database orders statuses and priorities exactly as the workflow lists them', async () => {
    const statuses = await t.app.db.prisma.issueStatus.findMany({ orderBy: { position: 'asc' } });
    const priorities = await t.app.db.prisma.issuePriority.findMany({ orderBy: { position: 'asc' } });
    expect(statuses.map((s) => s.name)).toEqual([...ISSUE_STATUSES]);
    expect(priorities.map((p) => p.name)).toEqual([...ISSUE_PRIORITIES]);
  });

  test('the database itself refuses a status outside the workflow', async () => {
    await expect(
      t.app.db.prisma.issue.create({
        data: { orgId: t.org('acme').id, projectId, number: 10_000, title: 'x', status: 'Blocked', priority: 'low' },
      }),
    ).rejects.toThrow();
  });
});

describe('GraphQL issues(filter, orderBy)', () => {
  const gql = async (query: string, variables?: Record<string, unknown>) =>
    (await t.call('POST', '/api/graphql', { token, body: { query, variables } })).json();
  const QUERY = `query($p: ID, $f: IssueFilter, $o: IssueOrder, $first: Int, $after: String, $last: Int, $before: String) {
    issues(projectId: $p, filter: $f, orderBy: $o, first: $first, after: $after, last: $last, before: $before) {
      edges { node { id key status } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;

  test('the same filters and orders; forwards with first/after and backwards with last/before', async () => {
    // GraphQL names the statuses by their enum values (IN_PROGRESS for the REST "In Progress").
    const variables = {
      p: projectId,
      f: { status: ['IN_PROGRESS', 'CANCELED'], assigneeId: 'none' },
      o: { field: 'STATUS', direction: 'DESC' },
    };
    const expected = rows
      .filter((r) => ['In Progress', 'Canceled'].includes(r.status) && r.assignee_id === null)
      .sort(ORDERS.status!(-1));
    expect(expected.length).toBe(20);
    const page1 = (await gql(QUERY, { ...variables, first: 4 })).data.issues;
    expect(page1.edges.map((e: { node: Row }) => e.node.id)).toEqual(ids(expected.slice(0, 4)));
    expect(page1.pageInfo.hasNextPage).toBe(true);
    const page2 = (await gql(QUERY, { ...variables, first: 16, after: page1.pageInfo.endCursor })).data.issues;
    expect(page2.edges.map((e: { node: Row }) => e.node.id)).toEqual(ids(expected.slice(4)));
    expect(page2.pageInfo.hasNextPage).toBe(false);
    const back = (await gql(QUERY, { ...variables, last: 3, before: page2.pageInfo.startCursor })).data.issues;
    expect(back.edges.map((e: { node: Row }) => e.node.id)).toEqual(ids(expected.slice(1, 4)));
    expect(back.pageInfo.hasPreviousPage).toBe(true);
  });

  test('filter errors name the filter field', async () => {
    const result = await gql(QUERY, { p: projectId, f: { assigneeId: 'P0' } });
    expect(result.errors[0].extensions).toMatchObject({
      code: 'VALIDATION_FAILED',
      fieldErrors: [{ field: 'filter.assigneeId', message: 'must be a UUID or none' }],
    });
    // A value outside the enum is refused by GraphQL itself, naming the value.
    const unknown = await gql(QUERY, { p: projectId, f: { priority: ['P0'] } });
    expect(unknown.errors[0]).toMatchObject({
      message: expect.stringContaining('P0'),
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });
});
