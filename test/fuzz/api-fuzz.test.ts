import fc from 'fast-check';
import { getNamedType, isCompositeType, isInputObjectType, type GraphQLField } from 'graphql';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MemoryStore } from '../../src/limits/memory-store.js';
import type { Route } from '../../src/rest/route.js';
import { ROUTES } from '../../src/rest/routes/index.js';
import { schema } from '../../src/schema/index.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * Issue 17, "make it stay fixed": a property-based fuzz suite generated from the route
 * declarations (src/rest/routes) and the GraphQL schema. Every operation gets malformed values
 * of every parameter (path, query, body fields; GraphQL arguments; MCP tool arguments): wrong types, huge and
 * negative numbers, NUL, unpaired surrogates and invalid UTF-8, oversized text, garbage cursors,
 * prototype names, deep nesting, inputs over the size and shape limits (wide objects, long
 * lists, values spread over many lists), and conflicting or malformed headers. Whatever it sends, the
 * answer is never a 5xx, REST errors are problem+json, GraphQL errors are typed (never masked
 * internal errors), MCP errors are error results naming the problem, and no request hangs.
 *
 * FUZZ_RUNS (cases per operation, default 60) and FUZZ_SEED (replay a failure: fast-check prints
 * the seed and path of the shortest failing case) steer it.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const HANG_MS = 15_000;

let t: TestApp;
let clock = 10_000_000;
let valid: { projectId: string; issueId: string; orgId: string; otherOrgId: string; userId: string };
let token: string;
beforeAll(async () => {
  // A clock that jumps a window ahead per request: the rate limits never hide what the fuzz sends.
  t = await startTestApp({}, { limiterStore: new MemoryStore({ now: () => (clock += 61_000) }) });
  token = t.user('olivia').token;
  const projectId = t.org('acme').projects[0]!.id;
  const issue = await t.app.db.prisma.issue.findFirstOrThrow({ where: { projectId } });
  valid = {
    projectId,
    issueId: issue.id,
    orgId: t.org('acme').id,
    otherOrgId: t.org('globex').id,
    userId: t.user('mark').id,
  };
}, 120_000);
afterAll(() => t?.close());

// ---- Values ----

const text = (s: string) => s;
/** Strings a careless or hostile client sends. */
const badString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '',
    ' ',
    'a\u0000b',
    '\u0000',
    'x\ud800y',
    '\udfff',
    '\ufffd',
    '%00',
    '%FF%FE',
    '\u202e\u0000',
    '__proto__',
    'constructor',
    'toString',
    'null',
    'undefined',
    'NaN',
    '-1',
    '0',
    '1e309',
    '99999999999999999999999',
    '9007199254740993',
    'true',
    "'; DROP TABLE issues; --",
    '%',
    '_',
    '\\',
    'WEB-0',
    'WEB-99999999999',
    'web-',
    'eyJpZCI6Ii0xIn0',
    'Y3Vyc29yOjE=',
    '////',
    '00000000-0000-0000-0000-000000000000',
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
  ),
  fc
    .constantFrom('x'.repeat(101), 'x'.repeat(1_001), 'é'.repeat(10_000), '\u0000'.repeat(5_000), 'a'.repeat(200_000))
    .map(text),
  fc.base64String({ maxLength: 200 }),
);
const badNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(
    -1,
    0,
    1,
    1.5,
    -0,
    2 ** 31,
    2 ** 53 + 2,
    Number.MAX_SAFE_INTEGER,
    -Number.MAX_SAFE_INTEGER,
    1e308,
    -1e308,
    Number.MIN_VALUE,
  ),
);
const leaf = fc.oneof(badString, badNumber, fc.boolean(), fc.constant(null));
/** Any JSON value, malformed for whatever the field wanted. */
const badValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: leaf },
  { weight: 1, arbitrary: fc.array(leaf, { maxLength: 5 }) },
  {
    weight: 1,
    arbitrary: fc.dictionary(
      fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('__proto__', 'constructor', 'prototype')),
      leaf,
      { maxKeys: 4 },
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 1, max: 2_000 })
      .map((depth) => JSON.parse('['.repeat(depth) + ']'.repeat(depth)) as unknown),
  },
);
/**
 * Values over the input limits (src/schema/core/input-shape.ts) in each of their dimensions, or near
 * them: wide objects, long lists (of invalid enum values among others), deep nesting, values
 * spread over many lists, long strings and field names. Each is refused before any library walks
 * it, or is small enough for the field's own rules; either way the answer is a typed 4xx, and
 * a cheap request sent beside it is answered (test below).
 */
