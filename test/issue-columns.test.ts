import { afterAll, beforeAll, describe, expect, expectTypeOf, test } from 'vitest';
import { Prisma, type Issue } from '../src/generated/prisma/client.js';
import { compiled } from '../src/db/sql-builder.js';
import { ISSUE_FIELDS, issueData } from '../src/events/subjects.js';
import {
  ISSUE_COLUMNS,
  ISSUE_FIELD_NAMES,
  ISSUE_TABLE,
  LOADED_FIELDS,
  type IssueColumnDeclaration,
} from '../src/schema/issues/columns.js';
import { CreateIssue, NEW_ISSUE_LABELS_DESCRIPTION, UpdateIssue } from '../src/schema/issues/input.js';
import { issueListStatement } from '../src/schema/issues/list-sql.js';
import { IssueOrder } from '../src/schema/issues/order.js';
import { IssueJson, type IssueJsonShape } from '../src/schema/issues/representation.js';
import type { IssueView } from '../src/web/issues.js';
import { startTestApp, type TestApp } from './support/app.js';

/**
 * Every surface's list of issue fields comes from the one column declaration
 * (src/schema/issues/columns.ts): the REST JSON, its OpenAPI schema, the webhook `data`, the
 * page view, the GraphQL Issue fields, the create and update inputs (GraphQL's input types, the
 * operations' rules), the fields history records and the statements' select lists.
 */

const declared = ISSUE_FIELD_NAMES.map((field) => [field, ISSUE_TABLE[field] as IssueColumnDeclaration] as const);
/** The JSON fields: the shown columns in declaration order, the key after the id, the labels after the assignee. */
const jsonNames = (() => {
  const [id, ...rest] = declared.filter(([, d]) => d.json).map(([, d]) => d.json!.name);
  return [id, 'key', ...rest].flatMap((name) => (name === 'assignee_id' ? [name, 'labels'] : [name]));
})();

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('the issue column declaration', () => {
  test('every column of the model is declared (a missing one does not compile)', () => {
    const { description: _left, ...withoutOne } = ISSUE_TABLE;
    // @ts-expect-error the declaration must name every field of the Prisma model
    withoutOne satisfies { [Field in keyof Issue]: IssueColumnDeclaration };
    expect(Object.keys(ISSUE_TABLE).sort()).toEqual(Object.values(Prisma.IssueScalarFieldEnum).sort());
  });

  test('the REST JSON (a real answer), its OpenAPI schema, the webhook data and the page view hold exactly the declared fields', async () => {
    const projectId = t.org('acme').projects.find((p) => p.key === 'WEB')!.id;
    const token = t.user('mark').token;
    const created = await t.call('POST', '/api/issues', { token, body: { project_id: projectId, title: 'Columns' } });
    expect(created.status).toBe(201);
    const body = (await created.json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(jsonNames);
    expect(Object.keys(IssueJson.fields)).toEqual(jsonNames);

    const document = (await (await t.call('GET', '/api/openapi.json')).json()) as {
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    const schema = document.components.schemas.Issue!;
    expect(Object.keys(schema.properties)).toEqual(jsonNames);

    const now = new Date();
    // Every declared column (null where the row has no value of its own), so a new column needs no edit here.
    const columns = Object.fromEntries(ISSUE_FIELD_NAMES.map((field) => [field, null])) as unknown as Issue;
    const snapshot = {
      ...columns,
      id: body.id as string,
      orgId: t.org('acme').id,
      projectId,
      number: 1,
      title: 'x',
      status: 'Backlog',
      priority: 'none',
      createdAt: now,
      updatedAt: now,
      project: { key: 'WEB' },
      labels: [] as { label: { id: string; name: string; color: string } }[],
    } as const;
    expect(Object.keys(issueData(snapshot))).toEqual(jsonNames);

    expectTypeOf<keyof IssueView>().toEqualTypeOf<keyof IssueJsonShape>();
    expectTypeOf<IssueView['created_at']>().toEqualTypeOf<string>();
  });

  test('the GraphQL Issue object has a field per declared GraphQL column, with its description and nullability', async () => {
    const response = await t.call('POST', '/api/graphql', {
      token: t.user('mark').token,
      body: { query: '{ __type(name: "Issue") { fields { name description type { kind } } } }' },
    });
    const { data } = (await response.json()) as {
      data: { __type: { fields: { name: string; description: string; type: { kind: string } }[] } };
    };
    const fields = new Map(data.__type.fields.map((field) => [field.name, field]));
    for (const [name, declaration] of declared) {
      if (!declaration.graphql) {
        expect(fields.has(name)).toBe(false);
        continue;
      }
      expect(fields.get(name)?.description).toBe(declaration.graphql.description);
      expect(fields.get(name)?.type.kind === 'NON_NULL').toBe(!declaration.nullable);
    }
  });

  test('the GraphQL create and update inputs have a field per written column (and the labels a new issue carries), and history records the updatable ones', async () => {
    const inputFields = async (type: string) => {
      const response = await t.call('POST', '/api/graphql', {
        token: t.user('mark').token,
        body: { query: `{ __type(name: "${type}") { inputFields { name description type { kind } } } }` },
      });
      const { data } = (await response.json()) as {
        data: { __type: { inputFields: { name: string; description: string; type: { kind: string } }[] } };
      };
      // The served schema lists fields by name.
      return data.__type.inputFields.map(({ name, description, type }) => ({
        name,
        description,
        required: type.kind === 'NON_NULL',
      }));
    };
    const written = declared.filter(([, d]) => d.write);
    const byName = <T extends { name: string }>(list: T[]) => list.sort((a, b) => a.name.localeCompare(b.name));
    // Labels are not a column: the create's input (src/schema/issues/input.ts) adds them, on every surface.
    const labels = { name: 'labels', description: NEW_ISSUE_LABELS_DESCRIPTION, required: false };
    expect(await inputFields('CreateIssueInput')).toEqual(
      byName([
        ...written.map(([name, d]) => ({
          name,
          description: d.write!.create.description,
          required: d.write!.create.required === true,
        })),
        labels,
      ]),
    );
    const updated = written.filter(([, d]) => d.write!.update);
    expect(await inputFields('UpdateIssueInput')).toEqual(
      byName(updated.map(([name, d]) => ({ name, description: d.write!.update!.description, required: false }))),
    );
    expect(ISSUE_FIELDS).toEqual(updated.map(([name]) => name));
    expect(Object.keys(CreateIssue.shape)).toEqual([...written.map(([name]) => name), 'labels']);
    expect(Object.keys(UpdateIssue.shape)).toEqual(updated.map(([name]) => name));
  });

  test('the list statement selects the loaded columns, by their declared SQL names', () => {
    const { text } = compiled(
      issueListStatement({
        orgId: t.org('acme').id,
        filter: { q: 'x' },
        order: new IssueOrder().sortKeys(),
        seeks: [],
        take: 1,
        description: true,
        projectKey: false,
        labels: false,
      }),
    );
    for (const field of [...LOADED_FIELDS, 'description' as const])
      expect(text).toContain(`"i"."${ISSUE_TABLE[field].column}" as "${field}"`);
    expect(Object.keys(ISSUE_COLUMNS)).toEqual(LOADED_FIELDS);
  });
});
