import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { INPUT_LIMITS, WIDTH } from '../src/schema/core/input-shape.js';
import { MAX_FILTER_VALUES } from '../src/schema/issues/filter-limits.js';
import { startTestApp, type TestApp } from './support/app.js';
import { fieldErrors } from './support/problem.js';

/**
 * Every input is bounded in size and shape before any library walks it (src/schema/core/input-shape.ts):
 * GraphQL variables, REST bodies and query strings, MCP tool arguments, one rule for all three.
 * The reproductions send what used to stall the process: graphql-js built each unknown field's
 * error from the whole value, so 60,000 unknown fields ran for minutes and exhausted the heap,
 * and 200,000 invalid statuses took 15 s, while every other request waited.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 120_000);
afterAll(() => t?.close());

const LIST = 'query($f: IssueFilter) { issues(filter: $f, first: 1) { edges { node { id } } } }';

interface GqlAnswer {
  status: number;
  body: {
    data?: unknown;
    errors?: { message: string; extensions?: { code?: string; fieldErrors?: { field: string; message: string }[] } }[];
  };
}

/** A GraphQL request from a viewer; `body` is sent as it is when it is a string. */
async function gql(body: string | { query: string; variables?: unknown }): Promise<GqlAnswer> {
  const response = await t.call('POST', '/api/graphql', { token: t.user('victor').token, body });
  return { status: response.status, body: (await response.json()) as GqlAnswer['body'] };
}

/** The one refusal of an input over a limit: a 400 with VALIDATION_FAILED naming the field and the limit. */
function expectRefused(answer: GqlAnswer, field: string, message: string) {
  expect(answer.status).toBe(400);
  expect(answer.body.data).toBeUndefined();
  expect(answer.body.errors).toHaveLength(1);
  expect(answer.body.errors![0]!.extensions).toEqual({ code: 'VALIDATION_FAILED', fieldErrors: [{ field, message }] });
  expect(answer.body.errors![0]!.message).toBe(`${field}: ${message}`);
}

const fields = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 1]));

