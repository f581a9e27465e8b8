import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { MemoryStore } from '../src/limits/memory-store.js';
import { startTestApp, type TestApp } from './support/app.js';
import { expectProblem, fieldErrors } from './support/problem.js';

let t: TestApp;
let manager: string;
// Project writes are limited to 30 a minute per credential (test/rate-limits-routes.test.ts);
// here each test starts with a fresh window.
let clock = 1_000_000;
beforeEach(() => {
  clock += 61_000;
});
beforeAll(async () => {
  t = await startTestApp({}, { limiterStore: new MemoryStore({ now: () => clock }) });
  manager = t.user('maya').token;
});
afterAll(() => t.close());

const MISSING = '00000000-0000-4000-8000-000000000000';
const create = (body: unknown, token = manager) => t.call('POST', '/api/projects', { token, body });
const update = (id: string, body: unknown, token = manager) => t.call('PUT', `/api/projects/${id}`, { token, body });
const remove = (id: string, query = '', token = manager) => t.call('DELETE', `/api/projects/${id}${query}`, { token });

let keySeq = 0;
/** A fresh key, so that tests do not depend on each other's projects. */
const nextKey = () => `T${++keySeq}X`;

async function newProject(name = 'Scratch') {
  const response = await create({ name, key: nextKey() });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; key: string };
}

async function addIssues(projectId: string, count: number) {
  for (let i = 0; i < count; i++) {
    const response = await t.call('POST', '/api/issues', {
      token: manager,
      body: { project_id: projectId, title: `issue ${i}` },
    });
    expect(response.status).toBe(201);
  }
}

describe('GET /api/projects and /api/projects/:id', () => {
  test("a bare array of the organization's projects by key, each with issue_count and times", async () => {
    const response = await t.call('GET', '/api/projects', { token: t.user('victor').token });
    expect(response.status).toBe(200);
    const projects = await response.json();
    expect(projects.map((p: { key: string }) => p.key)).toEqual(['MOB', 'WEB']);
    expect(projects[1]).toEqual({
      id: t.org('acme').projects.find((p) => p.key === 'WEB')!.id,
      name: 'Website',
      key: 'WEB',
      issue_count: 4,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: expect.any(String),
    });
    const globex = await (await t.call('GET', '/api/projects', { token: t.user('bella', 'globex').token })).json();
    expect(globex.map((p: { key: string }) => p.key)).toEqual(['RES']);
  });

  test('one project by id; issue_count is the number of issues it has now', async () => {
    const project = await newProject();
    await addIssues(project.id, 3);
    const issues = await t.app.db.prisma.issue.findMany({ where: { projectId: project.id } });
    await t.app.db.prisma.issue.delete({ where: { id: issues[0]!.id } });
    const response = await t.call('GET', `/api/projects/${project.id}`, { token: t.user('victor').token });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: project.id, key: project.key, issue_count: 2 });
  });
});

