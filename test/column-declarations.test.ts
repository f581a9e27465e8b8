import { afterAll, beforeAll, describe, expect, expectTypeOf, test } from 'vitest';
import { Prisma, type Project, type User } from '../src/generated/prisma/client.js';
import { lockProject, projectChange } from '../src/events/subjects.js';
import type { ColumnDeclaration } from '../src/schema/core/column-declaration.js';
import { columnFields } from '../src/schema/core/column-graphql.js';
import { NewAccount, updateProfile } from '../src/schema/people/account.js';
import { USER_COLUMNS, USER_TABLE } from '../src/schema/people/columns.js';
import { UserJson } from '../src/schema/people/representation.js';
import { PROJECT_COLUMNS, PROJECT_FIELD_NAMES, PROJECT_TABLE } from '../src/schema/projects/columns.js';
import { createProject, updateProject } from '../src/schema/projects/operations.js';
import {
  ProjectJson,
  type ProjectJsonShape,
  ProjectSummaryJson,
  type ProjectRow,
} from '../src/schema/projects/representation.js';
import type { ProjectView } from '../src/web/org-data.js';
import { startTestApp, type TestApp } from './support/app.js';

/**
 * Every surface's list of project and user fields comes from the tables' column declarations
 * (src/schema/projects/columns.ts, src/schema/people/columns.ts), as the issue's do
 * (test/issue-columns.test.ts): the REST JSON, its OpenAPI schema, the webhook `data`, the page
 * view, the GraphQL fields and input types, the operations' inputs, the base selections, the
 * fields history records and the select list of the statement that locks a project.
 */

type Declared = [name: string, declaration: ColumnDeclaration];
const entries = (table: Record<string, ColumnDeclaration>): Declared[] => Object.entries(table);
const projects = entries(PROJECT_TABLE);
const users = entries(USER_TABLE);
const jsonNames = (declared: Declared[]) => declared.flatMap(([, d]) => (d.json ? [d.json.name] : []));

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

async function graphql(token: string, query: string) {
  const response = await t.call('POST', '/api/graphql', { token, body: { query } });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data: Record<string, any>; errors?: unknown };
  expect(body.errors).toBeUndefined();
  return body.data;
}

/** The fields of a GraphQL object type, by name, as the served schema describes them. */
async function objectFields(type: string) {
  const data = await graphql(
    t.user('maya').token,
    `{ __type(name: "${type}") { fields { name description type { kind } } } }`,
  );
  const fields = data.__type.fields as { name: string; description: string; type: { kind: string } }[];
  return new Map(fields.map((field) => [field.name, field]));
}

/** The fields of a GraphQL input type, in the served schema's order (by name). */
async function inputFields(type: string) {
  const data = await graphql(
    t.user('maya').token,
    `{ __type(name: "${type}") { inputFields { name description type { kind } } } }`,
  );
  const fields = data.__type.inputFields as { name: string; description: string; type: { kind: string } }[];
  return fields.map(({ name, description, type }) => ({ name, description, required: type.kind === 'NON_NULL' }));
}

const byName = <T extends { name: string }>(list: T[]) => list.sort((a, b) => a.name.localeCompare(b.name));

async function openApiProperties(schema: string): Promise<string[]> {
  const document = (await (await t.call('GET', '/api/openapi.json')).json()) as {
    components: { schemas: Record<string, { properties: Record<string, unknown> }> };
  };
  return Object.keys(document.components.schemas[schema]!.properties);
}

