import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { seedDemo, type DemoSeed } from '../src/cli/demo-data.js';
import { testConfig } from '../src/config.js';
import type { Database } from '../src/db/client.js';
import { openTestDatabase } from './support/database.js';
import { PASSWORD } from './support/app.js';

// Queries run compiled by graphql-jit (src/graphql/compiled-execution.ts) once a document has run
// GRAPHQL_COMPILE_AFTER times on yoga's executor. The two must answer alike: this corpus goes
// to an app that compiles every query and to one that compiles none, over the same database, and
// the bodies are compared whole (data, errors with their messages, paths and extensions).

let db: Database;
let seed: DemoSeed;
let compiled: App;
let walked: App;
beforeAll(async () => {
  db = await openTestDatabase();
  seed = await seedDemo(db.prisma, { password: PASSWORD });
  compiled = await createApp(testConfig({ graphqlCompileAfter: 0 }), { db });
  walked = await createApp(testConfig({ graphqlCompileAfter: Number.POSITIVE_INFINITY }), { db });
});
afterAll(async () => {
  await compiled.close();
  await walked.close();
  await db.close();
});

const token = (username: string, slug = 'acme') =>
  seed.users.find((u) => u.username === username && u.org_id === seed.orgs.find((o) => o.slug === slug)!.id)!.token;

async function answer(
  app: App,
  who: string,
  query: string,
  variables?: Record<string, unknown>,
  operationName?: string,
) {
  const response = await app.fetch(
    new Request(`${app.config.baseUrl}/api/graphql`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token(who)}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({ query, variables, operationName }),
    }),
  );
  return { status: response.status, body: (await response.json()) as { data?: unknown; errors?: unknown[] } };
}

interface Case {
  name: string;
  who?: string;
  query: string;
  variables?: () => Record<string, unknown>;
  /** What the answer must show, beyond being the same on both executors (so that a case cannot pass by failing alike on both). */
  expect(body: { data?: any; errors?: any[] }): void;
}

