import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { directSql } from '../src/db/direct-sql.js';
import { rowsOf } from '../src/db/sql-builder.js';
import { operatorContext } from '../src/schema/core/operator.js';
import { issueCreate } from '../src/schema/issues/create.js';
import { ISSUE_LABELS_MAX } from '../src/schema/labels/issue-labels.js';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';
import { expectProblem, fieldErrors } from './support/problem.js';

/**
 * Labels given when an issue is created, on every surface that creates issues (REST POST
 * /api/issues, GraphQL createIssue, the MCP create_issue tool, the bulk create of REST, GraphQL
 * and MCP): attached by the create's own statement, shown in its answer, its history entry and its
 * webhook event, all or nothing.
 */

let t: TestApp;
let member: string;
let projectId: string;
beforeAll(async () => {
  t = await startTestApp();
  member = t.user('mark').token;
  projectId = t.org('acme').projects.find((p) => p.key === 'WEB')!.id;
});
afterAll(() => t.close());

let seq = 0;
const unique = (base: string) => `${base}-${++seq}`;
type Label = { id: string; name: string; color: string };

async function newLabel(name = unique('label'), token = t.user('maya').token, color = '#AABBCC'): Promise<Label> {
  const response = await t.call('POST', '/api/labels', { token, body: { name, color } });
  expect(response.status).toBe(201);
  const { id, name: named, color: stored } = await response.json();
  return { id, name: named, color: stored };
}

const create = (body: Record<string, unknown>, token = member) =>
  t.call('POST', '/api/issues', { token, body: { project_id: projectId, ...body } });

/** How many issues of the organization have this title: a refused create leaves none. */
const titled = (title: string) => t.app.db.prisma.issue.count({ where: { title } });

const issueCount = async () =>
  (await t.app.db.prisma.project.findUniqueOrThrow({ where: { id: projectId }, select: { issueCount: true } }))
    .issueCount;

