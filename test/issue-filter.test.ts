import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { answeredByCounts } from '../src/schema/issues/aggregates.js';
import {
  ISSUE_FILTER,
  ISSUE_FILTER_PARAMETERS,
  IssueFilter,
  issueFilterWhere,
  type IssueFilterField,
  type IssueFilterShape,
} from '../src/schema/issues/filter.js';
import { issueFilterConditions } from '../src/schema/issues/filter-sql.js';
import { startTestApp, type TestApp } from './support/app.js';
import { fieldErrors } from './support/problem.js';
import { filterValueArbitraries } from './support/issue-world.js';

// The issue filter is one table (src/schema/issues/filter.ts); every surface and translator takes
// its entries from it. These tests read each target through the real stack and fail on an entry
// that one of them lacks. (That the targets select the same issues is the property tests' job:
// test/issue-aggregates.test.ts and test/hand-written-sql.test.ts.)

const FIELDS = Object.keys(ISSUE_FILTER) as IssueFilterField[];
const REST_NAMES = ISSUE_FILTER_PARAMETERS.map((p) => p.name);

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startTestApp();
  token = t.user('mark').token;
});
afterAll(() => t.close());

const gql = async (query: string, variables?: Record<string, unknown>) =>
  (await (await t.call('POST', '/api/graphql', { token, body: { query, variables } })).json()) as {
    data?: Record<string, unknown>;
    errors?: { message: string; extensions?: { code?: string; fieldErrors?: { field: string }[] } }[];
  };

describe('every entry of the issue filter', () => {
  test('is a field of the GraphQL input IssueFilter, beside and/or/not', async () => {
    const body = await gql('{ __type(name: "IssueFilter") { inputFields { name } } }');
    const names = (body.data!.__type as { inputFields: { name: string }[] }).inputFields.map((f) => f.name);
    expect(names.sort()).toEqual([...FIELDS, 'and', 'or', 'not'].sort());
  });

  test('is checked by the rule of every surface: a wrong value is a field error naming it', async () => {
    for (const field of FIELDS) {
      const body = await gql('query($f: IssueFilter) { issues(filter: $f, first: 1) { edges { cursor } } }', {
        f: { [field]: 'x'.repeat(101) },
      });
      // A value GraphQL's own types refuse never reaches the rule; one they accept is refused by it.
      const named = body.errors?.[0]?.extensions?.fieldErrors?.map((e) => e.field) ?? [body.errors?.[0]?.message];
      // A list's wrong item is named by its index (`filter.label.0`).
      const namesIt = (n: string | undefined) =>
        n === `filter.${field}` || n?.startsWith(`filter.${field}.`) || n?.includes(`"f.${field}"`);
      expect({ field, named: named.some(namesIt) }).toEqual({
        field,
        named: true,
      });
      // The operations' rule itself (the one REST, MCP and pages run too) refuses it by the entry's name.
      const refused = IssueFilter.safeParse({ [field]: true });
      expect({ field, path: refused.error?.issues[0]?.path }).toEqual({ field, path: [field] });
    }
  });

  test('with a REST name is a query parameter of GET /api/issues in the OpenAPI document, and a wrong value is a 400 naming it', async () => {
    expect(REST_NAMES.length).toBeGreaterThan(0);
    const doc = await (await t.call('GET', '/api/openapi.json')).json();
    const parameters = (doc.paths['/issues'].get.parameters as { name: string; in: string }[])
      .filter((p) => p.in === 'query')
      .map((p) => p.name);
    expect(parameters).toEqual(expect.arrayContaining(REST_NAMES));
    for (const name of REST_NAMES) {
      const errors = await fieldErrors(await t.call('GET', `/api/issues?${name}=${'x'.repeat(101)}`, { token }));
      // A list's wrong item is named by its index (`label.0`).
      expect(errors!.map((e) => e.field.replace(/\.\d+$/, ''))).toEqual([name]);
    }
  });

  test('gives Prisma and SQL conditions alike: both or neither, for random values', () => {
    const values = filterValueArbitraries();
    for (const field of FIELDS) {
      const samples = fc.sample(values[field] as fc.Arbitrary<unknown>, { seed: 7, numRuns: 30 });
      let conditions = 0;
      for (const value of samples) {
        const filter = { [field]: value } as IssueFilterShape;
        const prisma = issueFilterWhere(filter).length > 0;
        expect({ field, value, sql: issueFilterConditions(filter, 'i').length > 0 }).toEqual({
          field,
          value,
          sql: prisma,
        });
        if (prisma) conditions++;
      }
      expect({ field, conditions: conditions > 0 }).toEqual({ field, conditions: true });
    }
  });

  test('is answered from the kept counts exactly when issue_counts holds what it reads', () => {
    const values = filterValueArbitraries();
    const countable = FIELDS.filter((field) => {
      const value = fc.sample(values[field] as fc.Arbitrary<unknown>, { seed: 3, numRuns: 1 })[0];
      return answeredByCounts({ filter: { [field]: value } as IssueFilterShape }, ['status']);
    });
    expect(countable).toEqual(['status', 'priority', 'assigneeId']);
  });
});
