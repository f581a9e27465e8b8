import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hashToken } from '../src/auth/pat-token.js';
import { KEPT_INACTIVE_KEYS } from '../src/schema/keys/api-key.js';
import { MAX_PENDING_INVITATIONS } from '../src/schema/organizations/invitation.js';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';
import { expectProblem } from './support/problem.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const DAY = 86_400_000;

/** Rows written straight to the database: how fast the API lets them be made is not what these tests are about. */
async function seedInvitations(
  orgId: string,
  createdBy: string,
  count: number,
  extra: { expiresAt: Date; usedAt?: Date; usedBy?: string },
) {
  await t.app.db.prisma.invitation.createMany({
    data: Array.from({ length: count }, () => ({
      orgId,
      role: 'viewer' as const,
      createdBy,
      codeHash: hashToken(`inv_${randomUUID()}`),
      ...extra,
    })),
  });
}

describe('pending invitations per organization', () => {
  test(`one more than ${MAX_PENDING_INVITATIONS} pending is refused (409, typed error); used and expired ones do not count; a use frees a place`, async () => {
    const acme = t.org('acme');
    const adam = t.user('adam');
    await seedInvitations(acme.id, adam.id, MAX_PENDING_INVITATIONS - 1, { expiresAt: new Date(Date.now() + DAY) });
    await seedInvitations(acme.id, adam.id, 5, { expiresAt: new Date(Date.now() - 1000) });
    await seedInvitations(acme.id, adam.id, 3, {
      expiresAt: new Date(Date.now() + DAY),
      usedAt: new Date(),
      usedBy: adam.id,
    });
    const last = await t.call('POST', '/api/invitations', { token: adam.token, body: { role: 'viewer' } });
    expect(last.status).toBe(201);
    const refused = await expectProblem(
      await t.call('POST', '/api/invitations', { token: adam.token, body: { role: 'viewer' } }),
      409,
      'invitation_limit_reached',
    );
    expect(refused.detail).toContain(`${MAX_PENDING_INVITATIONS} pending invitations`);
    const graphql = await t.call('POST', '/api/graphql', {
      token: adam.token,
      body: {
        query:
          'mutation { createInvitation(role: viewer) { __typename ... on Error { code } ... on ConflictError { limit } } }',
      },
    });
    expect(await graphql.json()).toEqual({
      data: {
        createInvitation: {
          __typename: 'ConflictError',
          code: 'INVITATION_LIMIT_REACHED',
          limit: MAX_PENDING_INVITATIONS,
        },
      },
    });
    // Expired codes, which nobody can redeem, are gone.
    expect(await t.app.db.prisma.invitation.count({ where: { orgId: acme.id, expiresAt: { lte: new Date() } } })).toBe(
      0,
    );

    const bella = { cookie: await t.signIn('bella@example.com'), origin: ORIGIN };
    const joined = await t.call('POST', '/api/orgs/join', {
      headers: bella,
      body: { invite_code: (await last.json()).invite_code },
    });
    expect(joined.status).toBe(201);
    expect((await t.call('POST', '/api/invitations', { token: adam.token, body: { role: 'viewer' } })).status).toBe(
      201,
    );
  });

  test('two creations at once for the last place: one is made, the other refused', async () => {
    const globex = t.org('globex');
    const bella = t.user('bella', 'globex');
    await seedInvitations(globex.id, bella.id, MAX_PENDING_INVITATIONS - 1, { expiresAt: new Date(Date.now() + DAY) });
    const both = await Promise.all(
      [0, 1].map(() => t.call('POST', '/api/invitations', { token: bella.token, body: { role: 'viewer' } })),
    );
    expect(both.map((response) => response.status).sort()).toEqual([201, 409]);
    expect(await t.app.db.prisma.invitation.count({ where: { orgId: globex.id, usedAt: null } })).toBe(
      MAX_PENDING_INVITATIONS,
    );
  });
});

describe("a user's revoked and expired keys", () => {
  test(`creating a key keeps the newest ${KEPT_INACTIVE_KEYS} of them and deletes the older ones`, async () => {
    const maya = t.user('maya');
    const start = Date.now() - 30 * DAY;
    const inactive = KEPT_INACTIVE_KEYS + 20;
    await t.app.db.prisma.apiKey.createMany({
      data: Array.from({ length: inactive }, (_, i) => ({
        orgId: maya.org_id,
        userId: maya.id,
        name: `old ${i}`,
        tokenHash: hashToken(`tok_live_${randomBytes(16).toString('hex')}`),
        hint: 'abcd',
        createdAt: new Date(start + i * 60_000),
        // Half revoked, half expired: both are kept the same way.
        ...(i % 2
          ? { revokedAt: new Date(start + i * 60_000 + 1000) }
          : { expiresAt: new Date(start + i * 60_000 + 1000) }),
      })),
    });
    const cookie = await t.signIn('maya@example.com');
    const created = await t.call('POST', '/api/api-keys', {
      headers: { cookie, origin: ORIGIN },
      body: { name: 'new' },
    });
    expect(created.status).toBe(201);
    const old = await t.app.db.prisma.apiKey.findMany({
      where: { userId: maya.id, orgId: maya.org_id, name: { startsWith: 'old ' } },
      select: { name: true },
    });
    const expected = Array.from({ length: KEPT_INACTIVE_KEYS }, (_, i) => `old ${inactive - KEPT_INACTIVE_KEYS + i}`);
    expect(old.map((key) => key.name).sort()).toEqual(expected.sort());
    // Her active keys (the demo's) are untouched.
    const me = await t.call('GET', '/api/me', { token: maya.token });
    expect(me.status).toBe(200);
  });
});
