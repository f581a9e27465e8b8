import { readFileSync } from 'node:fs';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { QUERY_LIMITS } from '../src/limits/graphql-query.js';
import { schema } from '../src/schema/index.js';
import { startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const gql = async (query: string, app = t.app) => {
  const response = await app.fetch(
    new Request('http://localhost:4000/api/graphql', {
      method: 'POST',
      body: JSON.stringify({ query }),
      headers: { authorization: `Bearer ${t.user('olivia').token}`, 'content-type': 'application/json' },
    }),
  );
  return {
    status: response.status,
    body: (await response.json()) as { data?: unknown; errors?: { message: string }[] },
  };
};

describe('the GraphQL contract', () => {
  test('schema.graphql is the current schema (run `npm run schema:print` after changing it)', () => {
    expect(readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8')).toBe(
      `${printSchema(lexicographicSortSchema(schema))}\n`,
    );
  });
});

describe('query limits', () => {
  test(`depth over ${QUERY_LIMITS.maxDepth} is refused before running, with a clear error`, async () => {
    // 11 levels, each a single field, so depth and not cost is what trips.
    const { body } = await gql(
      '{ issues(first: 1) { edges { node { project { organization { projects { issues(first: 1) { edges { node { project { key } } } } } } } } } } }',
    );
    expect(body.data).toBeUndefined();
    expect(body.errors?.[0]?.message).toMatch(/depth limit/i);
  });

  test(`more than ${QUERY_LIMITS.maxAliases} aliases are refused`, async () => {
    const aliases = Array.from({ length: QUERY_LIMITS.maxAliases + 1 }, (_, i) => `a${i}: me { id }`).join(' ');
    const { body } = await gql(`{ ${aliases} }`);
    expect(body.errors?.[0]?.message).toMatch(/aliases limit/i);
  });

  test('a huge query is refused by its token count', async () => {
    const fields = Array.from({ length: QUERY_LIMITS.maxTokens + 100 }, () => 'id').join(' ');
    const { body } = await gql(`{ me { ${fields} } }`);
    expect(body.errors?.[0]?.message).toMatch(/token limit/i);
  });

  test('the nested dashboard query is within every limit', async () => {
    const { body } = await gql(
      '{ memberships { organization { projects { issues(first: 50) { edges { node { title assignee { name } } } } } } } }',
    );
    expect(body.errors).toBeUndefined();
  });
});

describe('introspection', () => {
  test('on by default outside production; off in production unless GRAPHQL_INTROSPECTION is set', async () => {
    const query = '{ __schema { queryType { name } } }';
    expect((await gql(query)).body.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
    const production = await createApp(
      { ...testConfig(), production: true, graphqlIntrospection: false },
      { db: t.app.db },
    );
    const refused = await gql(query, production);
    expect(refused.body.data).toBeUndefined();
    expect(refused.body.errors?.[0]?.message).toMatch(/introspection/i);
    expect((await gql('{ me { username } }', production)).body.data).toEqual({ me: { username: 'olivia' } });
    await production.close();
  });
});
