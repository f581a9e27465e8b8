import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';
import { expectProblem } from './support/problem.js';

// A project is named by its id or its key wherever a project is named: what GET /api/projects/MOB
// accepts, POST /api/issues, the list's project_id, GraphQL's projectId and the MCP tools accept.
let t: TestApp;
let token: string;
let mob: string;
beforeAll(async () => {
  t = await startTestApp();
  token = t.user('mark').token;
  mob = t.org('acme').projects.find((p) => p.key === 'MOB')!.id;
});
afterAll(() => t.close());

async function gql(query: string, variables?: Record<string, unknown>, as = token) {
  const response = await t.call('POST', '/api/graphql', { token: as, body: { query, variables } });
  expect(response.status).toBe(200);
  return (await response.json()) as {
    data?: Record<string, any>;
    errors?: { message: string; extensions?: { code?: string } }[];
  };
}

describe('REST: project_id takes the project key', () => {
  test('POST /api/issues with "MOB" (any case) creates in that project, as with its id', async () => {
    for (const ref of ['MOB', 'mob', mob]) {
      const response = await t.call('POST', '/api/issues', { token, body: { project_id: ref, title: `by ${ref}` } });
      expect(response.status).toBe(201);
      const issue = await response.json();
      expect(issue.project_id).toBe(mob);
      expect(issue.key).toMatch(/^MOB-\d+$/);
    }
  });

  test('GET /api/issues?project_id=MOB lists that project only, as with its id', async () => {
    const byKey = await (await t.call('GET', '/api/issues?project_id=MOB&limit=100', { token })).json();
    const byId = await (await t.call('GET', `/api/issues?project_id=${mob}&limit=100`, { token })).json();
    expect(byKey.length).toBeGreaterThan(0);
    expect(byKey).toEqual(byId);
    for (const issue of byKey) expect(issue.project_id).toBe(mob);
  });

  test("another organization's key is a 404 exactly like an unknown one; text that is neither is a 400", async () => {
    // RES is globex's project; mark's acme key must not reach it.
    for (const ref of ['RES', 'NOPE']) {
      await expectProblem(
        await t.call('POST', '/api/issues', { token, body: { project_id: ref, title: 'x' } }),
        404,
        'not_found',
      );
      await expectProblem(await t.call('GET', `/api/issues?project_id=${ref}`, { token }), 404, 'not_found');
    }
    const refused = await expectProblem(
      await t.call('POST', '/api/issues', { token, body: { project_id: 'not a project', title: '' } }),
      400,
      'validation_failed',
    );
    expect(refused.errors).toEqual([
      { field: 'project_id', message: 'must be a project id (UUID) or key (such as WEB)' },
      { field: 'title', message: 'must not be empty' },
    ]);
  });
});

describe('GraphQL: projectId takes the project key', () => {
  test('createIssue, issues and issueAggregates accept "MOB"; another organization\'s key is NOT_FOUND', async () => {
    const created = await gql(
      'mutation { createIssue(input: { projectId: "mob", title: "via GraphQL" }) { ... on MutationCreateIssueSuccess { data { key projectId } } ... on Error { code } } }',
    );
    expect(created.data!.createIssue.data).toEqual({ key: expect.stringMatching(/^MOB-\d+$/), projectId: mob });
    const listed = await gql(
      '{ byKey: issues(projectId: "MOB", first: 100) { totalCount } byId: issues(projectId: $id, first: 100) { totalCount } }'.replace(
        '$id',
        JSON.stringify(mob),
      ),
    );
    expect(listed.data!.byKey.totalCount).toBeGreaterThan(0);
    expect(listed.data!.byKey.totalCount).toBe(listed.data!.byId.totalCount);
    const counted = await gql('{ issueAggregates(projectId: "MOB") { total } }');
    expect(counted.data!.issueAggregates.total).toBe(listed.data!.byKey.totalCount);
    const foreign = await gql(
      'mutation { createIssue(input: { projectId: "RES", title: "x" }) { __typename ... on Error { code } } }',
    );
    expect(foreign.data!.createIssue).toEqual({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
  });
});

describe('MCP: the project_id argument takes the project key', () => {
  test('create_issue and list_issues with "MOB", through the SDK client', async () => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${ORIGIN}/api/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
        fetch: (url, init) => t.app.fetch(new Request(url, init)),
      }),
    );
    const created = await client.callTool({ name: 'create_issue', arguments: { project_id: 'MOB', title: 'via MCP' } });
    expect(created.isError).toBeFalsy();
    expect(created.structuredContent).toMatchObject({ project_id: mob, key: expect.stringMatching(/^MOB-\d+$/) });
    const listed = await client.callTool({ name: 'list_issues', arguments: { project_id: 'MOB', limit: 100 } });
    const items = (listed.structuredContent as { items: { project_id: string; title: string }[] }).items;
    expect(items.map((i) => i.title)).toContain('via MCP');
    for (const issue of items) expect(issue.project_id).toBe(mob);
    await client.close();
  });
});
