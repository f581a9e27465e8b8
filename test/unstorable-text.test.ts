import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { UNSTORABLE_TEXT_MESSAGE } from '../src/schema/core/text.js';
import { formPost, ORIGIN, startTestApp, type TestApp } from './support/app.js';
import { fieldErrors } from './support/problem.js';

/**
 * Text PostgreSQL cannot store exactly: NUL (a 500, error 22021, before) and unpaired UTF-16
 * surrogates (stored as U+FFFD before). Each is a 400 / ValidationError naming the field, on
 * both surfaces, and nothing is written.
 */
let t: TestApp;
let issueId: string;
let projectId: string;
let session: Record<string, string>;

const NUL = 'bad\u0000text';
const LONE_SURROGATE = 'bad\ud800text';
const UNSTORABLE = [NUL, LONE_SURROGATE];
const NAMES: Record<string, string> = { [NUL]: 'NUL', [LONE_SURROGATE]: 'lone surrogate' };

beforeAll(async () => {
  t = await startTestApp();
  projectId = t.org('acme').projects[0]!.id;
  const issue = await t.app.db.prisma.issue.findFirstOrThrow({ where: { projectId } });
  issueId = issue.id;
  session = { cookie: await t.signIn('olivia@example.com'), origin: ORIGIN, 'x-org-id': t.org('acme').id };
});
afterAll(() => t.close());

const token = () => t.user('olivia').token;
const refused = (field: string) => [{ field, message: UNSTORABLE_TEXT_MESSAGE }];

/** What the database holds, to show that nothing was written. */
async function snapshot() {
  const db = t.app.db.prisma;
  const [issues, projects, orgs, keys, issue, project] = await Promise.all([
    db.issue.count(),
    db.project.count(),
    db.organization.count(),
    db.apiKey.count(),
    db.issue.findUniqueOrThrow({ where: { id: issueId }, select: { title: true, description: true } }),
    db.project.findUniqueOrThrow({ where: { id: projectId }, select: { name: true } }),
  ]);
  return { issues, projects, orgs, keys, issue, project };
}

async function gql(
  query: string,
  variables: Record<string, unknown>,
  headers: Record<string, string> = { authorization: `Bearer ${token()}` },
) {
  const response = await t.app.fetch(
    new Request(`${ORIGIN}/api/graphql`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    }),
  );
  expect(response.status).toBe(200);
  return (await response.json()) as {
    data?: Record<string, { __typename?: string; fieldErrors?: unknown }> | null;
    errors?: { extensions: { code: string; fieldErrors?: unknown } }[];
  };
}

describe.each(UNSTORABLE)('REST: text with %j', (text) => {
  test(`issue title and description (POST, PATCH), project name (POST, PUT), organization and key names: 400 naming the field (${NAMES[text]})`, async () => {
    const before = await snapshot();
    const cases: [Promise<Response>, string][] = [
      [t.call('POST', '/api/issues', { token: token(), body: { project_id: projectId, title: text } }), 'title'],
      [
        t.call('POST', '/api/issues', {
          token: token(),
          body: { project_id: projectId, title: 'Fine', description: text },
        }),
        'description',
      ],
      [t.call('PATCH', `/api/issues/${issueId}`, { token: token(), body: { title: text } }), 'title'],
      [t.call('PATCH', `/api/issues/${issueId}`, { token: token(), body: { description: text } }), 'description'],
      [t.call('POST', '/api/projects', { token: token(), body: { name: text, key: 'NUL' } }), 'name'],
      [t.call('PUT', `/api/projects/${projectId}`, { token: token(), body: { name: text } }), 'name'],
      [t.call('POST', '/api/orgs', { headers: session, body: { name: text, slug: 'unstorable' } }), 'name'],
      [t.call('POST', '/api/api-keys', { headers: session, body: { name: text } }), 'name'],
    ];
    for (const [response, field] of cases) expect(await fieldErrors(await response)).toEqual(refused(field));
    expect(await snapshot()).toEqual(before);
  });
});