describe('GraphQL variables', () => {
  test('finding 1: 60,000 unknown fields in a filter are refused at the width limit, before graphql-js coerces them', async () => {
    expectRefused(await gql({ query: LIST, variables: { f: fields(60_000) } }), 'f', WIDTH.fields);
    // The service goes on: a cheap request right after is answered.
    expect((await gql({ query: '{ me { id } }' })).body.errors).toBeUndefined();
  });

  test("hostile variables and another organization's cheap read, sent together: both answered, each as it should be", async () => {
    const hostile = Array.from({ length: 5 }, () => gql({ query: LIST, variables: { f: fields(60_000) } }));
    const neighbour = t.call('POST', '/api/graphql', {
      token: t.user('bella', 'globex').token,
      body: { query: '{ me { name } }' },
    });
    const [answers, cheap] = await Promise.all([Promise.all(hostile), neighbour]);
    for (const answer of answers) expectRefused(answer, 'f', WIDTH.fields);
    expect(cheap.status).toBe(200);
    expect(await cheap.json()).toEqual({ data: { me: { name: 'Bella Boss' } } });
  });

  test('finding 2: 200,000 invalid statuses are refused at the list limit, naming the path', async () => {
    const answer = await gql({ query: LIST, variables: { f: { and: [{ status: Array(200_000).fill('X') }] } } });
    expectRefused(answer, 'f.and.0.status', WIDTH.items);
  });

  test('values spread over many lists are refused at the total limit', async () => {
    const lists = Math.ceil((INPUT_LIMITS.values + 1) / INPUT_LIMITS.items);
    const f = { and: Array.from({ length: lists }, () => ({ number: { in: Array(INPUT_LIMITS.items).fill(1) } })) };
    expectRefused(
      await gql({ query: LIST, variables: { f } }),
      'variables',
      `holds more than ${INPUT_LIMITS.values} values in all (objects, lists and what they hold)`,
    );
  });

  test('a string and a field name over their limits', async () => {
    const q = 'x'.repeat(INPUT_LIMITS.text + 1);
    expectRefused(
      await gql({ query: LIST, variables: { f: { q } } }),
      'f.q',
      `is ${q.length} characters long, over the limit of ${INPUT_LIMITS.text}`,
    );
    const name = 'k'.repeat(INPUT_LIMITS.name + 1);
    expectRefused(
      await gql({ query: LIST, variables: { f: { not: { [name]: 1 } } } }),
      'f.not',
      `has a field name of ${name.length} characters, over the limit of ${INPUT_LIMITS.name}`,
    );
  });

  test('the same limits on a GET request, whose variables come in the query string', async () => {
    const url = `/api/graphql?query=${encodeURIComponent(LIST)}&variables=${encodeURIComponent(JSON.stringify({ f: fields(500) }))}`;
    const response = await t.call('GET', url, {
      token: t.user('victor').token,
      headers: { accept: 'application/graphql-response+json' },
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as GqlAnswer['body'];
    expect(body.errors?.[0]?.extensions?.fieldErrors).toEqual([{ field: 'f', message: WIDTH.fields }]);
  });

  test('a filter at every bound of its own rules is within the limits and runs', async () => {
    // 46 filters (nested 3 deep), each with full status, priority and number.in lists: about 14,000 values.
    const full = () => ({
      status: Array(MAX_FILTER_VALUES).fill('TODO'),
      priority: Array(MAX_FILTER_VALUES).fill('LOW'),
      number: { in: Array(MAX_FILTER_VALUES).fill(1) },
    });
    const f = {
      ...full(),
      and: Array.from({ length: 9 }, () => ({ ...full(), and: Array.from({ length: 4 }, full) })),
    };
    const answer = await gql({ query: LIST, variables: { f } });
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data).toEqual({ issues: { edges: [] } });
  });

  test("invalid values within the limits are graphql-js's own error, the first one", async () => {
    const f = { and: Array.from({ length: 10 }, () => ({ status: Array(INPUT_LIMITS.items).fill('X') })) };
    const answer = await gql({ query: LIST, variables: { f } });
    expect(answer.body.errors).toHaveLength(1);
    expect(answer.body.errors![0]!.extensions?.code).toBe('BAD_USER_INPUT');
    expect(answer.body.errors![0]!.message).toContain('Value "X" does not exist in "IssueStatus" enum.');
  });
});

describe('REST bodies and query strings', () => {
  test('a body of 60,000 unknown fields: one 400 at the width limit', async () => {
    const response = await t.call('POST', '/api/projects', {
      token: t.user('olivia').token,
      body: { name: 'Wide', key: 'WIDE', ...fields(60_000) },
    });
    expect(await fieldErrors(response)).toEqual([{ field: 'body', message: WIDTH.fields }]);
    expect(await t.app.db.prisma.project.count({ where: { key: 'WIDE' } })).toBe(0);
  });

  test('a list in a body over the list limit, named by its path', async () => {
    const body = { url: 'https://hooks.example.test/x', events: Array(200_000).fill('X') };
    const response = await t.call('POST', '/api/webhooks', { token: t.user('olivia').token, body });
    expect(await fieldErrors(response)).toEqual([{ field: 'events', message: WIDTH.items }]);
  });

  test('a body nested 10,000 deep: the depth limit, not a stack overflow', async () => {
    const deep = `{"name":"Deep","key":"DEEP","x":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const response = await t.call('POST', '/api/projects', { token: t.user('olivia').token, body: deep });
    const [error] = (await fieldErrors(response))!;
    expect(error).toEqual({
      field: `x${'.0'.repeat(INPUT_LIMITS.depth)}`,
      message: `nests deeper than ${INPUT_LIMITS.depth} levels of objects and lists`,
    });
  });

  test('query strings: too many parameters, or one repeated too often', async () => {
    const token = t.user('victor').token;
    const many = Array.from({ length: 500 }, (_, i) => `p${i}=1`).join('&');
    expect(await fieldErrors(await t.call('GET', `/api/issues?${many}`, { token }))).toEqual([
      { field: 'query', message: WIDTH.fields },
    ]);
    const repeated = Array(5_000).fill('priority=low').join('&');
    expect(await fieldErrors(await t.call('GET', `/api/issues?${repeated}`, { token }))).toEqual([
      { field: 'priority', message: WIDTH.items },
    ]);
  });
});

describe('MCP tool arguments', () => {
  /** A POST of JSON-RPC text to the MCP endpoint. */
  async function post(body: string) {
    return t.app.fetch(
      new Request(`${t.app.config.baseUrl}/api/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.user('olivia').token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body,
      }),
    );
  }
  const message = (name: string, argumentsJson: string, id = 1) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":${argumentsJson}}}`;

  /**
   * A tools/call whose arguments pass a limit, the arguments' JSON given as text: refused before
   * the body is parsed, so with no message id yet, as a 400 JSON-RPC "invalid params" whose data
   * is the problem.
   */
  async function callTool(name: string, argumentsJson: string) {
    const response = await post(message(name, argumentsJson));
    expect(response.status).toBe(400);
    const answer = (await response.json()) as {
      id: unknown;
      error: {
        code: number;
        message: string;
        data: { status: number; code: string; errors: { field: string; message: string }[] };
      };
    };
    expect(answer.id).toBeNull();
    expect(answer.error.code).toBe(-32602);
    expect(answer.error.message).toBe(
      `Invalid params: ${answer.error.data.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
    );
    return answer.error.data;
  }

  test("the same limits on each message of a batch, each call's arguments counted on their own", async () => {
    const within = JSON.stringify(
      Object.fromEntries(Array.from({ length: INPUT_LIMITS.fields }, (_, i) => [`k${i}`, 1])),
    );
    // Two calls each at the width limit: unknown arguments, refused by the tool's own rules, one result each.
    const answers = (await (
      await post(`[${message('list_issues', within, 1)},${message('list_issues', within, 2)}]`)
    ).json()) as { id: number; result: { isError: boolean } }[];
    expect(answers.map((a) => [a.id, a.result.isError])).toEqual([
      [1, true],
      [2, true],
    ]);
    const over = await post(
      `[${message('list_issues', '{}', 1)},${message('list_issues', JSON.stringify(fields(INPUT_LIMITS.fields + 1)), 2)}]`,
    );
    expect(over.status).toBe(400);
    expect(((await over.json()) as { error: { data: { errors: unknown[] } } }).error.data.errors).toEqual([
      { field: 'arguments', message: WIDTH.fields },
    ]);
  });

  test('60,000 arguments: an error result at the width limit', async () => {
    const problem = await callTool('list_issues', JSON.stringify(fields(60_000)));
    expect(problem).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(problem.errors).toEqual([{ field: 'arguments', message: WIDTH.fields }]);
  });

  test('an argument nested 10,000 deep, on a tool that fingerprints its arguments: the depth limit', async () => {
    const args = `{"project_id":"x","title":"t","idempotency_key":"k1","x":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const problem = await callTool('create_issue', args);
    expect(problem).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(problem.errors).toEqual([
      {
        field: `x${'.0'.repeat(INPUT_LIMITS.depth)}`,
        message: `nests deeper than ${INPUT_LIMITS.depth} levels of objects and lists`,
      },
    ]);
  });

  test('a list argument over the list limit, named by its argument', async () => {
    const problem = await callTool('list_issues', JSON.stringify({ status: Array(200_000).fill('X') }));
    expect(problem.errors).toEqual([{ field: 'status', message: WIDTH.items }]);
  });
});
