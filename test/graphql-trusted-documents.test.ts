import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadTrustedDocuments } from '../src/graphql/trusted-documents.js';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';

const DASHBOARD = '{ issueAggregates { total byStatus { status count } } }';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const dir = mkdtempSync(join(tmpdir(), 'trusted-'));
const file = join(dir, 'documents.json');
writeFileSync(file, JSON.stringify({ [sha256(DASHBOARD)]: DASHBOARD }));

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ graphqlTrustedDocuments: file, graphqlTrustedOnly: ['pat'] });
});
afterAll(() => t.close());

const byHash = (hash: string) => ({ extensions: { persistedQuery: { version: 1, sha256Hash: hash } } });

describe('trusted documents', () => {
  test('a registered document runs by its hash', async () => {
    const response = await t.call('POST', '/api/graphql', {
      token: t.user('victor').token,
      body: byHash(sha256(DASHBOARD)),
    });
    expect(response.status).toBe(200);
    expect(
      ((await response.json()) as { data: { issueAggregates: { total: number } } }).data.issueAggregates.total,
    ).toBe(8);
  });

  test('a key (GRAPHQL_TRUSTED_ONLY=pat) may not send a document of its own; an unknown hash is refused', async () => {
    const own = await t.call('POST', '/api/graphql', {
      token: t.user('victor').token,
      body: { query: '{ me { id } }' },
    });
    expect(own.status).toBe(400);
    expect(((await own.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe(
      'PERSISTED_QUERY_ONLY',
    );
    const unknown = await t.call('POST', '/api/graphql', {
      token: t.user('victor').token,
      body: byHash(sha256('{ me { id } }')),
    });
    expect(((await unknown.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe(
      'PERSISTED_QUERY_NOT_FOUND',
    );
  });

  test('a key may not send a document of its own beside a registered hash (the hash would admit it, the document would run)', async () => {
    const both = await t.call('POST', '/api/graphql', {
      token: t.user('victor').token,
      body: { query: '{ me { id email } }', ...byHash(sha256(DASHBOARD)) },
    });
    expect(both.status).toBe(400);
    const body = (await both.json()) as { data?: unknown; errors: { extensions: { code: string } }[] };
    expect(body.data).toBeUndefined();
    expect(body.errors[0]!.extensions.code).toBe('PERSISTED_QUERY_ONLY');
  });

  test('other credential kinds still send any document', async () => {
    const cookie = await t.signIn('victor@example.com');
    const response = await t.call('POST', '/api/graphql', {
      body: { query: '{ me { username } }' },
      headers: { cookie, origin: ORIGIN },
    });
    expect(await response.json()).toEqual({ data: { me: { username: 'victor' } } });
  });

  test('a file whose keys are not the hashes of their documents is refused at start', () => {
    const wrong = join(dir, 'wrong.json');
    writeFileSync(wrong, JSON.stringify({ [sha256('{ me { id } }')]: DASHBOARD }));
    expect(() => loadTrustedDocuments(wrong)).toThrow(/not the SHA-256/);
  });
});

describe('auth failures for application/graphql-response+json clients (GraphQL over HTTP)', () => {
  test('401 with the challenge and a GraphQL error body; problem+json for other clients', async () => {
    const accept = 'application/graphql-response+json';
    const none = await t.call('POST', '/api/graphql', { body: { query: '{ me { id } }' }, headers: { accept } });
    expect(none.status).toBe(401);
    expect(none.headers.get('content-type')).toContain(accept);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(await none.json()).toEqual({
      errors: [{ message: expect.any(String), extensions: { code: 'UNAUTHENTICATED' } }],
    });
    const wrong = await t.call('POST', '/api/graphql', {
      token: 'tok_live_nope',
      body: { query: '{ me { id } }' },
      headers: { accept },
    });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { errors: unknown[] }).errors).toHaveLength(1);
    const plain = await t.call('POST', '/api/graphql', { body: { query: '{ me { id } }' } });
    expect(plain.status).toBe(401);
    expect(plain.headers.get('content-type')).toContain('application/problem+json');
  });

  test('403 for a key sent with another organization', async () => {
    const response = await t.call('POST', '/api/graphql', {
      token: t.user('mark').token,
      body: { query: '{ me { id } }' },
      headers: { accept: 'application/graphql-response+json', 'x-org-id': t.org('globex').id },
    });
    expect(response.status).toBe(403);
    expect(
      ((await response.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code,
    ).toMatch(/FORBIDDEN|ORG/);
  });
});
