import { getNullableType, isInterfaceType, isListType, isObjectType } from 'graphql';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { QUERY_LIMITS } from '../src/limits/graphql-query.js';
import { schema } from '../src/schema/index.js';
import { INPUT_LIMITS } from '../src/schema/core/input-shape.js';
import { MAX_FILTER_DEPTH, MAX_FILTER_VALUES, MAX_FILTERS } from '../src/schema/issues/filter-limits.js';
import { UNDECLARED_LIST_MULTIPLIER } from '../src/schema/core/list-bounds.js';
import { startTestApp, type TestApp } from './support/app.js';
import { fieldErrors } from './support/problem.js';

let t: TestApp;
const PROJECTS = 40;

interface GqlBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: { code?: string; [key: string]: unknown } }[];
}

beforeAll(async () => {
  t = await startTestApp();
  const orgId = t.org('acme').id;
  await t.app.db.prisma.project.createMany({
    data: Array.from({ length: PROJECTS }, (_, i) => ({ orgId, name: `Bulk ${i}`, key: `BULK${i}` })),
  });
});
afterAll(() => t.close());

/** A GraphQL request through the real stack; `body` is sent as it is when it is a string. */
async function gql(
  body: string | { query: string; variables?: unknown },
  options: { token?: string; app?: { fetch: TestApp['app']['fetch'] } } = {},
) {
  const response = await (options.app ?? t.app).fetch(
    new Request('http://localhost:4000/api/graphql', {
      method: 'POST',
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: {
        authorization: `Bearer ${options.token ?? t.user('victor').token}`,
        'content-type': 'application/json',
      },
    }),
  );
  return { status: response.status, body: (await response.json()) as GqlBody };
}

const CYCLE =
  '{ memberships { organization { projects { organization { projects { organization { projects { organization { projects { id } } } } } } } } } }';

describe('the cost of a query counts lists by their size', () => {
  test(`the cyclic query over ${PROJECTS}+ projects is refused before it runs, naming the limit`, async () => {
    const { token, id: userId, org_id: orgId } = t.user('victor');
    // The key's first use in a minute records last_used_at (off the request path); let it land first.
    await gql('{"query":"{ me { id } }"}', { token });
    await expect
      .poll(() => t.app.db.prisma.apiKey.count({ where: { userId, orgId, lastUsedAt: { not: null } } }))
      .toBe(1);
    const before = t.app.db.queries.count;
    const { body } = await gql({ query: CYCLE }, { token });
    expect(t.app.db.queries.count - before).toBe(0);
    expect(body.data).toBeUndefined();
    expect(body.errors).toHaveLength(1);
    expect(body.errors![0]!.extensions).toMatchObject({ code: 'COST_LIMIT_EXCEEDED', maxCost: QUERY_LIMITS.maxCost });
    expect(body.errors![0]!.extensions!.cost).toBeGreaterThan(QUERY_LIMITS.maxCost);
    expect(body.errors![0]!.message).toContain(`over the limit of ${QUERY_LIMITS.maxCost}`);
  });

  test('a document admitted once is checked again for a caller whose lists are larger', async () => {
    // Cheap for a key (one membership), 100 times dearer for a session, which lists up to 100
    // organizations: the verdict kept for a document without variables is kept per cost scope.
    const query =
      '{ memberships { organization { projects(first: 5) { issues(first: 50) { edges { node { id title } } } } } } }';
    const { token } = t.user('olivia');
    const cookie = await t.signIn('olivia@example.com');
    const asSession = async () => {
      const response = await t.call('POST', '/api/graphql', {
        body: { query },
        headers: { cookie, origin: 'http://localhost:4000' },
      });
      return (await response.json()) as GqlBody;
    };
    for (let round = 0; round < 2; round++) {
      const byKey = await gql({ query }, { token });
      expect(byKey.body.errors).toBeUndefined();
      const bySession = await asSession();
      expect(bySession.errors?.[0]?.extensions?.code).toBe('COST_LIMIT_EXCEEDED');
    }
  });

  test('the same query with small firsts is cheap, runs, and answers', async () => {
    const { body } = await gql({
      query: '{ memberships { organization { projects(first: 2) { organization { projects(first: 3) { key } } } } } }',
    });
    expect(body.errors).toBeUndefined();
    const projects = (
      body.data as {
        memberships: { organization: { projects: { organization: { projects: { key: string }[] } }[] } }[];
      }
    ).memberships[0]!.organization.projects;
    expect(projects).toHaveLength(2);
    expect(projects[0]!.organization.projects.map((p) => p.key)).toEqual(['BULK0', 'BULK1', 'BULK10']);
  });

  test('a cheap query still works, and sees every project', async () => {
    const { body } = await gql({ query: '{ projects { key } }' });
    expect(body.errors).toBeUndefined();
    expect((body.data as { projects: unknown[] }).projects).toHaveLength(PROJECTS + 2);
  });

  test('first and last of connections count as the list size; aliases add up', async () => {
    const page = (n: number) => `issues(first: ${n}) { edges { node { id key } } }`;
    // projects at their bound (1,000) x 100 issues x 4 fields: 401,001.
    expect((await gql({ query: `{ projects { ${page(100)} } }` })).body.errors?.[0]?.extensions?.code).toBe(
      'COST_LIMIT_EXCEEDED',
    );
    // 50 x 100 x 4: 20,051, and three of them 60,153.
    const one = `projects(first: 50) { ${page(100)} }`;
    expect((await gql({ query: `{ ${one} }` })).body.errors).toBeUndefined();
    expect((await gql({ query: `{ a: ${one} b: ${one} c: ${one} }` })).body.errors?.[0]?.extensions).toMatchObject({
      code: 'COST_LIMIT_EXCEEDED',
      cost: 60_153,
    });
    const last = `projects(first: 50) { issues(last: 100) { edges { node { id key } } } }`;
    expect((await gql({ query: `{ a: ${last} b: ${last} c: ${last} }` })).body.errors?.[0]?.extensions).toMatchObject({
      cost: 60_153,
    });
  });

  test('the cost follows variables', async () => {
    const query = 'query($n: Int, $m: Int) { projects(first: $n) { issues(first: $m) { edges { node { id } } } } }';
    expect((await gql({ query, variables: { n: 5, m: 5 } })).body.errors).toBeUndefined();
    expect((await gql({ query, variables: { n: 1000, m: 100 } })).body.errors?.[0]?.extensions?.code).toBe(
      'COST_LIMIT_EXCEEDED',
    );
  });

  test('a list asked for more than its bound is a validation error on first, before it runs', async () => {
    for (const query of [
      '{ projects(first: 1001) { id } }',
      '{ memberships { organization { projects(first: 0) { id } } } }',
    ]) {
      const { body } = await gql({ query });
      expect(body.data).toBeUndefined();
      expect(body.errors?.[0]?.extensions).toMatchObject({
        code: 'VALIDATION_FAILED',
        fieldErrors: [{ field: 'first', message: expect.stringMatching(/between 1 and/) }],
      });
    }
  });

  test('every list field of the schema declares its bound', () => {
    const undeclared: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__') || !(isObjectType(type) || isInterfaceType(type))) continue;
      for (const field of Object.values(type.getFields())) {
        if (!isListType(getNullableType(field.type))) continue;
        const complexity = field.extensions.complexity as
          | { multiplier?: number }
          | ((...args: unknown[]) => unknown)
          | undefined;
        if (
          typeof complexity !== 'function' &&
          (complexity?.multiplier ?? UNDECLARED_LIST_MULTIPLIER) >= UNDECLARED_LIST_MULTIPLIER
        ) {
          undeclared.push(`${type.name}.${field.name}`);
        }
      }
    }
    expect(undeclared).toEqual([]);
  });
});

