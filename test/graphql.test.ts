import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

async function gql(token: string, query: string, variables?: Record<string, unknown>) {
  const response = await t.call('POST', '/api/graphql', { token, body: { query, variables } });
  expect(response.status).toBe(200);
  return (await response.json()) as {
    data?: Record<string, any>;
    errors?: { message: string; extensions?: { code?: string } }[];
  };
}

describe('GraphQL at /api/graphql', () => {
  test("me and memberships, bound to the key's organization", async () => {
    const mark = t.user('mark', 'globex');
    const { data } = await gql(
      mark.token,
      '{ me { id username } memberships { role organization { slug projects { key } } } }',
    );
    expect(data).toEqual({
      me: { id: mark.id, username: 'mark' },
      memberships: [{ role: 'member', organization: { slug: 'globex', projects: [{ key: 'RES' }] } }],
    });
  });

  test('issues as a Relay connection with first/after', async () => {
    const { token } = t.user('mark');
    const projectId = t.org('acme').projects[0]!.id;
    const query =
      'query($p: ID, $after: String) { issues(projectId: $p, first: 3, after: $after) { edges { cursor node { id title } } pageInfo { hasNextPage endCursor } } }';
    const first = await gql(token, query, { p: projectId });
    expect(first.data!.issues.edges).toHaveLength(3);
    expect(first.data!.issues.pageInfo.hasNextPage).toBe(true);
    const second = await gql(token, query, { p: projectId, after: first.data!.issues.pageInfo.endCursor });
    expect(second.data!.issues.edges).toHaveLength(1);
    expect(second.data!.issues.pageInfo.hasNextPage).toBe(false);
    const ids = [...first.data!.issues.edges, ...second.data!.issues.edges].map(
      (e: { node: { id: string } }) => e.node.id,
    );
    expect(new Set(ids).size).toBe(4);
  });

  test('Project.issues pages forwards and backwards with its cursors, newest first, with totalCount', async () => {
    const { token, org_id: orgId, id: userId } = t.user('mark');
    const project = await t.app.db.prisma.project.create({ data: { orgId, name: 'Paging', key: 'PAGE' } });
    // Equal creation times in pairs, so the id orders them.
    await t.app.db.prisma.issue.createMany({
      data: Array.from({ length: 7 }, (_, i) => ({
        orgId,
        projectId: project.id,
        number: i + 1,
        title: `P${i}`,
        status: 'Todo',
        priority: 'low',
        assigneeId: i % 2 ? userId : null,
        createdAt: new Date(Date.UTC(2026, 0, 1 + Math.floor(i / 2))),
      })),
    });
    // Gone again at the end: other tests count the organization's projects.
    onTestFinished(() => t.app.db.prisma.project.delete({ where: { id: project.id } }).then(() => undefined));
    const expected = (
      await t.app.db.prisma.issue.findMany({
        where: { projectId: project.id },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        select: { id: true },
      })
    ).map((i) => i.id);
    const query = `query($p: ID!, $first: Int, $after: String, $last: Int, $before: String) { project(id: $p) { issues(first: $first, after: $after, last: $last, before: $before) {
      totalCount edges { cursor node { id key assignee { id name } } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`;
    type Page = {
      totalCount: number;
      edges: { cursor: string; node: { id: string; key: string; assignee: { id: string; name: string } | null } }[];
      pageInfo: {
        hasNextPage: boolean;
        hasPreviousPage: boolean;
        startCursor: string | null;
        endCursor: string | null;
      };
    };
    const page = async (variables: Record<string, unknown>) => {
      const result = await gql(token, query, { p: project.id, ...variables });
      expect(result.errors).toBeUndefined();
      return result.data!.project.issues as Page;
    };
    const forwards: string[] = [];
    let after: string | null = null;
    for (;;) {
      const p: Page = await page({ first: 3, after });
      expect(p.totalCount).toBe(7);
      expect(p.pageInfo.startCursor).toBe(p.edges[0]?.cursor ?? null);
      expect(p.pageInfo.endCursor).toBe(p.edges.at(-1)?.cursor ?? null);
      expect(p.pageInfo.hasPreviousPage).toBe(after !== null);
      for (const edge of p.edges) {
        forwards.push(edge.node.id);
        expect(edge.node.key).toMatch(/^PAGE-\d$/);
        expect(edge.node.assignee?.id ?? null).toBe(Number(edge.node.key.slice(5)) % 2 === 0 ? userId : null);
      }
      if (!p.pageInfo.hasNextPage) break;
      after = p.pageInfo.endCursor;
    }
    expect(forwards).toEqual(expected);
    const backwards: string[] = [];
    let before: string | null = null;
    for (;;) {
      const p: Page = await page({ last: 3, before });
      backwards.unshift(...p.edges.map((edge) => edge.node.id));
      if (!p.pageInfo.hasPreviousPage) break;
      before = p.pageInfo.startCursor;
    }
    expect(backwards).toEqual(expected);
    // Two pages of the same field in one query: each its own arguments.
    const both = await gql(
      token,
      `query($p: ID!) { project(id: $p) { a: issues(first: 2) { edges { node { id } } } b: issues(last: 2) { edges { node { id } } } } }`,
      { p: project.id },
    );
    const ids = (connection: { edges: { node: { id: string } }[] }) => connection.edges.map((edge) => edge.node.id);
    expect([ids(both.data!.project.a), ids(both.data!.project.b)]).toEqual([expected.slice(0, 2), expected.slice(-2)]);
  });

  test('createIssue returns the issue, or typed errors in its result union', async () => {
    const mutation = `mutation($input: CreateIssueInput!) { createIssue(input: $input) {
      __typename
      ... on MutationCreateIssueSuccess { data { title status number } }
      ... on Error { code message }
      ... on ValidationError { fieldErrors { field message } } } }`;
    const projectId = t.org('acme').projects[0]!.id;
    const ok = await gql(t.user('mark').token, mutation, {
      input: { projectId, title: 'Via GraphQL', status: 'TODO' },
    });
    expect(ok.data!.createIssue).toEqual({
      __typename: 'MutationCreateIssueSuccess',
      data: { title: 'Via GraphQL', status: 'TODO', number: 5 },
    });
    const invalid = await gql(t.user('mark').token, mutation, { input: { projectId, title: '', assigneeId: 'P0' } });
    expect(invalid.data!.createIssue).toMatchObject({
      __typename: 'ValidationError',
      code: 'VALIDATION_FAILED',
      fieldErrors: [
        { field: 'title', message: 'must not be empty' },
        { field: 'assigneeId', message: 'must be a UUID' },
      ],
    });
    const foreign = await gql(t.user('mark').token, mutation, {
      input: { projectId: t.org('globex').projects[0]!.id, title: 'x' },
    });
    expect(foreign.data!.createIssue).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
  });

  test('the created issue answers every field, relations and key included', async () => {
    const mark = t.user('mark');
    const project = t.org('acme').projects[0]!;
    const result = await gql(
      mark.token,
      `mutation($input: CreateIssueInput!) { createIssue(input: $input) {
      ... on MutationCreateIssueSuccess { data { id key number projectId assigneeId title description createdAt updatedAt
        project { id key name } assignee { id username } } } } }`,
      {
        input: { projectId: project.id, title: 'With relations', assigneeId: mark.id, description: 'd' },
      },
    );
    const issue = result.data!.createIssue.data;
    const stored = await t.app.db.prisma.issue.findUniqueOrThrow({ where: { id: issue.id } });
    expect(issue).toEqual({
      id: stored.id,
      key: `${project.key}-${stored.number}`,
      number: stored.number,
      projectId: project.id,
      assigneeId: mark.id,
      title: 'With relations',
      description: 'd',
      createdAt: stored.createdAt.toISOString(),
      updatedAt: stored.updatedAt.toISOString(),
      project: { id: project.id, key: project.key, name: expect.any(String) },
      assignee: { id: mark.id, username: 'mark' },
    });
  });

  test('a mutation result that selects none of its data still runs the mutation', async () => {
    const projectId = t.org('acme').projects[0]!.id;
    const before = await t.app.db.prisma.issue.count({ where: { projectId } });
    const result = await gql(
      t.user('mark').token,
      `mutation($p: ID!) { createIssue(input: { projectId: $p, title: "Blind" }) { __typename } }`,
      { p: projectId },
    );
    expect(result).toEqual({ data: { createIssue: { __typename: 'MutationCreateIssueSuccess' } } });
    expect(await t.app.db.prisma.issue.count({ where: { projectId } })).toBe(before + 1);
  });

  test('a role too low is a FORBIDDEN error, not data', async () => {
    const result = await gql(
      t.user('victor').token,
      'mutation { createIssue(input: { projectId: "00000000-0000-4000-8000-000000000000", title: "x" }) { __typename } }',
    );
    expect(result.data).toBeNull();
    expect(result.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  test('the issue workflow is discoverable', async () => {
    const { data } = await gql(t.user('victor').token, '{ issueStatuses issuePriorities }');
    expect(data).toEqual({
      issueStatuses: ['Backlog', 'Todo', 'In Progress', 'In Review', 'Done', 'Canceled'],
      issuePriorities: ['urgent', 'high', 'medium', 'low', 'none'],
    });
  });
});

describe('nested selections cost a constant number of SQL statements', () => {
  const NESTED = `{ memberships { role organization { name projects { key name issues(first: 50) {
    edges { node { title status assignee { name username } project { key } } } } } } } }`;

  async function statementsFor(token: string) {
    const before = t.app.db.queries.count;
    const result = await gql(token, NESTED);
    expect(result.errors).toBeUndefined();
    return { statements: t.app.db.queries.count - before, data: result.data! };
  }

  test('the same count with 2 projects x 4 issues and with 12 projects x 50 issues', async () => {
    const { token, org_id: orgId, id: userId } = t.user('olivia');
    // The key's first use in a minute records last_used_at (off the request path); let it land first.
    await gql(token, '{ me { id } }');
    await expect
      .poll(() => t.app.db.prisma.apiKey.count({ where: { userId, orgId, lastUsedAt: { not: null } } }))
      .toBe(1);
    const small = await statementsFor(token);
    for (let p = 0; p < 10; p++) {
      const project = await t.app.db.prisma.project.create({ data: { orgId, name: `Load ${p}`, key: `LD${p}` } });
      await t.app.db.prisma.issue.createMany({
        data: Array.from({ length: 60 }, (_, i) => ({
          orgId,
          projectId: project.id,
          number: i + 1,
          title: `L${p}-${i}`,
          status: 'Todo',
          priority: 'low',
          assigneeId: userId,
        })),
      });
    }
    const large = await statementsFor(token);
    const projects = large.data.memberships[0].organization.projects;
    expect(projects).toHaveLength(12);
    expect(projects.filter((p: { issues: { edges: unknown[] } }) => p.issues.edges.length === 50)).toHaveLength(10);
    // Authentication is one statement; the whole nested selection is the rest.
    console.info(`nested query: ${small.statements} statements (small), ${large.statements} (large)`);
    expect(large.statements).toBe(small.statements);
    expect(large.statements).toBeLessThanOrEqual(3);
  });

  test('issues(filter, orderBy) with key, project and assignee: one statement for any page size', async () => {
    const { token } = t.user('olivia');
    const query = `query($n: Int) { issues(first: $n, filter: { status: [TODO, DONE] }, orderBy: { field: PRIORITY }) {
      edges { node { key title project { key name } assignee { name } } } } }`;
    const statements = async (n: number) => {
      const before = t.app.db.queries.count;
      const result = await gql(token, query, { n });
      expect(result.errors).toBeUndefined();
      expect(result.data!.issues.edges).toHaveLength(n);
      return t.app.db.queries.count - before;
    };
    await statements(1); // the key is now in the PAT cache: authentication costs no statement
    const small = await statements(2);
    const large = await statements(100);
    expect(small).toBe(1);
    expect(large).toBe(small);
  });
});

describe('mutations selecting only __typename', () => {
  test('createOrganization and revokeApiKey still run', async () => {
    const cookie = await t.signIn('olivia@example.com');
    const post = (query: string) =>
      t
        .call('POST', '/api/graphql', {
          body: { query },
          headers: { cookie, origin: 'http://localhost:4000', 'x-org-id': t.org('acme').id },
        })
        .then((r) => r.json());
    const org = await post(
      'mutation { createOrganization(input: { name: "Typename Only", slug: "typename-only" }) { __typename } }',
    );
    expect(org).toEqual({ data: { createOrganization: { __typename: 'MutationCreateOrganizationSuccess' } } });
    const key = await t.app.db.prisma.apiKey.findFirstOrThrow({ where: { userId: t.user('olivia').id } });
    const revoked = await post(`mutation { revokeApiKey(id: "${key.id}") { __typename } }`);
    expect(revoked).toEqual({ data: { revokeApiKey: { __typename: 'MutationRevokeApiKeySuccess' } } });
  });
});

describe('issue filters combine with and, or, not and comparators', () => {
  const list = async (filter: unknown) => {
    const { token } = t.user('mark');
    const result = await gql(
      token,
      'query($f: IssueFilter) { issues(filter: $f, first: 100) { edges { node { title number status priority } } } }',
      { f: filter },
    );
    return result;
  };

  test('or of two conditions, not, title and number comparators', async () => {
    const project = await t.app.db.prisma.project.create({
      data: { orgId: t.org('acme').id, name: 'Filters', key: 'FLT' },
    });
    const rows = [
      ['Alpha bug', 'Todo', 'high'],
      ['Beta bug', 'Done', 'low'],
      ['Gamma feature', 'Todo', 'low'],
      ['Delta feature', 'In Progress', 'urgent'],
    ] as const;
    await t.app.db.prisma.issue.createMany({
      data: rows.map(([title, status, priority], i) => ({
        orgId: project.orgId,
        projectId: project.id,
        number: i + 1,
        title,
        status,
        priority,
      })),
    });
    const titles = async (filter: unknown) => {
      const result = await list({ and: [filter, { title: { contains: 'a' } }, { number: { lte: 4 } }] });
      expect(result.errors).toBeUndefined();
      return result
        .data!.issues.edges.map((e: { node: { title: string } }) => e.node.title)
        .filter((title: string) => rows.some((r) => r[0] === title))
        .sort();
    };
    expect(await titles({ or: [{ priority: ['URGENT'] }, { status: ['DONE'] }] })).toEqual([
      'Beta bug',
      'Delta feature',
    ]);
    expect(await titles({ not: { title: { contains: 'bug' } }, status: ['TODO'] })).toEqual(['Gamma feature']);
    expect(await titles({ title: { startsWith: 'al' } })).toEqual(['Alpha bug']);
    expect(await titles({ number: { in: [2, 3] }, title: { contains: 'ta' } })).toEqual(['Beta bug']);
  });

  test('too deep or too wide is a validation error naming the limit', async () => {
    let deep: Record<string, unknown> = { status: ['TODO'] };
    for (let i = 0; i < 5; i++) deep = { not: deep };
    const tooDeep = await list(deep);
    expect(tooDeep.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    expect(tooDeep.errors?.[0]?.message).toMatch(/nest at most 4 deep/);
    const tooWide = await list({ or: Array.from({ length: 11 }, () => ({ status: ['TODO'] })) });
    expect(tooWide.errors?.[0]?.message).toMatch(/at most 10 filters/);
  });
});

describe('node(id:) and nodes(ids:)', () => {
  test('fetch issues, projects and people of your organization by id alone; anything else is null', async () => {
    const { token } = t.user('mark');
    const issue = await t.app.db.prisma.issue.findFirstOrThrow({ where: { orgId: t.org('acme').id } });
    const foreignIssue = await t.app.db.prisma.issue.findFirstOrThrow({ where: { orgId: t.org('globex').id } });
    const project = t.org('acme').projects[0]!;
    const query = `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id
      ... on Issue { title } ... on Project { key } ... on User { username } } }`;
    const ids = [
      issue.id,
      project.id,
      t.user('victor').id,
      foreignIssue.id,
      t.user('bella', 'globex').id,
      'not-a-uuid',
    ];
    const { data, errors } = await gql(token, query, { ids });
    expect(errors).toBeUndefined();
    expect(data!.nodes).toEqual([
      { __typename: 'Issue', id: issue.id, title: issue.title },
      { __typename: 'Project', id: project.id, key: project.key },
      { __typename: 'User', id: t.user('victor').id, username: 'victor' },
      null,
      null,
      null,
    ]);
    const single = await gql(token, `{ node(id: "${issue.id.toUpperCase()}") { id ... on Issue { number } } }`);
    expect(single.data!.node).toEqual({ id: issue.id, number: issue.number });
    const tooMany = await gql(token, query, { ids: Array.from({ length: 101 }, () => issue.id) });
    expect(tooMany.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
  });
});

describe('an Accept header that allows no JSON', () => {
  test('406 not_acceptable as problem+json, before anything runs: the mutation writes nothing', async () => {
    const title = `not acceptable ${Date.now()}`;
    const body = {
      query: 'mutation($input: CreateIssueInput!) { createIssue(input: $input) { __typename } }',
      variables: { input: { projectId: t.org('acme').projects[0]!.id, title } },
    };
    for (const accept of ['text/html', 'image/png', 'text/plain;q=1']) {
      const response = await t.call('POST', '/api/graphql', { token: t.user('mark').token, body, headers: { accept } });
      expect(response.status).toBe(406);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(await response.json()).toMatchObject({ status: 406, code: 'not_acceptable' });
    }
    expect(await t.app.db.prisma.issue.count({ where: { title } })).toBe(0);
    // What GraphQL clients send is still answered.
    for (const accept of [
      'application/graphql-response+json, application/json;q=0.9',
      'application/json',
      '*/*',
      'text/html, */*;q=0.8',
    ]) {
      expect(
        (
          await t.call('POST', '/api/graphql', {
            token: t.user('mark').token,
            body: { query: '{ me { id } }' },
            headers: { accept },
          })
        ).status,
      ).toBe(200);
    }
  });
});
