import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';
import { expectProblem, fieldErrors } from './support/problem.js';

let t: TestApp;
let member: string;
let projectId: string;
beforeAll(async () => {
  t = await startTestApp();
  member = t.user('mark').token;
  projectId = t.org('acme').projects.find((p) => p.key === 'WEB')!.id;
});
afterAll(() => t.close());

const MISSING = '00000000-0000-4000-8000-000000000000';
const get = (id: string, token = member) => t.call('GET', `/api/issues/${id}`, { token });
const patch = (id: string, body: unknown, token = member) => t.call('PATCH', `/api/issues/${id}`, { token, body });
const remove = (id: string, token: string) => t.call('DELETE', `/api/issues/${id}`, { token });

async function newIssue(body: Record<string, unknown> = {}) {
  const response = await t.call('POST', '/api/issues', {
    token: member,
    body: {
      project_id: projectId,
      title: 'Patch me',
      description: 'Some text.',
      assignee_id: t.user('mark').id,
      ...body,
    },
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; key: string; number: number; updated_at: string };
}

describe('GET /api/issues/:id', () => {
  test('by id or by key (any case): the same issue, with its key', async () => {
    const issue = await newIssue();
    expect(issue.key).toBe(`WEB-${issue.number}`);
    const byId = await get(issue.id, t.user('victor').token);
    expect(byId.status).toBe(200);
    const body = await byId.json();
    expect(body).toEqual(issue);
    expect(await (await get(issue.key)).json()).toEqual(body);
    expect(await (await get(issue.key.toLowerCase())).json()).toEqual(body);
  });

  test('a key of the demo data: WEB-1 is the first issue of Website', async () => {
    const body = await (await get('WEB-1')).json();
    expect(body).toMatchObject({
      key: 'WEB-1',
      number: 1,
      project_id: projectId,
      title: 'Set up continuous integration',
    });
  });
});

describe('PATCH /api/issues/:id', () => {
  test('only the fields sent change; updated_at moves', async () => {
    const issue = await newIssue({ priority: 'low' });
    const response = await patch(issue.id, { status: 'In Progress', title: '  Renamed  ' });
    expect(response.status).toBe(200);
    const updated = await response.json();
    expect(updated).toMatchObject({
      id: issue.id,
      key: issue.key,
      title: 'Renamed',
      status: 'In Progress',
      priority: 'low',
      description: 'Some text.',
      assignee_id: t.user('mark').id,
    });
    expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(Date.parse(issue.updated_at));
    expect(await (await get(issue.id)).json()).toEqual(updated);
  });

  test('null clears description and assignee; absent leaves them', async () => {
    const issue = await newIssue();
    const cleared = await (await patch(issue.key, { description: null })).json();
    expect(cleared).toMatchObject({ description: null, assignee_id: t.user('mark').id });
    const unassigned = await (await patch(issue.id, { assignee_id: null })).json();
    expect(unassigned).toMatchObject({ description: null, assignee_id: null });
    const reassigned = await (await patch(issue.id, { assignee_id: t.user('victor').id, description: 'Back.' })).json();
    expect(reassigned).toMatchObject({ description: 'Back.', assignee_id: t.user('victor').id });
  });

  test('null for title, status or priority is refused, as are values create refuses', async () => {
    const issue = await newIssue();
    expect(await fieldErrors(await patch(issue.id, { title: null, status: null, priority: null }))).toEqual([
      { field: 'title', message: 'cannot be null' },
      { field: 'status', message: 'cannot be null' },
      { field: 'priority', message: 'cannot be null' },
    ]);
    expect(await fieldErrors(await patch(issue.id, { status: 'Blocked', title: ' ' }))).toEqual([
      { field: 'title', message: 'must not be empty' },
      { field: 'status', message: 'must be one of: Backlog, Todo, In Progress, In Review, Done, Canceled' },
    ]);
    expect(await fieldErrors(await patch(issue.id, { priority: 'High' }))).toEqual([
      { field: 'priority', message: 'must be one of: urgent, high, medium, low, none' },
    ]);
    expect(await fieldErrors(await patch(issue.id, { description: 'x'.repeat(50_001) }))).toEqual([
      { field: 'description', message: 'must be at most 50000 characters' },
    ]);
    expect(await fieldErrors(await patch(issue.id, { assignee_id: 'someone' }))).toEqual([
      { field: 'assignee_id', message: 'must be a UUID' },
    ]);
    expect(await fieldErrors(await patch(issue.id, { assignee_id: t.user('bella', 'globex').id }))).toEqual([
      { field: 'assignee_id', message: 'must be a member of the organization' },
    ]);
    expect(await (await get(issue.id)).json()).toMatchObject({ title: 'Patch me', status: 'Backlog' });
  });

  test('fields the server owns (org_id, id, number, key, project_id) are refused and nothing changes', async () => {
    const issue = await newIssue();
    const other = t.org('acme').projects.find((p) => p.key === 'MOB')!.id;
    for (const extra of [
      { org_id: t.org('globex').id },
      { id: MISSING },
      { number: 999 },
      { key: 'WEB-999' },
      { project_id: other },
    ]) {
      const errors = await fieldErrors(await patch(issue.id, { title: 'Smuggled', ...extra }));
      expect(errors).toEqual([{ field: Object.keys(extra)[0], message: 'is not a known field' }]);
    }
    const stored = await t.app.db.prisma.issue.findUniqueOrThrow({ where: { id: issue.id } });
    expect(stored).toMatchObject({ title: 'Patch me', number: issue.number, projectId, orgId: t.org('acme').id });
  });

  test('JSON merge patch media type is accepted; other bodies are refused', async () => {
    const issue = await newIssue();
    const response = await t.call('PATCH', `/api/issues/${issue.id}`, {
      token: member,
      body: { priority: 'urgent' },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(response.status).toBe(200);
    expect((await response.json()).priority).toBe('urgent');
    await expectProblem(
      await t.call('PATCH', `/api/issues/${issue.id}`, { token: member, body: '[]' }),
      400,
      'malformed_json',
    );
  });
});

describe('roles', () => {
  test('every role reads; viewer cannot edit (403), member and above can', async () => {
    const issue = await newIssue();
    for (const who of ['victor', 'mark', 'maya', 'adam', 'olivia'])
      expect((await get(issue.id, t.user(who).token)).status).toBe(200);
    await expectProblem(await patch(issue.id, { title: 'Viewer edit' }, t.user('victor').token), 403, 'forbidden');
    for (const who of ['mark', 'maya', 'adam', 'olivia']) {
      expect((await patch(issue.id, { title: `Edited by ${who}` }, t.user(who).token)).status).toBe(200);
    }
    expect(await (await get(issue.id)).json()).toMatchObject({ title: 'Edited by olivia' });
  });

  test('deleting needs manager or above: viewer and member get 403; manager, admin and owner get 204', async () => {
    const issue = await newIssue();
    for (const who of ['victor', 'mark'])
      await expectProblem(await remove(issue.id, t.user(who).token), 403, 'forbidden');
    expect((await get(issue.id)).status).toBe(200);
    for (const who of ['maya', 'adam', 'olivia']) {
      const doomed = await newIssue();
      const response = await remove(who === 'adam' ? doomed.key : doomed.id, t.user(who).token);
      expect(response.status).toBe(204);
      expect(await response.text()).toBe('');
      await expectProblem(await get(doomed.id), 404, 'not_found');
    }
  });

  test('deleting an issue leaves the numbering alone: the next issue does not reuse its number', async () => {
    const first = await newIssue();
    expect((await remove(first.id, t.user('maya').token)).status).toBe(204);
    const next = await newIssue();
    expect(next.number).toBe(first.number + 1);
  });
});

describe("another organization's issue is answered exactly like a missing one", () => {
  test('GET, PATCH and DELETE by id or key: the same 404 for foreign, missing and malformed; nothing changes', async () => {
    const foreign = await t.app.db.prisma.issue.findFirstOrThrow({ where: { orgId: t.org('globex').id, number: 1 } });
    const owner = t.user('olivia').token;
    // RES-1 exists, but in globex; ZZZ-1 exists nowhere.
    const ids = [foreign.id, 'RES-1', MISSING, 'ZZZ-1', 'WEB-99999', 'no such thing'];
    const requests: [string, unknown?][] = [['GET'], ['PATCH', { title: 'Hijacked' }], ['DELETE']];
    for (const [method, body] of requests) {
      const answers = [];
      for (const id of ids) {
        const response = await t.call(method, `/api/issues/${encodeURIComponent(id)}`, { token: owner, body });
        answers.push(await expectProblem(response, 404, 'not_found'));
      }
      for (const answer of answers) expect(answer).toEqual(answers[0]);
    }
    expect(await t.app.db.prisma.issue.findUniqueOrThrow({ where: { id: foreign.id } })).toEqual(foreign);
  });

  test("mark, a member of both, reaches each organization's issues only with that organization's key", async () => {
    const globexIssue = await t.app.db.prisma.issue.findFirstOrThrow({ where: { orgId: t.org('globex').id } });
    expect((await get(globexIssue.id, t.user('mark', 'globex').token)).status).toBe(200);
    expect((await get(globexIssue.id, t.user('mark', 'acme').token)).status).toBe(404);
  });
});

test('other methods on an issue or a project are 405 with Allow', async () => {
  const issue = await t.call('POST', '/api/issues/WEB-1', { token: member, body: {} });
  await expectProblem(issue, 405, 'method_not_allowed');
  expect(issue.headers.get('allow')).toBe('GET, PATCH, DELETE');
  const project = await t.call('PATCH', `/api/projects/${projectId}`, { token: member, body: {} });
  await expectProblem(project, 405, 'method_not_allowed');
  expect(project.headers.get('allow')).toBe('GET, PUT, DELETE');
});

describe('GraphQL', () => {
  const gql = async (token: string, query: string, variables?: Record<string, unknown>) =>
    (await t.call('POST', '/api/graphql', { token, body: { query, variables } })).json();

  test('issue(id) by id or key, updateIssue and deleteIssue with typed errors', async () => {
    const issue = await newIssue();
    const read = await gql(member, 'query($id: ID!) { issue(id: $id) { id key project { key } } }', { id: issue.key });
    expect(read.data.issue).toEqual({ id: issue.id, key: issue.key, project: { key: 'WEB' } });
    const updated = await gql(
      member,
      `mutation($id: ID!) { updateIssue(id: $id, input: { status: DONE, assigneeId: null }) {
      __typename ... on MutationUpdateIssueSuccess { data { status assigneeId } } } }`,
      { id: issue.id },
    );
    expect(updated.data.updateIssue).toEqual({
      __typename: 'MutationUpdateIssueSuccess',
      data: { status: 'DONE', assigneeId: null },
    });
    const invalid = await gql(
      member,
      `mutation($id: ID!) { updateIssue(id: $id, input: { title: null }) {
      __typename ... on ValidationError { fieldErrors { field message } } } }`,
      { id: issue.id },
    );
    expect(invalid.data.updateIssue).toEqual({
      __typename: 'ValidationError',
      fieldErrors: [{ field: 'title', message: 'cannot be null' }],
    });
    const missing = await gql(
      member,
      `mutation { updateIssue(id: "${MISSING}", input: { title: "x" }) { __typename } }`,
    );
    expect(missing.data.updateIssue).toEqual({ __typename: 'NotFoundError' });
    const forbidden = await gql(member, `mutation($id: ID!) { deleteIssue(id: $id) { __typename } }`, { id: issue.id });
    expect(forbidden.errors[0].extensions.code).toBe('FORBIDDEN');
    const deleted = await gql(
      t.user('maya').token,
      `mutation($id: ID!) { deleteIssue(id: $id) {
      __typename ... on MutationDeleteIssueSuccess { data } } }`,
      { id: issue.key },
    );
    expect(deleted.data.deleteIssue).toEqual({ __typename: 'MutationDeleteIssueSuccess', data: issue.id });
  });
});