const CASES: Case[] = [
  {
    name: 'the nested dashboard query',
    query:
      '{ memberships { role organization { name projects { key name issueCount issues(first: 3) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id key title status priority createdAt assignee { id name } project { key } } } } } } } }',
    expect: (body) => {
      expect(body.errors).toBeUndefined();
      expect(body.data.memberships[0].organization.projects[0].issues.edges).toHaveLength(3);
    },
  },
  {
    name: 'fragments, aliases, __typename, @include and @skip',
    query: `query($yes: Boolean!, $no: Boolean!) { __typename first: projects(first: 1) { ...P } all: projects { key __typename description: name @include(if: $yes) id @skip(if: $yes) issueCount @include(if: $no) } }
      fragment P on Project { id name ... on Project { key } }`,
    variables: () => ({ yes: true, no: false }),
    expect: (body) => {
      expect(body.errors).toBeUndefined();
      expect(body.data.all[0]).toEqual({
        key: expect.any(String),
        __typename: 'Project',
        description: expect.any(String),
      });
    },
  },
  {
    name: 'interfaces: node and nodes, a foreign and an unknown id among them',
    query:
      'query($ids: [ID!]!) { nodes(ids: $ids) { __typename id ... on Issue { key assignee { username } } ... on Project { key } ... on User { username } } }',
    variables: () => ({
      ids: [
        seed.orgs[0]!.projects[0]!.id,
        seed.users[0]!.id,
        seed.orgs[1]!.projects[0]!.id,
        '00000000-0000-4000-8000-000000000000',
      ],
    }),
    expect: (body) => {
      expect(body.errors).toBeUndefined();
      expect(body.data.nodes.map((n: { __typename: string } | null) => n?.__typename ?? null)).toEqual([
        'Project',
        'User',
        null,
        null,
      ]);
    },
  },
  {
    name: 'variables: paging forwards, ordered, with an enum argument',
    query:
      'query($n: Int!, $p: ID) { issues(projectId: $p, first: $n, orderBy: { field: PRIORITY, direction: ASC }) { edges { node { key priority status } } pageInfo { hasNextPage } } }',
    variables: () => ({ n: 2, p: seed.orgs[0]!.projects[0]!.id }),
    expect: (body) => expect(body.data.issues.edges).toHaveLength(2),
  },
  {
    name: 'a literal and/or/not filter',
    query:
      '{ issues(first: 10, filter: { or: [{ status: [TODO] }, { not: { priority: [LOW, MEDIUM] } }] }) { totalCount edges { node { status priority } } } }',
    expect: (body) => {
      expect(body.errors).toBeUndefined();
      expect(body.data.issues.totalCount).toBeGreaterThan(0);
    },
  },
  {
    name: "a variable of the recursive IssueFilter type (not compiled: yoga's executor runs it)",
    query: 'query($f: IssueFilter) { issues(first: 10, filter: $f) { totalCount edges { node { status priority } } } }',
    variables: () => ({ f: { or: [{ status: ['TODO'] }, { not: { priority: ['LOW', 'MEDIUM'] } }] } }),
    expect: (body) => {
      expect(body.errors).toBeUndefined();
      expect(body.data.issues.totalCount).toBeGreaterThan(0);
    },
  },
  {
    name: 'a field error: NOT_FOUND, with its location and path',
    query: '{ me { username } issue(id: "WEB-999") { id title } }',
    expect: (body) => {
      // `issue` is non-null: its error nulls the whole answer.
      expect(body.data).toBeNull();
      expect(body.errors?.[0]).toMatchObject({ path: ['issue'], locations: [{ line: 1, column: 19 }] });
      expect(body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    },
  },
  {
    name: 'a validation error of an argument, on a field two lines down',
    query: '{\n  me { username }\r\n  issues(first: 500) { edges { node { id } } } }',
    expect: (body) => {
      expect(body.data).toBeNull();
      expect(body.errors).toHaveLength(1);
      expect(body.errors?.[0]).toMatchObject({
        extensions: { code: 'VALIDATION_FAILED' },
        locations: [{ line: 3, column: 3 }],
      });
    },
  },
  {
    name: 'a field the role may not read: FORBIDDEN, the rest answered',
    who: 'victor',
    query: '{ me { username } apiKeys(all: true) { id } }',
    expect: (body) => {
      expect(body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    },
  },
  {
    name: 'a variable of the wrong type',
    query: 'query($n: Int!) { issues(first: $n) { totalCount } }',
    variables: () => ({ n: 'ten' }),
    expect: (body) => {
      expect(body.data).toBeUndefined();
      expect(body.errors?.[0]?.message).toContain('$n');
    },
  },
  {
    name: 'people and the palette, emails shown by role',
    who: 'mark',
    query: '{ searchPeople(q: "a") { username role email } paletteSearch(q: "the") { type title key } }',
    expect: (body) => {
      expect(body.errors).toBeUndefined();
      expect(body.data.searchPeople.every((p: { email: string | null }) => p.email === null)).toBe(true);
    },
  },
  {
    name: 'aggregates',
    query:
      '{ issueAggregates(weeks: 2) { total byStatus { status count } byAssignee { assignee { username } count } createdPerWeek { weekStart count } } }',
    expect: (body) => {
      expect(body.errors).toBeUndefined();
      expect(body.data.issueAggregates.total).toBeGreaterThan(0);
    },
  },
];

describe("compiled queries answer as yoga's executor does", () => {
  test.each(CASES)('$name', async ({ who = 'olivia', query, variables, expect: check }) => {
    const vars = variables?.();
    // Twice each: the first run of a document and a later one take the same path here, but not in production.
    for (let run = 0; run < 2; run++) {
      const [fromCompiled, fromWalked] = await Promise.all([
        answer(compiled, who, query, vars),
        answer(walked, who, query, vars),
      ]);
      expect(fromCompiled).toEqual(fromWalked);
      check(fromCompiled.body);
    }
  });

  test('each operation of a document runs as itself', async () => {
    const query = 'query Me { me { username } } query Keys { projects { key } }';
    for (let run = 0; run < 2; run++) {
      for (const [name, field] of [
        ['Me', 'me'],
        ['Keys', 'projects'],
      ] as const) {
        const [fromCompiled, fromWalked] = await Promise.all([
          answer(compiled, 'olivia', query, undefined, name),
          answer(walked, 'olivia', query, undefined, name),
        ]);
        expect(fromCompiled).toEqual(fromWalked);
        expect(Object.keys(fromCompiled.body.data as object)).toEqual([field]);
      }
    }
  });

  test('with GRAPHQL_COMPILE_AFTER=1 the first run (walked) and the later ones (compiled) answer alike', async () => {
    const app = await createApp(testConfig({ graphqlCompileAfter: 1 }), { db });
    try {
      const query = '{ projects { key issues(first: 2) { edges { node { key assignee { name } } } } } }';
      const answers = [];
      for (let run = 0; run < 3; run++) answers.push(await answer(app, 'olivia', query));
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[2]).toEqual(answers[0]);
      expect(answers[0]!.body.errors).toBeUndefined();
    } finally {
      await app.close();
    }
  });
});