// A URL cannot carry a lone surrogate (its UTF-8 form does not exist; %ED%A0%80 decodes to U+FFFD).
describe('REST: a NUL in a query', () => {
  test('q of the issue list, people, palette and directory searches: 400 on q', async () => {
    for (const path of ['/api/issues?q=a%00b', '/api/people/search?q=a%00b', '/api/palette/search?q=a%00b']) {
      expect(await fieldErrors(await t.call('GET', path, { token: token() })), path).toEqual(refused('q'));
    }
    expect(await fieldErrors(await t.call('GET', '/api/orgs/search?q=a%00b', { headers: session }))).toEqual(
      refused('q'),
    );
  });
});

describe('REST: a NUL where a label is named (its id or name)', () => {
  test('in the path of a label route and in the labels of an issue: 400 naming it, never a 500', async () => {
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const response = await t.call(method, '/api/labels/a%00b', {
        token: token(),
        ...(method === 'PATCH' ? { body: { color: '#112233' } } : {}),
      });
      expect(await fieldErrors(response), method).toEqual(refused('id'));
    }
    const add = await t.call('POST', `/api/issues/${issueId}/labels`, { token: token(), body: { labels: [NUL] } });
    expect(await fieldErrors(add)).toEqual(refused('labels.0'));
  });
});

