import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { mintApiKey } from '../src/auth/api-keys.js';
import { testConfig } from '../src/config.js';
import { MemoryStore } from '../src/limits/memory-store.js';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';

// Each per-route policy admits exactly its limit, counting REST and GraphQL calls of the
// operation together, and refuses the next with 429 and the tighter bucket in the headers.

let t: TestApp;
let app: App;
let clock = 9_000_000;
beforeAll(async () => {
  t = await startTestApp();
  app = await createApp(testConfig(), { db: t.app.db, limiterStore: new MemoryStore({ now: () => clock }) });
});
afterAll(async () => {
  await app.close();
  await t.close();
});

async function freshToken(username = 'olivia') {
  const user = t.user(username);
  return (await mintApiKey(t.app.db.prisma, { userId: user.id, orgId: user.org_id, name: 'limits' })).token;
}

const rest = (token: string, method: string, path: string, body?: unknown) =>
  app.fetch(
    new Request(`${ORIGIN}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    }),
  );
const gql = (token: string, query: string) => rest(token, 'POST', '/api/graphql', { query });

describe('search: 30 per 60 s across people, palette (and orgs) search, REST and GraphQL together', () => {
  test('the 31st search is refused; the bucket frees as the window slides', async () => {
    const token = await freshToken();
    const calls = [
      () => rest(token, 'GET', '/api/people/search?q=ma'),
      () => rest(token, 'GET', '/api/palette/search?q=web'),
      () => gql(token, '{ searchPeople(q: "ad") { id } }'),
      () => gql(token, '{ paletteSearch(q: "mob") { id } }'),
    ];
    for (let i = 0; i < 30; i++) {
      const response = await calls[i % calls.length]!();
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ratelimit-limit')).toBe('30');
      expect(response.headers.get('x-ratelimit-remaining')).toBe(String(29 - i));
    }
    const refused = await rest(token, 'GET', '/api/people/search?q=ma');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(refused.headers.get('ratelimit-policy')).toBe('"global";q=600;w=60, "search";q=30;w=60');
    const viaGraphQL = await (await gql(token, '{ paletteSearch(q: "mob") { id } }')).json();
    expect(viaGraphQL.errors[0].extensions.code).toBe('RATE_LIMITED');
    // Other reads are not affected.
    expect((await rest(token, 'GET', '/api/me')).status).toBe(200);
    clock += 60_000;
    expect((await rest(token, 'GET', '/api/people/search?q=ma')).status).toBe(200);
  });
});

describe('project writes: 30 per 60 s across POST, PUT, DELETE and their mutations', () => {
  test('the 31st write is refused with no effect', async () => {
    const token = await freshToken();
    for (let i = 0; i < 10; i++) {
      const created = await rest(token, 'POST', '/api/projects', { name: `Limit ${i}`, key: `LIM${i}` });
      expect(created.status).toBe(201);
      const { id } = await created.json();
      expect((await rest(token, 'PUT', `/api/projects/${id}`, { name: `Limited ${i}` })).status).toBe(200);
      const mutation = await (await gql(token, `mutation { deleteProject(id: "${id}") { __typename } }`)).json();
      expect(mutation.data.deleteProject.__typename).toBe('MutationDeleteProjectSuccess');
    }
    const refused = await rest(token, 'POST', '/api/projects', { name: 'One too many', key: 'MANY' });
    expect(refused.status).toBe(429);
    expect((await refused.json()).code).toBe('rate_limited');
    expect(await t.app.db.prisma.project.count({ where: { key: 'MANY' } })).toBe(0);
    const typed = await (
      await gql(
        token,
        'mutation { createProject(input: { name: "x", key: "XX" }) { __typename ... on RateLimitedError { retryAfter } } }',
      )
    ).json();
    expect(typed.data.createProject).toEqual({ __typename: 'RateLimitedError', retryAfter: 60 });
  });
});