const oversized: fc.Arbitrary<unknown> = fc.oneof(
  fc
    .integer({ min: 50, max: 70_000 })
    .map((count) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 1]))),
  fc
    .tuple(fc.integer({ min: 500, max: 200_000 }), fc.constantFrom<unknown>('X', 'TODO', 1, null, {}, []))
    .map(([length, item]) => Array(length).fill(item)),
  // At most 2,000 levels, as badValue: JSON.stringify (ours and fast-check's) recurses.
  fc.tuple(fc.integer({ min: 10, max: 1_000 }), fc.constantFrom('not', 'and')).map(([depth, key]) => {
    let value: unknown = { q: 'x' };
    for (let i = 0; i < depth; i++) value = key === 'not' ? { not: { not: value } } : { and: [value] };
    return value;
  }),
  fc.integer({ min: 5, max: 60 }).map((lists) => ({
    and: Array.from({ length: lists }, () => ({ status: Array(1_000).fill('X'), priority: ['X'] })),
  })),
  fc.integer({ min: 90_000, max: 300_000 }).map((length) => ({ q: 'x'.repeat(length) })),
  fc.integer({ min: 200, max: 5_000 }).map((length) => ({ ['k'.repeat(length)]: 1 })),
);

/** A plausible value, so that some requests get past one field to fail (or not) at the next. */
const plausible = () =>
  fc.constantFrom<unknown>(
    valid.projectId,
    valid.issueId,
    valid.userId,
    'WEB',
    'WEB-1',
    'Todo',
    'high',
    'member',
    'A title',
    5,
    true,
    'olivia',
    // Lists and objects of a bulk call, some good and some bad items, so that cases reach the items' own rules.
    [valid.issueId, 'WEB-1', 'WEB-1'],
    { status: 'Todo', assignee_id: valid.userId },
    { priority: 'nope' },
    [
      { project_id: 'WEB', title: 'A title' },
      { project_id: valid.projectId, title: '' },
    ],
  );

// ---- Headers ----

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 80,
});
const contentTypes = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/merge-patch+json',
  'application/json, text/plain',
  'application/x-www-form-urlencoded',
  'text/plain',
  'multipart/form-data; boundary=x',
  'application/graphql',
  '',
);
/** Extra headers: conflicting credentials, another or a garbage org, bad idempotency keys, odd media types. */
const headerMess = fc.record(
  {
    'content-type': contentTypes,
    'x-auth-token': fc.oneof(printable, fc.constant('tok_live_garbage')),
    'x-org-id': fc.oneof(printable, fc.constantFrom('00000000-0000-4000-8000-000000000000')),
    'idempotency-key': fc.oneof(printable, fc.constantFrom('""', '"a", "b"', `"${'k'.repeat(300)}"`)),
    accept: fc.constantFrom('application/json', 'text/html', '*/*', 'application/graphql-response+json', 'image/png'),
    'content-length': fc.constantFrom('0', '-1', '99999999999', 'abc'),
  },
  { requiredKeys: [] },
);

// ---- Requests ----

/** Percent-encodes every byte of the UTF-8 form (an unpaired surrogate becomes U+FFFD's bytes, as a client would send). */
const pct = (s: string) =>
  Array.from(new TextEncoder().encode(s), (b) =>
    /[A-Za-z0-9_.~-]/.test(String.fromCharCode(b))
      ? String.fromCharCode(b)
      : `%${b.toString(16).padStart(2, '0').toUpperCase()}`,
  ).join('');

/** Percent-encoded path segment, or raw bytes that are not UTF-8 once decoded. */
const badSegment = fc.oneof(
  badString.map((s) => pct(s.slice(0, 2_000))),
  fc.constantFrom('%FF', '%C0%80', '%ED%A0%80', '%00', '%', '%zz', '..', '.', '%2F', 'WEB-1', 'web', 'x'.repeat(5_000)),
);
const badQueryValue = fc.oneof(
  badString.map((s) => pct(s.slice(0, 2_000))),
  fc.constantFrom(
    '%FF',
    '%ED%A0%80',
    '%00',
    '%',
    '-1',
    '0',
    '1e999',
    '101',
    'Todo,Done,,',
    'created_at',
    '-updated_at',
    'x'.repeat(3_000),
  ),
);