async function gql(token: string, query: string, variables?: Record<string, unknown>) {
  const response = await t.call('POST', '/api/graphql', { token, body: { query, variables } });
  expect(response.status).toBe(200);
  return (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
}

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

describe('REST POST /api/issues with labels', () => {
  test('labels by id or name in any case (each once) are carried from the start, in name order, in the answer, history and webhook event', async () => {
    const [a, b] = [await newLabel(unique('alpha')), await newLabel(unique('Beta'))];
    const hook = await t.app.db.prisma.webhook.create({
      data: {
        orgId: t.org('acme').id,
        url: 'https://hooks.example.com/x',
        events: ['issue.created'],
        secret: 'unused',
      },
    });
    try {
      const response = await create({ title: unique('labelled'), labels: [b.name.toUpperCase(), a.id, a.name] });
      expect(response.status).toBe(201);
      const issue = await response.json();
      expect(issue.labels).toEqual([a, b]);
      expect((await (await t.call('GET', `/api/issues/${issue.id}`, { token: member })).json()).labels).toEqual([a, b]);

      const history = await (await t.call('GET', `/api/issues/${issue.id}/history`, { token: member })).json();
      expect(history).toHaveLength(1);
      expect(history[0].type).toBe('issue.created');
      expect(history[0].changes).toContainEqual({ field: 'labels', old: null, new: `${a.name}, ${b.name}` });

      const deliveries = await t.app.db.prisma.webhookDelivery.findMany({ where: { webhookId: hook.id } });
      const payloads = deliveries.map((d) => JSON.parse(d.payload)).filter((p) => p.data.id === issue.id);
      expect(payloads).toHaveLength(1);
      // The event's data is the issue as REST answers it, its key and number filled in by the statement.
      expect(payloads[0].data).toEqual(issue);
      expect(payloads[0].changes).toContainEqual({ field: 'labels', old: null, new: `${a.name}, ${b.name}` });
    } finally {
      await t.app.db.prisma.webhook.delete({ where: { id: hook.id } });
    }
  });

  test('no labels, or an empty list, is an issue without labels and no labels change in its history', async () => {
    for (const body of [{}, { labels: [] }]) {
      const issue = await (await create({ title: unique('plain'), ...body })).json();
      expect(issue.labels).toEqual([]);
      const history = await (await t.call('GET', `/api/issues/${issue.id}/history`, { token: member })).json();
      expect(history[0].changes.map((c: { field: string }) => c.field)).not.toContain('labels');
    }
  });

  test('all or nothing: every unknown label is a field error, with the assignee, and nothing is written', async () => {
    const mine = await newLabel();
    const theirs = await newLabel(unique('globex'), t.user('bella', 'globex').token);
    const title = unique('refused');
    const before = await issueCount();
    const errors = await fieldErrors(
      await create({
        title,
        assignee_id: t.user('bella', 'globex').id,
        labels: ['no-such-label', mine.name, theirs.id, theirs.name],
      }),
    );
    expect(errors).toEqual([
      { field: 'assignee_id', message: 'must be a member of the organization' },
      { field: 'labels.0', message: 'names no label of this organization' },
      { field: 'labels.2', message: 'names no label of this organization' },
      { field: 'labels.3', message: 'names no label of this organization' },
    ]);
    expect(await titled(title)).toBe(0);
    expect(await issueCount()).toBe(before);

    // The input's own mistakes come together too.
    const shape = await fieldErrors(await create({ title: '', labels: [mine.name, ' '] }));
    expect(shape!.map((e) => e.field)).toEqual(['title', 'labels.1']);
    const tooMany = Array.from({ length: ISSUE_LABELS_MAX + 1 }, (_, i) => `l${i}`);
    expect(await fieldErrors(await create({ title, labels: tooMany }))).toEqual([
      { field: 'labels', message: `must name at most ${ISSUE_LABELS_MAX} labels` },
    ]);
    expect(await fieldErrors(await create({ title, labels: 'bug' }))).toEqual([
      { field: 'labels', message: 'must be a list of label ids or names' },
    ]);
    expect(await titled(title)).toBe(0);
  });

  test('a viewer is refused, labels or not', async () => {
    const label = await newLabel();
    const title = unique('by a viewer');
    await expectProblem(await create({ title, labels: [label.name] }, t.user('victor').token), 403, 'forbidden');
    expect(await titled(title)).toBe(0);
  });

  test('a label deleted after it was looked up: the statement writes nothing (no issue, no number, no history)', async () => {
    const label = await newLabel();
    await t.app.db.prisma.label.delete({ where: { id: label.id } });
    const orgId = t.org('acme').id;
    const before = await issueCount();
    const events = await t.app.db.prisma.event.count({ where: { orgId } });
    const ctx = operatorContext(t.app.db.prisma, { orgId });
    const title = unique('too late');
    const input = { projectId, title, status: 'Backlog' as const, priority: 'none' as const, labels: [label.name] };
    const create = issueCreate(ctx, orgId, input, [label]);
    expect(await rowsOf(directSql(t.app.db.prisma), create.statement)).toEqual([]);
    expect(await titled(title)).toBe(0);
    expect(await issueCount()).toBe(before);
    expect(await t.app.db.prisma.event.count({ where: { orgId } })).toBe(events);
  });
});

const CREATE_ISSUE = `mutation($input: CreateIssueInput!) {
  createIssue(input: $input) {
    __typename
    ... on MutationCreateIssueSuccess { data { id title labels { id name color } } }
    ... on ValidationError { fieldErrors { field message } }
  }
}`;
const CREATE_ISSUES = `mutation($issues: [CreateIssueInput!]!) {
  createIssues(issues: $issues) {
    __typename
    ... on MutationCreateIssuesSuccess { data { title labels { name } } }
    ... on ValidationError { fieldErrors { index field message } }
  }
}`;

describe('GraphQL createIssue and createIssues with labels', () => {
  test('createIssue answers with the labels; unknown ones are field errors and nothing is written', async () => {
    const [a, b] = [await newLabel(), await newLabel()];
    const created = await gql(member, CREATE_ISSUE, {
      input: { projectId: 'web', title: unique('gql'), labels: [b.id, a.name.toUpperCase()] },
    });
    expect(created.data!.createIssue).toMatchObject({
      __typename: 'MutationCreateIssueSuccess',
      data: { labels: [a, b] },
    });
    const title = unique('gql refused');
    const refused = await gql(member, CREATE_ISSUE, {
      input: { projectId, title, labels: [a.name, 'nope', 'nope either'] },
    });
    expect(refused.data!.createIssue).toEqual({
      __typename: 'ValidationError',
      fieldErrors: [
        { field: 'labels.1', message: 'names no label of this organization' },
        { field: 'labels.2', message: 'names no label of this organization' },
      ],
    });
    expect(await titled(title)).toBe(0);
    const viewer = await gql(t.user('victor').token, CREATE_ISSUE, { input: { projectId, title, labels: [a.name] } });
    expect(JSON.stringify(viewer)).toContain('FORBIDDEN');
    expect(await titled(title)).toBe(0);
  });

  test('createIssues: each item its labels; one unknown label refuses them all, every bad item at once', async () => {
    const [a, b] = [await newLabel(), await newLabel()];
    const created = await gql(member, CREATE_ISSUES, {
      issues: [
        { projectId, title: unique('many'), labels: [a.name] },
        { projectId, title: unique('many') },
        { projectId, title: unique('many'), labels: [b.name, a.id] },
      ],
    });
    expect(
      (created.data!.createIssues as { data: { labels: { name: string }[] }[] }).data.map((i) => i.labels),
    ).toEqual([[{ name: a.name }], [], [{ name: a.name }, { name: b.name }]]);
    const title = unique('many refused');
    const refused = await gql(member, CREATE_ISSUES, {
      issues: [
        { projectId, title, labels: [a.name] },
        { projectId: 'NOPE', title },
        { projectId, title, labels: [b.name, 'missing'] },
      ],
    });
    expect(refused.data!.createIssues).toEqual({
      __typename: 'ValidationError',
      fieldErrors: [
        { index: 1, field: 'issues.1.projectId', message: 'names no project in this organization' },
        { index: 2, field: 'issues.2.labels.1', message: 'names no label of this organization' },
      ],
    });
    expect(await titled(title)).toBe(0);
  });
});

describe('REST POST /api/issues/bulk with labels', () => {
  test('creates each item with its labels; an unknown label is named with its index and nothing is written', async () => {
    const label = await newLabel();
    const response = await t.call('POST', '/api/issues/bulk', {
      token: member,
      body: { issues: [{ project_id: 'WEB', title: unique('bulk'), labels: [label.name] }] },
    });
    expect(response.status).toBe(200);
    expect((await response.json())[0].labels).toEqual([label]);
    const title = unique('bulk refused');
    const errors = await fieldErrors(
      await t.call('POST', '/api/issues/bulk', {
        token: member,
        body: {
          issues: [
            { project_id: 'WEB', title, labels: ['gone'] },
            { project_id: 'WEB', title, labels: [label.id] },
          ],
        },
      }),
    );
    expect(errors).toEqual([{ index: 0, field: 'issues.0.labels.0', message: 'names no label of this organization' }]);
    expect(await titled(title)).toBe(0);
  });
});

describe('MCP create_issue and bulk_issues with labels', () => {
  test('the tools take labels; an unknown one is an error result naming it, and nothing is written', async () => {
    const label = await newLabel();
    const client = await connect(member);
    try {
      const { tools } = await client.listTools();
      const tool = tools.find((candidate) => candidate.name === 'create_issue')!;
      expect(tool.inputSchema.properties).toHaveProperty('labels');
      const created = await client.callTool({
        name: 'create_issue',
        arguments: { project_id: 'WEB', title: unique('tool'), labels: [label.name.toUpperCase()] },
      });
      expect((created.structuredContent as { labels: Label[] }).labels).toEqual([label]);
      const many = await client.callTool({
        name: 'bulk_issues',
        arguments: { issues: [{ project_id: 'WEB', title: unique('tool many'), labels: [label.id] }] },
      });
      expect((many.structuredContent as { items: { labels: Label[] }[] }).items[0]!.labels).toEqual([label]);
      const title = unique('tool refused');
      const refused = await client.callTool({
        name: 'create_issue',
        arguments: { project_id: 'WEB', title, labels: ['unheard-of'] },
      });
      expect(refused.isError).toBe(true);
      expect(JSON.parse((refused.content as { text: string }[])[0]!.text).errors).toEqual([
        { field: 'labels.0', message: 'names no label of this organization' },
      ]);
      expect(await titled(title)).toBe(0);
    } finally {
      await client.close();
    }
  });
});