describe('the project column declaration', () => {
  test('every column of the model is declared (a missing one does not compile)', () => {
    const { issueCount: _left, ...withoutOne } = PROJECT_TABLE;
    // @ts-expect-error the declaration must name every field of the Prisma model
    withoutOne satisfies { [Field in keyof Project]: ColumnDeclaration };
    expect(Object.keys(PROJECT_TABLE).sort()).toEqual(Object.values(Prisma.ProjectScalarFieldEnum).sort());
  });

  test('the REST JSON (a real answer), its OpenAPI schema, the webhook data and the page view hold exactly the declared fields', async () => {
    const [id, name, key, ...rest] = jsonNames(projects);
    expect([id, name, key]).toEqual(['id', 'name', 'key']);
    const expected = [id, name, key, 'issue_count', ...rest];

    const created = await t.call('POST', '/api/projects', {
      token: t.user('maya').token,
      body: { name: 'Columns', key: 'COLS' },
    });
    expect(created.status).toBe(201);
    const body = (await created.json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(expected);
    expect(Object.keys(ProjectJson.fields)).toEqual(expected);
    expect(await openApiProperties('Project')).toEqual(expected);
    expect(await openApiProperties('ProjectSummary')).toEqual(['id', 'name', 'key']);
    expect(Object.keys(ProjectSummaryJson.select)).toEqual(['id', 'name', 'key']);

    const row = await t.app.db.prisma.project.findUniqueOrThrow({
      where: { id: body.id as string },
      include: { _count: { select: { issues: true } } },
    });
    expect(projectChange('project.created', null, row).data).toEqual(body);

    expectTypeOf<ProjectView>().toEqualTypeOf<ProjectJsonShape>();
    expectTypeOf<ProjectView['created_at']>().toEqualTypeOf<string>();
  });

  test('the GraphQL Project object has a field per declared GraphQL column, with its description and nullability', async () => {
    const fields = await objectFields('Project');
    for (const [name, declaration] of projects) {
      if (!declaration.graphql) {
        // GraphQL's issueCount is how many issues the project has, not the column of that name.
        if (name !== 'issueCount') expect(fields.has(name), name).toBe(false);
        continue;
      }
      expect(fields.get(name)?.description).toBe(declaration.graphql.description);
      expect(fields.get(name)?.type.kind === 'NON_NULL').toBe(!declaration.nullable);
    }
    expect(Object.keys(PROJECT_COLUMNS)).toEqual(projects.filter(([, d]) => d.loaded).map(([name]) => name));
  });

  test('the create and update inputs have a field per written column, and history records the updatable ones', async () => {
    const written = projects.filter(([, d]) => d.write);
    const updated = written.filter(([, d]) => d.write!.update);
    expect(await inputFields('CreateProjectInput')).toEqual(
      byName(
        written.map(([name, d]) => ({
          name,
          description: d.write!.create.description,
          required: d.write!.create.required === true,
        })),
      ),
    );
    expect(await inputFields('UpdateProjectInput')).toEqual(
      byName(updated.map(([name, d]) => ({ name, description: d.write!.update!.description, required: false }))),
    );
    expect(Object.keys(createProject.input.shape)).toEqual(written.map(([name]) => name));
    expect(Object.keys(updateProject.input.shape)).toEqual(['id', ...updated.map(([name]) => name)]);

    const before = await t.app.db.prisma.project.findFirstOrThrow({
      where: { orgId: t.org('acme').id },
      include: { _count: { select: { issues: true } } },
    });
    const after = { ...before, name: `${before.name}!`, key: `${before.key}X`, issueCount: before.issueCount + 1 };
    const change = projectChange('project.updated', before, after);
    expect(change.changes.map((c) => c.field)).toEqual(updated.map(([name]) => name));
  });

  test('the statement that locks a project reads every declared column', async () => {
    const project = await t.app.db.prisma.project.findFirstOrThrow({ where: { orgId: t.org('acme').id } });
    const locked = await t.app.db.prisma.$transaction((tx) =>
      lockProject(tx, { orgId_id: { orgId: project.orgId, id: project.id } }),
    );
    const { _count, ...columns } = locked as ProjectRow;
    expect(columns).toEqual(project);
    expect(Object.keys(columns)).toEqual(PROJECT_FIELD_NAMES);
  });
});

describe('the user column declaration', () => {
  test('every column of the model is declared (a missing one does not compile)', () => {
    const { passwordHash: _left, ...withoutOne } = USER_TABLE;
    // @ts-expect-error the declaration must name every field of the Prisma model
    withoutOne satisfies { [Field in keyof User]: ColumnDeclaration };
    expect(Object.keys(USER_TABLE).sort()).toEqual(Object.values(Prisma.UserScalarFieldEnum).sort());
  });

  test('rows are loaded with the small public columns: never the password hash, the email only when asked for', () => {
    expect(Object.keys(USER_COLUMNS)).toEqual(['id', 'name', 'username', 'locale']);
    expectTypeOf<keyof typeof USER_COLUMNS>().toEqualTypeOf<'id' | 'name' | 'username' | 'locale'>();
    expect(USER_TABLE.passwordHash).not.toHaveProperty('json');
    expect(USER_TABLE.passwordHash).not.toHaveProperty('graphql');
  });

  test('the rule of a restricted field is required: without it, the fields neither compile nor build', () => {
    const t = { field: (options: never) => options };
    // @ts-expect-error email is restricted: the object gives its rule
    expect(() => columnFields(t, USER_TABLE, ['id', 'email'])).toThrow('The restricted field email needs a rule.');
    expect(Object.keys(columnFields(t, USER_TABLE, ['id', 'name']))).toEqual(['id', 'name']);
  });

  test('GET /me (a real answer), its OpenAPI schema and the GraphQL User object hold exactly the declared fields', async () => {
    const expected = jsonNames(users);
    const me = await t.call('GET', '/api/me', { token: t.user('mark').token });
    expect(me.status).toBe(200);
    expect(Object.keys((await me.json()) as object)).toEqual(expected);
    expect(Object.keys(UserJson.fields)).toEqual(expected);
    expect(await openApiProperties('User')).toEqual(expected);

    const fields = await objectFields('User');
    const shown = users.filter(([, d]) => d.graphql);
    expect([...fields.keys()].sort()).toEqual(shown.map(([name]) => name).sort());
    for (const [name, declaration] of shown) {
      expect(fields.get(name)?.description).toBe(declaration.graphql!.description);
      // A restricted field is null for the callers its rule turns away.
      const nullable = declaration.nullable || declaration.graphql!.restricted === true;
      expect(fields.get(name)?.type.kind === 'NON_NULL', name).toBe(!nullable);
    }
  });

  test("a user's email: their own always; other people's for managers and above, null for the others", async () => {
    const query = '{ me { id email } issues(first: 100) { edges { node { assignee { id email } } } } }';
    const emails = async (username: string) => {
      const data = await graphql(t.user(username).token, query);
      const assignees = (data.issues.edges as { node: { assignee: { id: string; email: string | null } | null } }[])
        .map((edge) => edge.node.assignee)
        .filter((assignee) => assignee !== null);
      return { me: data.me as { id: string; email: string | null }, assignees };
    };
    for (const username of ['victor', 'mark']) {
      const { me, assignees } = await emails(username);
      expect(me.email).toBe(`${username}@example.com`);
      const others = assignees.filter((assignee) => assignee.id !== me.id);
      expect(others.length).toBeGreaterThan(0);
      expect(others.every((assignee) => assignee.email === null)).toBe(true);
    }
    const { assignees } = await emails('maya');
    expect(assignees.length).toBeGreaterThan(0);
    for (const assignee of assignees) {
      const user = t.seed.users.find((u) => u.id === assignee.id)!;
      expect(assignee.email).toBe(user.email);
    }
  });

  test('a new account takes the written columns, and a person changes the updatable ones of their own', () => {
    const written = users.filter(([, d]) => d.write);
    expect(Object.keys(NewAccount.shape)).toEqual(written.map(([name]) => name));
    expect(Object.keys(updateProfile.input.shape)).toEqual(
      written.filter(([, d]) => d.write!.update).map(([name]) => name),
    );
  });
});
