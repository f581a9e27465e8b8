import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mintApiKey } from '../src/auth/api-keys.js';
import { generatePat, PAT_PREFIX } from '../src/auth/pat-token.js';
import { addMember, removeMember, revokeApiKey } from '../src/cli/operations.js';
import { startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** A live key for an existing member, made directly (key management has its own routes). */
async function keyFor(username: string, slug = 'acme', expiresAt?: Date) {
  const user = t.user(username, slug);
  return mintApiKey(t.app.db.prisma, { userId: user.id, orgId: user.org_id, name: 'test', expiresAt });
}

async function expectUnauthorized(response: Response, code: string) {
  expect(response.status).toBe(401);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  const challenge = response.headers.get('www-authenticate') ?? '';
  expect(challenge).toMatch(/^Bearer realm="http:\/\/localhost:4000\/api"/);
  const body = await response.json();
  expect(body).toMatchObject({ status: 401, code });
  if (code !== 'unauthenticated') {
    expect(challenge).toContain('error="invalid_token"');
    expect(body.detail).toMatch(/re-authenticate/);
  }
}

describe('token format', () => {
  test('a key is stored as the SHA-256 of its token, so keys minted by earlier versions keep authenticating', async () => {
    const { key, token } = await keyFor('mark');
    const stored = await t.app.db.prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } });
    expect(Buffer.from(stored.tokenHash).toString('hex')).toBe(createHash('sha256').update(token).digest('hex'));
    const response = await t.call('GET', '/api/me', { token });
    expect(response.status).toBe(200);
  });
});

describe('PAT authentication', () => {
  test('Authorization: Bearer and X-Auth-Token are accepted equally', async () => {
    const { token } = t.user('mark');
    const viaBearer = await t.call('GET', '/api/me', { token });
    const viaHeader = await t.call('GET', '/api/me', { headers: { 'x-auth-token': token } });
    expect(viaBearer.status).toBe(200);
    expect(viaHeader.status).toBe(200);
    expect(await viaHeader.json()).toEqual(await viaBearer.json());
  });

  test('no credential is 401 with a Bearer challenge, on REST and GraphQL', async () => {
    await expectUnauthorized(await t.call('GET', '/api/me'), 'unauthenticated');
    await expectUnauthorized(
      await t.call('POST', '/api/graphql', { body: { query: '{ me { id } }' } }),
      'unauthenticated',
    );
  });

  test('malformed, forged-checksum and unknown tokens are 401; the first two cost no query', async () => {
    const real = generatePat();
    const forged = `${real.slice(0, -1)}${real.endsWith('A') ? 'B' : 'A'}`;
    for (const [token, code] of [
      ['not-a-token', 'token_invalid'],
      ['tok_live_short', 'token_malformed'],
      [forged, 'token_malformed'],
    ] as const) {
      const before = t.app.db.queries.count;
      await expectUnauthorized(await t.call('GET', '/api/me', { token }), code);
      expect(t.app.db.queries.count - before).toBe(0);
    }
    await expectUnauthorized(await t.call('GET', '/api/me', { token: real }), 'token_invalid');
    await expectUnauthorized(
      await t.call('GET', '/api/me', { headers: { authorization: 'Basic abc' } }),
      'token_malformed',
    );
  });

  test('two different tokens in one request are refused', async () => {
    const response = await t.call('GET', '/api/me', {
      token: t.user('mark').token,
      headers: { 'x-auth-token': t.user('olivia').token },
    });
    expect(response.status).toBe(400);
    expect((await response.json()).code).toBe('conflicting_credentials');
  });

  test('a revoked key is 401 on the very next request', async () => {
    const { key, token } = await keyFor('mark');
    expect((await t.call('GET', '/api/me', { token })).status).toBe(200);
    // The operator path (npm run admin -- revoke-key): the write, then the credential epoch.
    await revokeApiKey(t.app.db.prisma, key.id, t.app.credentialEpoch);
    await expectUnauthorized(await t.call('GET', '/api/me', { token }), 'token_revoked');
  });

  test('an expired key is 401', async () => {
    const { token } = await keyFor('mark', 'acme', new Date(Date.now() - 1000));
    await expectUnauthorized(await t.call('GET', '/api/issues', { token }), 'token_expired');
    const { token: later } = await keyFor('mark', 'acme', new Date(Date.now() + 60_000));
    expect((await t.call('GET', '/api/me', { token: later })).status).toBe(200);
  });

  test('X-Org-Id is optional; equal to the bound org it passes, otherwise 403', async () => {
    const mark = t.user('mark');
    const ok = await t.call('GET', '/api/me/orgs', { token: mark.token, headers: { 'x-org-id': mark.org_id } });
    expect(ok.status).toBe(200);
    for (const other of [t.org('globex').id, 'not-a-uuid']) {
      const denied = await t.call('GET', '/api/me/orgs', { token: mark.token, headers: { 'x-org-id': other } });
      expect(denied.status).toBe(403);
      expect(await denied.json()).toMatchObject({ status: 403, code: 'org_mismatch' });
    }
  });

  test('X-Org-Id is checked on the first request of a key too, when it is read from the database', async () => {
    // The shared app caches keys: a fresh key's first request is the database path.
    const { token } = await keyFor('mark');
    const denied = await t.call('GET', '/api/me/orgs', { token, headers: { 'x-org-id': t.org('globex').id } });
    expect(denied.status).toBe(403);
    expect(await denied.json()).toMatchObject({ status: 403, code: 'org_mismatch' });
    // ...and on the hits after it, where the right org passes.
    expect(
      (await t.call('GET', '/api/me/orgs', { token, headers: { 'x-org-id': t.user('mark').org_id } })).status,
    ).toBe(200);
    expect((await t.call('GET', '/api/me/orgs', { token, headers: { 'x-org-id': t.org('globex').id } })).status).toBe(
      403,
    );
  });

  test('a role change applies to the next request; removal from the org makes the key 401', async () => {
    const { key, token } = await keyFor('victor');
    const projectId = t.org('acme').projects[0]!.id;
    const create = () =>
      t.call('POST', '/api/issues', { token, body: { project_id: projectId, title: 'From Victor' } });
    expect((await create()).status).toBe(403);
    const membership = { orgId_userId: { orgId: key.orgId, userId: key.userId } };
    const epoch = t.app.credentialEpoch;
    await addMember(t.app.db.prisma, { ...membership.orgId_userId, role: 'member' }, epoch);
    expect((await create()).status).toBe(201);
    await addMember(t.app.db.prisma, { ...membership.orgId_userId, role: 'viewer' }, epoch);
    expect((await create()).status).toBe(403);
    await removeMember(t.app.db.prisma, membership.orgId_userId, epoch);
    await expectUnauthorized(await t.call('GET', '/api/me', { token }), 'token_invalid');
  });

  test('only the SHA-256 of a token is stored', async () => {
    const { key, token } = await keyFor('mark');
    const row = await t.app.db.prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } });
    expect(Buffer.from(row.tokenHash).toString('hex')).toBe(
      (await import('node:crypto')).createHash('sha256').update(token).digest('hex'),
    );
    expect(JSON.stringify(row)).not.toContain(token.slice(PAT_PREFIX.length, -4));
    expect(row.hint).toBe(token.slice(-4));
  });
});