interface Case {
  path: string;
  query: [string, string][];
  body: { kind: 'json'; value: unknown } | { kind: 'raw'; bytes: Uint8Array } | { kind: 'none' };
  headers: Record<string, string>;
}

const rawBodies = fc.constantFrom(
  '{',
  '{"a":}',
  'null',
  '[]',
  '"text"',
  '1e999',
  '{"title":"\\ud800"}',
  '{"title":"\\u0000"}',
  '{"__proto__":{"admin":true}}',
  '{"a":1,"a":2}',
  '\u0000',
  '',
  `{"x":${'['.repeat(100_000)}}`,
);

function routeCase(route: Route): fc.Arbitrary<Case> {
  const paramNames = Object.keys(route.params?.shape ?? {});
  const queryNames = Object.keys(route.query?.shape ?? {});
  const bodyNames = Object.keys(route.body?.shape ?? {});
  const path = fc
    .record(
      Object.fromEntries(
        paramNames.map((name) => [
          name,
          fc.oneof(
            badSegment,
            plausible().map((v) => pct(String(v))),
          ),
        ]),
      ),
    )
    .map((values) => route.path.replace(/\{(\w+)\}/g, (_m, name: string) => (values as Record<string, string>)[name]!));
  const query = fc.array(
    fc.tuple(
      fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...(queryNames.length ? queryNames : ['q'])) },
        { weight: 1, arbitrary: fc.constantFrom('cursor', 'limit', 'x', '__proto__', '%FF') },
      ),
      badQueryValue,
    ),
    { maxLength: 6 },
  );
  const jsonBody = fc
    .record(Object.fromEntries(bodyNames.map((name) => [name, fc.oneof(badValue, plausible())])), { requiredKeys: [] })
    .chain((fields) =>
      fc.record({
        fields: fc.constant(fields),
        extra: fc.dictionary(fc.constantFrom('org_id', 'id', 'number', '__proto__', 'zz'), badValue, { maxKeys: 2 }),
      }),
    )
    .map(({ fields, extra }) => ({ kind: 'json' as const, value: { ...fields, ...extra } }));
  const body = fc.oneof(
    { weight: 6, arbitrary: jsonBody },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...(bodyNames.length ? bodyNames : ['x'])), oversized)
        .map(([name, value]) => ({ kind: 'json' as const, value: { [name]: value } })),
    },
    { weight: 1, arbitrary: badValue.map((value) => ({ kind: 'json' as const, value })) },
    {
      weight: 1,
      arbitrary: rawBodies.map((text) => ({ kind: 'raw' as const, bytes: new TextEncoder().encode(text) })),
    },
    {
      weight: 1,
      arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => ({
        kind: 'raw' as const,
        bytes: Uint8Array.from([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, ...bytes, 0xff, 0xfe, 0x22, 0x7d]),
      })),
    },
    { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  );
  return fc.record({ path, query, body, headers: headerMess });
}

function toRequest(method: string, c: Case): Request {
  const query = c.query.map(([name, value]) => `${name}=${value}`).join('&');
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...c.headers };
  let body: BodyInit | undefined;
  if (c.body.kind === 'json') {
    body = JSON.stringify(c.body.value) ?? 'null';
    headers['content-type'] ??= 'application/json';
  } else if (c.body.kind === 'raw') body = new Uint8Array(c.body.bytes);
  // The body a GET or HEAD cannot carry is left off; Request would refuse it.
  if (method === 'GET' || method === 'HEAD') body = undefined;
  // Content-Length is the transport's to set: a wrong one would be a broken request, not a fuzz case.
  delete headers['content-length'];
  return new Request(`${t.app.config.baseUrl}/api${c.path}${query ? `?${query}` : ''}`, { method, headers, body });
}