describe('REST: a forged cursor', () => {
  test('a title cursor whose title holds a NUL is not a cursor of the list: 400 on cursor', async () => {
    const first = await t.call('GET', '/api/issues?sort=title&limit=1', { token: token() });
    const next = new URL(/<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')![1]!);
    const values = JSON.parse(Buffer.from(next.searchParams.get('cursor')!, 'base64url').toString('utf8')) as unknown[];
    values[2] = `a${NUL}`;
    next.searchParams.set('cursor', Buffer.from(JSON.stringify(values)).toString('base64url'));
    const forged = await t.call('GET', `${next.pathname}${next.search}`, { token: token() });
    expect(await fieldErrors(forged)).toEqual([
      { field: 'cursor', message: expect.stringContaining('is not a cursor') },
    ]);
  });
});

describe.each(UNSTORABLE)('GraphQL: text with %j', (text) => {
  const RESULT = '__typename ... on ValidationError { fieldErrors { field message } }';

  test(`createIssue, updateIssue, createProject, updateProject, createOrganization, createApiKey: ValidationError naming the field (${NAMES[text]})`, async () => {
    const before = await snapshot();
    const mutations: [string, Record<string, unknown>, string, Record<string, string>?][] = [
      [
        `mutation($text: String!, $p: ID!) { r: createIssue(input: { projectId: $p, title: $text }) { ${RESULT} } }`,
        { p: projectId },
        'title',
      ],
      [
        `mutation($text: String!, $p: ID!) { r: createIssue(input: { projectId: $p, title: "Fine", description: $text }) { ${RESULT} } }`,
        { p: projectId },
        'description',
      ],
      [
        `mutation($text: String!, $id: ID!) { r: updateIssue(id: $id, input: { title: $text }) { ${RESULT} } }`,
        { id: issueId },
        'title',
      ],
      [
        `mutation($text: String!, $id: ID!) { r: updateIssue(id: $id, input: { description: $text }) { ${RESULT} } }`,
        { id: issueId },
        'description',
      ],
      [`mutation($text: String!) { r: createProject(input: { name: $text, key: "NUL" }) { ${RESULT} } }`, {}, 'name'],
      [
        `mutation($text: String!, $id: ID!) { r: updateProject(id: $id, input: { name: $text }) { ${RESULT} } }`,
        { id: projectId },
        'name',
      ],
      [
        `mutation($text: String!) { r: createOrganization(input: { name: $text, slug: "unstorable" }) { ${RESULT} } }`,
        {},
        'name',
        session,
      ],
      [`mutation($text: String!) { r: createApiKey(input: { name: $text }) { ${RESULT} } }`, {}, 'name', session],
    ];
    for (const [query, variables, field, headers] of mutations) {
      const body = await gql(query, { ...variables, text }, headers);
      expect(body.errors, query).toBeUndefined();
      expect(body.data?.r, query).toEqual({ __typename: 'ValidationError', fieldErrors: refused(field) });
    }
    expect(await snapshot()).toEqual(before);
  });

  test(`issues(filter: { q, title }), searchPeople, paletteSearch, searchOrganizations: VALIDATION_FAILED naming the field (${NAMES[text]})`, async () => {
    const queries: [string, string, Record<string, string>?][] = [
      ['query($text: String!) { issues(filter: { q: $text }) { edges { node { id } } } }', 'filter.q'],
      [
        'query($text: String!) { issues(filter: { title: { contains: $text } }) { edges { node { id } } } }',
        'filter.title.contains',
      ],
      ['query($text: String!) { searchPeople(q: $text) { id } }', 'q'],
      ['query($text: String!) { paletteSearch(q: $text) { id } }', 'q'],
      ['query($text: String!) { searchOrganizations(q: $text) { id } }', 'q', session],
    ];
    for (const [query, field, headers] of queries) {
      const body = await gql(query, { text }, headers);
      expect(body.errors?.[0]?.extensions, query).toEqual({ code: 'VALIDATION_FAILED', fieldErrors: refused(field) });
    }
  });
});

describe('sign-in and OAuth: what names a row is never sent to the database unstorable', () => {
  test('sign-in with a NUL in the email: 400 naming the email', async () => {
    const response = await t.app.fetch(
      formPost('/login', { email: `olivia${NUL}@example.com`, password: 'whatever', next: '/' }),
    );
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(`The email ${UNSTORABLE_TEXT_MESSAGE}.`);
  });

  test.each(UNSTORABLE)('client registration with %j in client_name or a redirect URI: 400 naming it', async (text) => {
    const register = (metadata: object) =>
      t.app.fetch(
        new Request(`${ORIGIN}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(metadata),
        }),
      );
    const name = await register({ client_name: text, redirect_uris: ['https://client.example/cb'] });
    expect(name.status).toBe(400);
    expect(await name.json()).toEqual({
      error: 'invalid_client_metadata',
      error_description: `client_name: ${UNSTORABLE_TEXT_MESSAGE}`,
    });
    const uri = await register({ client_name: 'Fine', redirect_uris: [`https://client.example/${text}`] });
    expect(uri.status).toBe(400);
    expect(await uri.json()).toEqual({
      error: 'invalid_redirect_uri',
      error_description: `redirect_uris: ${UNSTORABLE_TEXT_MESSAGE}`,
    });
  });

  test('a client_id with a NUL names no client: the authorize page and the token endpoint say so', async () => {
    const authorize = await t.app.fetch(
      new Request(
        `${ORIGIN}/oauth/authorize?client_id=a%00b&response_type=code&redirect_uri=https://client.example/cb&code_challenge=${'a'.repeat(43)}&code_challenge_method=S256`,
      ),
    );
    expect(authorize.status).toBe(400);
    expect(await authorize.text()).toContain('is not registered here');
    const token = await t.app.fetch(
      new Request(`${ORIGIN}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          client_id: `a${NUL}b`,
          code: 'x',
          code_verifier: 'y',
          redirect_uri: 'https://client.example/cb',
        }),
      }),
    );
    expect(token.status).toBe(401);
    expect(await token.json()).toMatchObject({ error: 'invalid_client' });
  });
});

describe('text that PostgreSQL can store is kept exactly', () => {
  test('astral characters (a valid surrogate pair), accents and control characters other than NUL', async () => {
    const title = 'Emoji \u{1F600}, accents éà, tab\tand \u0001';
    const created = await t.call('POST', '/api/issues', { token: token(), body: { project_id: projectId, title } });
    expect(created.status).toBe(201);
    expect((await created.json()).title).toBe(title);
  });
});

describe('the admin CLI (npm run admin -- create-user)', () => {
  test('a user whose text PostgreSQL cannot store is a ValidationError naming each field, and nothing is written', async () => {
    const { createUser } = await import('../src/cli/operations.js');
    const { ValidationError } = await import('../src/schema/core/errors.js');
    for (const bad of UNSTORABLE) {
      const before = await t.app.db.prisma.user.count();
      const error = await createUser(t.app.db.prisma, {
        email: `x${bad}@example.com`,
        name: bad,
        username: `u${bad}`,
      }).catch((e: unknown) => e);
      expect(error, NAMES[bad]).toBeInstanceOf(ValidationError);
      expect((error as InstanceType<typeof ValidationError>).fieldErrors).toEqual([
        ...refused('email'),
        ...refused('name'),
        ...refused('username'),
      ]);
      expect(await t.app.db.prisma.user.count()).toBe(before);
    }
  });
});