describe('POST /api/projects', () => {
  test('201 with the project and its Location; the key is stored in uppercase, the name trimmed', async () => {
    const response = await create({ name: '  Platform  ', key: 'plat2' });
    expect(response.status).toBe(201);
    const project = await response.json();
    expect(project).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Platform',
      key: 'PLAT2',
      issue_count: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(response.headers.get('location')).toBe(`http://localhost:4000/api/projects/${project.id}`);
    const stored = await t.app.db.prisma.project.findUniqueOrThrow({ where: { id: project.id } });
    expect(stored).toMatchObject({ orgId: t.org('acme').id, key: 'PLAT2', name: 'Platform' });
  });

  test('key: 2 to 10 letters or digits starting with a letter; name: 1 to 100 characters', async () => {
    const keyMessage = 'must be 2 to 10 letters or digits, starting with a letter';
    for (const key of ['A', 'ABCDEFGHIJK', '1AB', 'AB-C', 'AB C', 'ÄBC', '']) {
      expect(await fieldErrors(await create({ name: 'x', key }))).toEqual([{ field: 'key', message: keyMessage }]);
    }
    for (const key of ['AB', 'ABCDEFGHIJ', 'A1', 'x9z']) expect((await create({ name: 'ok', key })).status).toBe(201);
    expect(await fieldErrors(await create({ name: '  ', key: nextKey() }))).toEqual([
      { field: 'name', message: 'must not be empty' },
    ]);
    expect(await fieldErrors(await create({ name: 'n'.repeat(101), key: nextKey() }))).toEqual([
      { field: 'name', message: 'must be at most 100 characters' },
    ]);
    const missing = await fieldErrors(await create({}));
    expect(missing).toEqual(
      expect.arrayContaining([
        { field: 'name', message: 'is required' },
        { field: 'key', message: 'is required' },
      ]),
    );
  });

  test('fields the server owns (org_id, id, issue_count) are refused, and nothing is created', async () => {
    const before = await t.app.db.prisma.project.count();
    for (const extra of [{ org_id: t.org('globex').id }, { id: MISSING }, { issue_count: 5 }]) {
      const errors = await fieldErrors(await create({ name: 'Smuggler', key: nextKey(), ...extra }));
      expect(errors).toEqual([{ field: Object.keys(extra)[0], message: 'is not a known field' }]);
    }
    expect(await t.app.db.prisma.project.count()).toBe(before);
  });

  test("a key already used in the organization is 409, in any case; another organization's key is free", async () => {
    const problem = await expectProblem(await create({ name: 'Web two', key: 'web' }), 409, 'conflict');
    expect(problem.detail).toMatch(/WEB/);
    // RES belongs to globex; keys are unique per organization only.
    expect((await create({ name: 'Research here', key: 'RES' })).status).toBe(201);
  });

  test('concurrent creates with one key: exactly one 201, the others 409', async () => {
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => create({ name: `Race ${i}`, key: 'SAMEKEY' })),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array(9).fill(409)]);
    expect(await t.app.db.prisma.project.count({ where: { key: 'SAMEKEY' } })).toBe(1);
  });
});

describe('PUT /api/projects/:id', () => {
  test('changes name and/or key; a field left out stays; the new key renames the issue keys', async () => {
    const project = await newProject('Before');
    await addIssues(project.id, 1);
    const renamed = await update(project.id, { name: 'After' });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toMatchObject({ name: 'After', key: project.key, issue_count: 1 });
    const rekeyed = await (await update(project.id, { key: 'newkey' })).json();
    expect(rekeyed).toMatchObject({ name: 'After', key: 'NEWKEY' });
    const issue = await (await t.call('GET', '/api/issues/NEWKEY-1', { token: manager })).json();
    expect(issue).toMatchObject({ key: 'NEWKEY-1', project_id: project.id });
    expect((await t.call('GET', `/api/issues/${project.key}-1`, { token: manager })).status).toBe(404);
  });

  test('validation as on create; null is refused; the key of another project is 409; keeping its own key is fine', async () => {
    const project = await newProject();
    expect(await fieldErrors(await update(project.id, { key: '9' }))).toEqual([
      { field: 'key', message: 'must be 2 to 10 letters or digits, starting with a letter' },
    ]);
    expect(await fieldErrors(await update(project.id, { name: null }))).toEqual([
      { field: 'name', message: 'cannot be null' },
    ]);
    expect(await fieldErrors(await update(project.id, { org_id: t.org('globex').id }))).toEqual([
      { field: 'org_id', message: 'is not a known field' },
    ]);
    await expectProblem(await update(project.id, { key: 'MOB' }), 409, 'conflict');
    expect((await update(project.id, { key: project.key.toLowerCase() })).status).toBe(200);
  });
});