async function answer(request: Request): Promise<Response> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${HANG_MS} ms`)), HANG_MS)),
  );
  try {
    return await Promise.race([t.app.fetch(request), hang]);
  } finally {
    clearTimeout(timer);
  }
}

/** What every answer must be: no 5xx; a REST error is problem+json with its status and a code. */
async function checkRest(response: Response, what: string): Promise<void> {
  const body = await response.text();
  expect(response.status, `${what} -> ${response.status} ${body.slice(0, 300)}`).toBeLessThan(500);
  if (response.status >= 400) {
    expect(response.headers.get('content-type'), `${what} -> ${response.status}`).toBe('application/problem+json');
    const problem = JSON.parse(body) as { status: number; code: string };
    expect(problem.status).toBe(response.status);
    expect(problem.code).toMatch(/^[a-z_]+$/);
  }
}

const restOperations = ROUTES.filter((route) => route.operation);
const sizes = { rest: 0, graphql: 0, mcp: 0 };

describe('REST, generated from the route declarations', () => {
  test.each(restOperations.map((route) => [`${route.method.toUpperCase()} ${route.path}`, route] as const))(
    '%s',
    async (_name, route) => {
      await fc.assert(
        fc.asyncProperty(routeCase(route), async (c) => {
          const request = toRequest(route.method.toUpperCase(), c);
          const what = `${request.method} ${request.url.slice(0, 200)}`;
          sizes.rest++;
          await checkRest(await answer(request), what);
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    },
    300_000,
  );
});

// ---- GraphQL ----

type AnyField = GraphQLField<unknown, unknown>;
const rootFields = (['query', 'mutation'] as const).flatMap((kind) => {
  const type = kind === 'query' ? schema.getQueryType() : schema.getMutationType();
  return Object.values(type?.getFields() ?? {}).map((field) => ({ kind, field: field as AnyField }));
});

/** `{ field(arg: $arg) { __typename } }` with every argument a variable, and malformed variables. */
function graphqlCase(kind: 'query' | 'mutation', field: AnyField) {
  const declared = field.args.map((arg) => `$${arg.name}: ${arg.type.toString()}`).join(', ');
  const passed = field.args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
  const selection = isCompositeType(getNamedType(field.type)) ? ' { __typename }' : '';
  const document = `${kind}${declared ? `(${declared})` : ''} { ${field.name}${passed ? `(${passed})` : ''}${selection} }`;
  const argValue = (type: AnyField['args'][number]['type']) => {
    const named = getNamedType(type);
    if (!isInputObjectType(named)) return fc.oneof(badValue, plausible());
    // An input object: its own fields malformed (or the whole object replaced).
    const fields = Object.keys(named.getFields());
    return fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record(Object.fromEntries(fields.map((name) => [name, fc.oneof(badValue, plausible())])), {
          requiredKeys: [],
        }),
      },
      { weight: 1, arbitrary: badValue },
      { weight: 1, arbitrary: oversized },
    );
  };
  const variables = fc.record(Object.fromEntries(field.args.map((arg) => [arg.name, argValue(arg.type)])), {
    requiredKeys: [],
  });
  const queryText = fc.oneof(
    { weight: 8, arbitrary: fc.constant(document) },
    { weight: 1, arbitrary: badString },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        document.replace('{', '{{'),
        `${document}\u0000`,
        `${document} ${'{ a '.repeat(500)}`,
        `# ${'x'.repeat(100_000)}\n${document}`,
      ),
    },
  );
  const variableValues = fc.oneof(
    { weight: 8, arbitrary: variables as fc.Arbitrary<unknown> },
    { weight: 1, arbitrary: badValue },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...(field.args.length ? field.args.map((arg) => arg.name) : ['x'])), oversized)
        .map(([name, value]) => ({ [name]: value })),
    },
  );
  return fc.record({ query: queryText, variables: variableValues, headers: headerMess });
}

