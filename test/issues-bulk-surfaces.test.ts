import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
let projectId: string;
beforeAll(async () => {
  t = await startTestApp();
  projectId = t.org('acme').projects[0]!.id;
});
afterAll(() => t.close());

async function gql(token: string, query: string, variables?: Record<string, unknown>) {
  const response = await t.call('POST', '/api/graphql', { token, body: { query, variables } });
  return { response, body: (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] } };
}

const CREATE = `mutation($issues: [CreateIssueInput!]!) {
  createIssues(issues: $issues) {
    __typename
    ... on MutationCreateIssuesSuccess { data { id key title status assignee { id } } }
    ... on ValidationError { code fieldErrors { index field message } }
  }
}`;
const UPDATE = `mutation($ids: [ID!]!, $change: IssuesChangeInput!) {
  updateIssues(ids: $ids, change: $change) {
    __typename
    ... on MutationUpdateIssuesSuccess { data { id status priority assignee { id } } }
    ... on ValidationError { code fieldErrors { index field message } }
  }
}`;

describe('GraphQL createIssues and updateIssues', () => {
  test('create many, then change them all; relations are read for the answer', async () => {
    const mark = t.user('mark');
    const created = await gql(mark.token, CREATE, {
      issues: [
        { projectId, title: 'GQL one' },
        { projectId: 'web', title: 'GQL two', assigneeId: mark.id },
      ],
    });
    const result = created.body.data!.createIssues as { __typename: string; data: { id: string; key: string }[] };
    expect(result.__typename).toBe('MutationCreateIssuesSuccess');
    expect(result.data).toMatchObject([
      { title: 'GQL one', status: 'BACKLOG', assignee: null },
      { title: 'GQL two', assignee: { id: mark.id } },
    ]);
    const updated = await gql(mark.token, UPDATE, {
      ids: [result.data[1]!.key, result.data[0]!.id],
      change: { status: 'DONE', priority: 'HIGH', assigneeId: mark.id },
    });
    expect(updated.body.data!.updateIssues).toEqual({
      __typename: 'MutationUpdateIssuesSuccess',
      data: [result.data[1], result.data[0]].map((issue) => ({
        id: issue!.id,
        status: 'DONE',
        priority: 'HIGH',
        assignee: { id: mark.id },
      })),
    });
    const events = await t.app.db.prisma.event.count({
      where: { subjectId: { in: result.data.map((issue) => issue.id) }, type: 'issue.updated' },
    });
    expect(events).toBe(2);
  });

  test('labels added and taken off by name; the limit of labels per issue is a ConflictError', async () => {
    const token = t.user('mark').token;
    const maya = t.user('maya').token;
    for (const name of ['gql-a', 'gql-b'])
      await t.call('POST', '/api/labels', { token: maya, body: { name, color: '#0E8A16' } });
    const created = await gql(token, CREATE, { issues: [{ projectId, title: 'GQL labels' }] });
    const [issue] = (created.body.data!.createIssues as { data: { id: string }[] }).data;
    const LABELS = `mutation($ids: [ID!]!, $change: IssuesChangeInput!) {
      updateIssues(ids: $ids, change: $change) {
        __typename
        ... on MutationUpdateIssuesSuccess { data { labels { name } } }
        ... on ConflictError { code limit }
        ... on ValidationError { fieldErrors { field message } }
      }
    }`;
    const changed = await gql(token, LABELS, { ids: [issue!.id], change: { labels: { add: ['GQL-A', 'gql-b'] } } });
    expect(changed.body.data!.updateIssues).toEqual({
      __typename: 'MutationUpdateIssuesSuccess',
      data: [{ labels: [{ name: 'gql-a' }, { name: 'gql-b' }] }],
    });
    const many = Array.from({ length: 20 }, (_, i) => `gql-many-${i}`);
    for (const name of many) await t.call('POST', '/api/labels', { token: maya, body: { name, color: '#0E8A16' } });
    const over = await gql(token, LABELS, { ids: [issue!.id], change: { labels: { add: many } } });
    expect(over.body.data!.updateIssues).toEqual({ __typename: 'ConflictError', code: 'CONFLICT', limit: 20 });
  });

  test('every bad item at once, each with its index, as a ValidationError', async () => {
    const token = t.user('mark').token;
    const { body } = await gql(token, CREATE, {
      issues: [
        { projectId, title: 'fine' },
        { projectId, title: '   ' },
        { projectId: 'NOPE', title: 'nowhere' },
      ],
    });
    // The rules of each field first: a reference is looked up only once every item is well formed.
    expect(body.data!.createIssues).toEqual({
      __typename: 'ValidationError',
      code: 'VALIDATION_FAILED',
      fieldErrors: [{ index: 1, field: 'issues.1.title', message: expect.stringMatching(/empty/) }],
    });
    const refs = await gql(token, UPDATE, { ids: ['WEB-99999', 'WEB-99999'], change: { status: 'DONE' } });
    expect(refs.body.data!.updateIssues).toEqual({
      __typename: 'ValidationError',
      code: 'VALIDATION_FAILED',
      fieldErrors: [
        { index: 0, field: 'ids.0', message: 'names no issue in this organization' },
        { index: 1, field: 'ids.1', message: 'names no issue in this organization' },
      ],
    });
  });

  test('a viewer is refused; the call costs 1 + ceil(items / 10) of the global bucket', async () => {
    const victor = await gql(t.user('victor').token, UPDATE, { ids: ['WEB-1'], change: { status: 'DONE' } });
    expect(JSON.stringify(victor.body)).toContain('FORBIDDEN');
    const token = t.user('adam').token;
    const remaining = (response: Response) => Number(response.headers.get('x-ratelimit-remaining'));
    const before = await t.call('GET', '/api/me', { token });
    const issues = Array.from({ length: 11 }, (_, i) => ({ projectId, title: `cost ${i}` }));
    const { response } = await gql(token, CREATE, { issues });
    expect(remaining(response)).toBe(remaining(before) - 3);
  });
});

/** The SDK's own client, its HTTP going through the real stack (app.fetch). */
async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${ORIGIN}/api/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: (url, init) => t.app.fetch(new Request(url, init)),
  });
  await client.connect(transport);
  return client;
}

describe('MCP bulk_issues', () => {
  test('creates and changes issues; a bad item is an error result naming its index', async () => {
    const client = await connect(t.user('mark').token);
    try {
      const created = await client.callTool({
        name: 'bulk_issues',
        arguments: {
          issues: [
            { project_id: 'WEB', title: 'Tool one' },
            { project_id: 'WEB', title: 'Tool two' },
          ],
        },
      });
      const items = (created.structuredContent as { items: { id: string; title: string }[] }).items;
      expect(items.map((issue) => issue.title)).toEqual(['Tool one', 'Tool two']);
      const changed = await client.callTool({
        name: 'bulk_issues',
        arguments: { ids: items.map((issue) => issue.id), change: { priority: 'low' } },
      });
      expect((changed.structuredContent as { items: { priority: string }[] }).items).toEqual([
        expect.objectContaining({ priority: 'low' }),
        expect.objectContaining({ priority: 'low' }),
      ]);
      const bad = await client.callTool({
        name: 'bulk_issues',
        arguments: { issues: [{ project_id: 'WEB', title: 'ok' }, { project_id: 'WEB' }] },
      });
      expect(bad.isError).toBe(true);
      const problem = JSON.parse((bad.content as { text: string }[])[0]!.text);
      expect(problem.errors).toEqual([{ index: 1, field: 'issues.1.title', message: 'is required' }]);
    } finally {
      await client.close();
    }
  });
});