describe('filters: client mistakes are validation errors naming the limit', () => {
  const LIST = 'query($f: IssueFilter) { issues(first: 1, filter: $f) { edges { node { id } } } }';

  test(`an in-list of 700 statuses: at most ${MAX_FILTER_VALUES} (GraphQL)`, async () => {
    const { body } = await gql({ query: LIST, variables: { f: { status: Array(700).fill('TODO') } } });
    expect(body.errors?.[0]?.extensions).toMatchObject({
      code: 'VALIDATION_FAILED',
      fieldErrors: [{ field: 'filter.status', message: `must have at most ${MAX_FILTER_VALUES} values` }],
    });
  });

  test('an in-list of 70,000 or 7,000 statuses comma-separated, or of 1,000 repeated: 400 naming the parameter (REST)', async () => {
    const token = t.user('victor').token;
    const comma = await t.call('GET', `/api/issues?status=${Array(70_000).fill('Todo').join(',')}`, { token });
    // 350,000 characters: the input limit on one string (src/schema/core/input-shape.ts) before the filter's rule.
    expect(await fieldErrors(comma)).toEqual([
      { field: 'status', message: `is 349999 characters long, over the limit of ${INPUT_LIMITS.text}` },
    ]);
    const shorter = await t.call('GET', `/api/issues?status=${Array(7_000).fill('Todo').join(',')}`, { token });
    expect(await fieldErrors(shorter)).toEqual([
      { field: 'status', message: `must have at most ${MAX_FILTER_VALUES} values` },
    ]);
    // As many as a 16 KB request line (Node's default header limit) can carry.
    const repeated = await t.call('GET', `/api/issues?${Array(1_000).fill('priority=low').join('&')}`, { token });
    expect(await fieldErrors(repeated)).toEqual([
      { field: 'priority', message: `must have at most ${MAX_FILTER_VALUES} values` },
    ]);
  });

  test(`a not filter nested 10,000 deep in variables: refused, naming the depth (${INPUT_LIMITS.depth})`, async () => {
    // Written out by hand: JSON.stringify itself overflows the stack at this depth.
    const deep = `${'{"not":'.repeat(10_000)}{"q":"x"}${'}'.repeat(10_000)}`;
    const { body } = await gql(`{"query":${JSON.stringify(LIST)},"variables":{"f":${deep}}}`);
    expect(body.data).toBeUndefined();
    expect(body.errors?.[0]?.extensions).toMatchObject({
      code: 'VALIDATION_FAILED',
      fieldErrors: [
        {
          field: `f${'.not'.repeat(INPUT_LIMITS.depth)}`,
          message: `nests deeper than ${INPUT_LIMITS.depth} levels of objects and lists`,
        },
      ],
    });
  });

  test('a not filter nested 400 deep in the document: the filter depth rule', async () => {
    const deep = `${'{ not: '.repeat(400)}{ q: "x" }${' }'.repeat(400)}`;
    const { body } = await gql({ query: `{ issues(first: 1, filter: ${deep}) { edges { node { id } } } }` });
    expect(body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    expect(body.errors?.[0]?.message).toContain(`filters nest at most ${MAX_FILTER_DEPTH} deep`);
  });

  test(`a filter with thousands of nested filters: at most ${MAX_FILTERS} in all`, async () => {
    const leaf = (values: number) => ({ status: Array(values).fill('TODO'), priority: Array(values).fill('LOW') });
    const level = (inner: object) => ({ and: Array(10).fill(inner), or: Array(10).fill(inner) });
    // 421 filters of 20 values: within the input limits (src/schema/core/input-shape.ts), so the filter's own rule answers.
    const { body } = await gql({ query: LIST, variables: { f: level(level(leaf(10))) } });
    expect(body.errors?.[0]?.extensions).toMatchObject({
      code: 'VALIDATION_FAILED',
      fieldErrors: [
        { field: 'filter', message: `must hold at most ${MAX_FILTERS} filters in all (nested ones included)` },
      ],
    });
    // 421 filters of 200 values, 80,000 in all: past PostgreSQL's 65,535 bind parameters, and the input limit on values.
    const larger = await gql({ query: LIST, variables: { f: level(level(leaf(MAX_FILTER_VALUES))) } });
    expect(larger.body.errors?.[0]?.extensions).toMatchObject({
      code: 'VALIDATION_FAILED',
      fieldErrors: [
        {
          field: 'variables',
          message: `holds more than ${INPUT_LIMITS.values} values in all (objects, lists and what they hold)`,
        },
      ],
    });
  });
});

describe('each request has a deadline and a response-size cap', () => {
  test('past its deadline an execution is abandoned with DEADLINE_EXCEEDED; the service goes on', async () => {
    const app = await createApp(testConfig({ graphqlTimeoutMs: 1 }), { db: t.app.db });
    try {
      const query = '{ projects(first: 40) { key issues(first: 10) { edges { node { id title } } } } }';
      const { body } = await gql({ query }, { app });
      expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'DEADLINE_EXCEEDED', timeoutMs: 1 });
      expect(body.errors?.[0]?.message).toContain('deadline of 1 ms');
      // The same query on the default deadline.
      expect((await gql({ query })).body.errors).toBeUndefined();
    } finally {
      await app.close();
    }
  });

  test('a response over the cap is replaced by RESPONSE_TOO_LARGE; small ones pass', async () => {
    const app = await createApp(testConfig({ graphqlMaxResponseBytes: 500 }), { db: t.app.db });
    try {
      const { body } = await gql({ query: '{ projects { id name key } }' }, { app });
      expect(body.data).toBeUndefined();
      expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'RESPONSE_TOO_LARGE', maxResponseBytes: 500 });
      expect(body.errors?.[0]?.extensions?.bytes).toBeGreaterThan(500);
      expect((await gql({ query: '{ me { username } }' }, { app })).body).toEqual({
        data: { me: { username: 'victor' } },
      });
    } finally {
      await app.close();
    }
  });
});