describe('GraphQL, generated from the schema', () => {
  test.each(rootFields.map(({ kind, field }) => [`${kind} ${field.name}`, kind, field] as const))(
    '%s',
    async (_name, kind, field) => {
      await fc.assert(
        fc.asyncProperty(graphqlCase(kind, field), async ({ query, variables, headers }) => {
          const { 'content-length': _length, ...rest } = headers;
          const request = new Request(`${t.app.config.baseUrl}/api/graphql`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...rest },
            body: JSON.stringify({ query, variables }),
          });
          sizes.graphql++;
          // A cheap request beside it: whatever the case costs, the process goes on answering others.
          const cheap = new Request(`${t.app.config.baseUrl}/api/graphql`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: '{"query":"{ __typename }"}',
          });
          const [response, beside] = await Promise.all([answer(request), answer(cheap)]);
          const body = await response.text();
          const what = `${kind} ${field.name} ${query.slice(0, 120)} ${JSON.stringify(variables)?.slice(0, 200)}`;
          expect(await beside.json(), what).toEqual({ data: { __typename: 'Query' } });
          expect(response.status, `${what} -> ${response.status} ${body.slice(0, 300)}`).toBeLessThan(500);
          if (response.headers.get('content-type')?.startsWith('application/problem+json')) return;
          const result = JSON.parse(body) as { errors?: { extensions?: { code?: string } }[] };
          for (const error of result.errors ?? []) {
            expect(error.extensions?.code, `${what}: ${JSON.stringify(error).slice(0, 300)}`).toMatch(/^[A-Z_]+$/);
            expect(error.extensions?.code, `${what}: ${JSON.stringify(error).slice(0, 300)}`).not.toBe(
              'INTERNAL_SERVER_ERROR',
            );
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    },
    300_000,
  );
});

// ---- MCP ----

/** Every tool with malformed arguments (its route's parameters and body fields, and strays), over JSON-RPC. */
const toolRoutes = ROUTES.filter((route) => route.tool);

function toolArguments(route: Route) {
  const names = [
    ...Object.keys(route.params?.shape ?? {}),
    ...Object.keys(route.query?.shape ?? {}),
    ...Object.keys(route.body?.shape ?? {}),
  ];
  if (route.method === 'post') names.push('idempotency_key');
  const args = fc
    .record(Object.fromEntries(names.map((name) => [name, fc.oneof(badValue, plausible())])), { requiredKeys: [] })
    .chain((fields) =>
      fc.record({
        fields: fc.constant(fields),
        extra: fc.dictionary(fc.constantFrom('org_id', '__proto__', 'zz', 'cursor'), badValue, { maxKeys: 2 }),
      }),
    )
    .map(({ fields, extra }) => ({ ...fields, ...extra }) as unknown);
  const large = fc
    .tuple(fc.constantFrom(...(names.length ? names : ['x'])), oversized)
    .map(([name, value]) => ({ [name]: value }) as unknown);
  return fc.oneof({ weight: 8, arbitrary: args }, { weight: 1, arbitrary: badValue }, { weight: 1, arbitrary: large });
}

describe('MCP, one tool per route declaration', () => {
  test.each(toolRoutes.map((route) => [route.tool!.name, route] as const))(
    '%s',
    async (name, route) => {
      await fc.assert(
        fc.asyncProperty(toolArguments(route), async (args) => {
          const request = new Request(`${t.app.config.baseUrl}/api/mcp`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${token}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
            },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
          });
          sizes.mcp++;
          const response = await answer(request);
          const body = await response.text();
          const what = `${name} ${JSON.stringify(args)?.slice(0, 300)}`;
          expect(response.status, `${what} -> ${response.status} ${body.slice(0, 300)}`).toBeLessThan(500);
          if (response.status !== 200) return;
          // Either a tool result (an error result names what was wrong) or a JSON-RPC error for arguments that are not an object.
          const message = JSON.parse(body) as {
            result?: { isError?: boolean; content: { text: string }[] };
            error?: { code: number; message: string };
          };
          if (message.error) {
            expect(message.error.code, `${what}: ${body.slice(0, 300)}`).not.toBe(-32603);
            return;
          }
          if (message.result?.isError) {
            const problem = JSON.parse(message.result.content[0]!.text) as { status: number; code: string };
            expect(problem.status, `${what}: ${body.slice(0, 300)}`).toBeLessThan(500);
            expect(problem.code).toMatch(/^[a-z_]+$/);
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    },
    300_000,
  );
});

afterAll(() => {
  console.log(
    `fuzz: ${restOperations.length} REST operations x ${RUNS} cases (${sizes.rest} requests) + ${rootFields.length} GraphQL fields x ${RUNS} cases (${sizes.graphql} requests)` +
      ` + ${toolRoutes.length} MCP tools x ${RUNS} cases (${sizes.mcp} requests)`,
  );
});