describe('DELETE /api/projects/:id', () => {
  test('an empty project: 204, and it is gone', async () => {
    const project = await newProject();
    const response = await remove(project.id);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect((await t.call('GET', `/api/projects/${project.id}`, { token: manager })).status).toBe(404);
  });

  test('a project with issues: 409 and nothing deleted; with force=true, 204 and its issues are gone too', async () => {
    const project = await newProject();
    await addIssues(project.id, 2);
    const refused = await expectProblem(await remove(project.id), 409, 'conflict');
    expect(refused.detail).toMatch(/2 issues/);
    expect(await t.app.db.prisma.issue.count({ where: { projectId: project.id } })).toBe(2);
    await expectProblem(await remove(project.id, '?force=false'), 409, 'conflict');
    expect((await remove(project.id, '?force=true')).status).toBe(204);
    expect(await t.app.db.prisma.project.count({ where: { id: project.id } })).toBe(0);
    expect(await t.app.db.prisma.issue.count({ where: { projectId: project.id } })).toBe(0);
  });

  test('force must be true or false', async () => {
    const project = await newProject();
    const errors = await fieldErrors(await remove(project.id, '?force=yes'));
    expect(errors?.map((e) => e.field)).toEqual(['force']);
  });

  test('deleting without force never takes an issue created at the same moment', async () => {
    for (let round = 0; round < 3; round++) {
      const project = await newProject();
      const creates = Array.from({ length: 10 }, (_, i) =>
        t.call('POST', '/api/issues', { token: manager, body: { project_id: project.id, title: `race ${i}` } }),
      );
      const [deleted, ...created] = await Promise.all([remove(project.id), ...creates]);
      const made = created.filter((r) => r.status === 201).length;
      expect(created.every((r) => r.status === 201 || r.status === 404)).toBe(true);
      if (deleted.status === 204) expect(made).toBe(0);
      else expect(deleted.status).toBe(409);
      expect(await t.app.db.prisma.issue.count({ where: { projectId: project.id } })).toBe(
        deleted.status === 204 ? 0 : made,
      );
    }
  });
});

describe('roles', () => {
  test('create, update and delete need manager or above; viewer and member get 403 and change nothing', async () => {
    const target = await newProject('Role target');
    for (const who of ['victor', 'mark']) {
      const token = t.user(who).token;
      await expectProblem(await create({ name: 'Nope', key: nextKey() }, token), 403, 'forbidden');
      await expectProblem(await update(target.id, { name: 'Nope' }, token), 403, 'forbidden');
      await expectProblem(await remove(target.id, '', token), 403, 'forbidden');
    }
    expect(await t.app.db.prisma.project.findUniqueOrThrow({ where: { id: target.id } })).toMatchObject({
      name: 'Role target',
    });
    for (const who of ['maya', 'adam', 'olivia']) {
      const token = t.user(who).token;
      const created = await create({ name: `By ${who}`, key: nextKey() }, token);
      expect(created.status).toBe(201);
      const { id } = await created.json();
      expect((await update(id, { name: `Renamed by ${who}` }, token)).status).toBe(200);
      expect((await remove(id, '', token)).status).toBe(204);
    }
  });

  test('every role can read', async () => {
    const id = t.org('acme').projects[0]!.id;
    for (const who of ['victor', 'mark', 'maya', 'adam', 'olivia']) {
      expect((await t.call('GET', '/api/projects', { token: t.user(who).token })).status).toBe(200);
      expect((await t.call('GET', `/api/projects/${id}`, { token: t.user(who).token })).status).toBe(200);
    }
  });
});

describe("another organization's project is answered exactly like a missing one", () => {
  test('GET, PUT and DELETE: the same 404 for a foreign id, a missing id and a malformed id; nothing changes', async () => {
    const foreign = t.org('globex').projects[0]!;
    const owner = t.user('olivia').token;
    const requests: [string, string, unknown?][] = [
      ['GET', ''],
      ['PUT', '', { name: 'Hijacked' }],
      ['DELETE', '?force=true'],
    ];
    for (const [method, query, body] of requests) {
      const answers = [];
      for (const id of [foreign.id, MISSING, 'not-a-uuid']) {
        const response = await t.call(method, `/api/projects/${id}${query}`, { token: owner, body });
        answers.push(await expectProblem(response, 404, 'not_found'));
      }
      expect(answers[0]).toEqual(answers[1]);
      expect(answers[0]).toEqual(answers[2]);
    }
    const stored = await t.app.db.prisma.project.findUniqueOrThrow({ where: { id: foreign.id } });
    expect(stored.name).toBe('Research');
    expect(await t.app.db.prisma.issue.count({ where: { projectId: foreign.id } })).toBe(4);
  });
});