describe('refused queries are the client mistake: never logged as errors', () => {
  test('graphql-armor refusals, the cost limit and bad arguments log nothing at warn or above', async () => {
    const lines: { level: number; msg?: string }[] = [];
    const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const app = await createApp(testConfig(), { db: t.app.db, logger });
    try {
      const refused = [
        '{ issues(first: 1) { edges { node { project { organization { projects { issues(first: 1) { edges { node { project { key } } } } } } } } } } }',
        `{ ${Array.from({ length: QUERY_LIMITS.maxAliases + 1 }, (_, i) => `a${i}: me { id }`).join(' ')} }`,
        `{ me { ${Array(QUERY_LIMITS.maxTokens + 10)
          .fill('id')
          .join(' ')} } }`,
        `{ me ${Array(QUERY_LIMITS.maxDirectives + 1)
          .fill('@include(if: true)')
          .join(' ')} { id } }`,
        CYCLE,
        '{ projects(first: -1) { id } }',
        '{ issues(first: -1) { edges { node { id } } } }',
        '{ nosuchfield }',
      ];
      for (const query of refused) {
        const { body } = await gql({ query }, { app });
        expect(body.errors?.length, query).toBeGreaterThan(0);
        expect(body.errors?.[0]?.extensions?.code, query).not.toBe('INTERNAL_SERVER_ERROR');
      }
      expect(lines.filter((l) => l.level >= 40)).toEqual([]);
      expect(lines.some((l) => l.level === 20 && l.msg === 'GraphQL request refused before execution')).toBe(true);
    } finally {
      await app.close();
    }
  });
});