describe('GraphQL', () => {
  const gql = async (token: string, query: string, variables?: Record<string, unknown>) =>
    (await t.call('POST', '/api/graphql', { token, body: { query, variables } })).json();

  test('project(id), createProject, updateProject and deleteProject with typed errors', async () => {
    const created = await gql(
      manager,
      `mutation { createProject(input: { name: "Graph", key: "gql" }) {
      __typename ... on MutationCreateProjectSuccess { data { id key issueCount } } ... on Error { code } } }`,
    );
    expect(created.data.createProject).toMatchObject({
      __typename: 'MutationCreateProjectSuccess',
      data: { key: 'GQL', issueCount: 0 },
    });
    const id = created.data.createProject.data.id;
    const clash = await gql(
      manager,
      `mutation { createProject(input: { name: "Again", key: "GQL" }) { __typename ... on Error { code message } } }`,
    );
    expect(clash.errors).toBeUndefined();
    expect(clash.data.createProject).toMatchObject({ __typename: 'ConflictError', code: 'CONFLICT' });
    const read = await gql(t.user('victor').token, 'query($id: ID!) { project(id: $id) { key name } }', { id });
    expect(read.data.project).toEqual({ key: 'GQL', name: 'Graph' });
    const renamed = await gql(
      manager,
      `mutation($id: ID!) { updateProject(id: $id, input: { name: "Graphs" }) {
      ... on MutationUpdateProjectSuccess { data { name } } } }`,
      { id },
    );
    expect(renamed.data.updateProject.data.name).toBe('Graphs');
    const foreign = await gql(manager, 'query($id: ID!) { project(id: $id) { key } }', {
      id: t.org('globex').projects[0]!.id,
    });
    expect(foreign.errors[0].extensions.code).toBe('NOT_FOUND');
    const deleted = await gql(
      manager,
      `mutation($id: ID!) { deleteProject(id: $id) { __typename ... on MutationDeleteProjectSuccess { data } } }`,
      { id },
    );
    expect(deleted.data.deleteProject).toEqual({ __typename: 'MutationDeleteProjectSuccess', data: id });
    const member = await gql(
      t.user('mark').token,
      'mutation { createProject(input: { name: "x", key: "XX" }) { __typename } }',
    );
    expect(member.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('a project by its key', () => {
  test("GET, PUT and DELETE take the key (any case) as issues do; another organization's key is a 404", async () => {
    const project = await (await create({ name: 'By key', key: 'BYKEY' })).json();
    const byId = await (await t.call('GET', `/api/projects/${project.id}`, { token: manager })).json();
    for (const key of ['BYKEY', 'bykey', 'ByKey']) {
      const response = await t.call('GET', `/api/projects/${key}`, { token: manager });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(byId);
    }
    expect(await (await update('bykey', { name: 'Renamed by key' })).json()).toMatchObject({
      id: project.id,
      name: 'Renamed by key',
    });
    // A key of globex only is not found from acme, exactly as a missing one.
    const globex = await t.call('POST', '/api/projects', {
      token: t.user('bella', 'globex').token,
      body: { name: 'Globex only', key: 'GLOBONLY' },
    });
    expect(globex.status).toBe(201);
    await expectProblem(await t.call('GET', '/api/projects/globonly', { token: manager }), 404, 'not_found');
    expect((await t.call('GET', '/api/projects/globonly', { token: t.user('bella', 'globex').token })).status).toBe(
      200,
    );
    await expectProblem(await t.call('GET', '/api/projects/NOPE', { token: manager }), 404, 'not_found');
    await expectProblem(await t.call('GET', '/api/projects/not-a-key', { token: manager }), 404, 'not_found');
    expect((await remove('BYKEY')).status).toBe(204);
    await expectProblem(await t.call('GET', `/api/projects/${project.id}`, { token: manager }), 404, 'not_found');
  });
});
