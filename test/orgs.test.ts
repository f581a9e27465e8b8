import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';
import { expectProblem } from './support/problem.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  await t.app.db.prisma.organization.create({ data: { name: 'Hidden Labs', slug: 'hidden', isPublic: false } });
});
afterAll(() => t.close());

const session = async (email: string) => ({ cookie: await t.signIn(email), origin: ORIGIN });

describe('GET /api/orgs', () => {
  test("a key sees only its bound organization; a session sees all of the user's", async () => {
    const byKey = await (await t.call('GET', '/api/orgs', { token: t.user('mark', 'globex').token })).json();
    expect(byKey).toEqual({
      count: 1,
      orgs: [expect.objectContaining({ id: t.org('globex').id, slug: 'globex', role: 'member' })],
    });
    const bySession = await (await t.call('GET', '/api/orgs', { headers: await session('mark@example.com') })).json();
    expect(bySession.orgs.map((o: { slug: string }) => o.slug).sort()).toEqual(['acme', 'globex']);
  });
});

describe('cross-organization operations are 403 for API keys', () => {
  test('create an organization, join by invite code, search the directory', async () => {
    const token = t.user('olivia').token;
    const attempts = [
      t.call('POST', '/api/orgs', { token, body: { name: 'New', slug: 'new-co' } }),
      t.call('POST', '/api/orgs/join', { token, body: { invite_code: 'inv_whatever' } }),
      t.call('GET', '/api/orgs/search?q=acme', { token }),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(403);
      expect((await response.json()).code).toBe('forbidden');
    }
    expect(await t.app.db.prisma.organization.count({ where: { slug: 'new-co' } })).toBe(0);
  });
});

describe('with a session', () => {
  test('creating an organization makes the caller its owner; a taken slug is 409; a bad slug 400', async () => {
    const headers = await session('victor@example.com');
    const created = await t.call('POST', '/api/orgs', {
      headers,
      body: { name: 'Victor Co', slug: 'Victor-Co', is_public: true },
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ slug: 'victor-co', role: 'owner', is_public: true });
    expect((await t.call('POST', '/api/orgs', { headers, body: { name: 'Again', slug: 'victor-co' } })).status).toBe(
      409,
    );
    const bad = await t.call('POST', '/api/orgs', { headers, body: { name: 'Bad', slug: '-nope-' } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).errors[0].field).toBe('slug');
  });

  test('the directory lists public organizations only', async () => {
    const headers = await session('olivia@example.com');
    const found = await (await t.call('GET', '/api/orgs/search?q=LAB', { headers })).json();
    expect(found).toEqual([]);
    const acme = await (await t.call('GET', '/api/orgs/search?q=acm', { headers })).json();
    expect(acme).toEqual([{ id: t.org('acme').id, name: 'Acme Corp', slug: 'acme', is_public: true }]);
    expect((await t.call('GET', '/api/orgs/search', { headers })).status).toBe(400);
  });

  test('invite codes: admins create them (no higher than their role), a user joins once with a session', async () => {
    const admin = t.user('adam');
    const invite = await t.call('POST', '/api/invitations', { token: admin.token, body: { role: 'member' } });
    expect(invite.status).toBe(201);
    const { invite_code: code, role } = await invite.json();
    expect(role).toBe('member');
    expect((await t.call('POST', '/api/invitations', { token: admin.token, body: { role: 'owner' } })).status).toBe(
      403,
    );
    expect(
      (await t.call('POST', '/api/invitations', { token: t.user('maya').token, body: { role: 'viewer' } })).status,
    ).toBe(403);

    const bella = await session('bella@example.com');
    const joined = await t.call('POST', '/api/orgs/join', { headers: bella, body: { invite_code: code } });
    expect(joined.status).toBe(201);
    expect(await joined.json()).toMatchObject({ slug: 'acme', role: 'member' });
    expect(
      (
        await t.call('POST', '/api/orgs/join', {
          headers: await session('victor@example.com'),
          body: { invite_code: code },
        })
      ).status,
    ).toBe(404);
    const orgs = await (await t.call('GET', '/api/me/orgs', { headers: bella })).json();
    expect(orgs.orgs.map((o: { org_slug: string }) => o.org_slug).sort()).toEqual(['acme', 'globex']);
  });

  test("an owner invitation needs a signed-in person: an owner's API key gets 403, their session 201", async () => {
    const byKey = await expectProblem(
      await t.call('POST', '/api/invitations', { token: t.user('olivia').token, body: { role: 'owner' } }),
      403,
      'forbidden',
    );
    expect(byKey.detail).toMatch(/signed in/);
    // Every role below owner stays open to the key.
    expect(
      (await t.call('POST', '/api/invitations', { token: t.user('olivia').token, body: { role: 'admin' } })).status,
    ).toBe(201);
    const olivia = await session('olivia@example.com');
    const bySession = await t.call('POST', '/api/invitations', { headers: olivia, body: { role: 'owner' } });
    expect(bySession.status).toBe(201);
    expect(await bySession.json()).toMatchObject({ role: 'owner' });
  });

  test('joining an organization you are already in is 409 and does not use up the code', async () => {
    const { invite_code: code } = await (
      await t.call('POST', '/api/invitations', { token: t.user('olivia').token, body: { role: 'viewer' } })
    ).json();
    const mark = await session('mark@example.com');
    expect((await t.call('POST', '/api/orgs/join', { headers: mark, body: { invite_code: code } })).status).toBe(409);
    expect(
      (
        await t.call('POST', '/api/orgs/join', {
          headers: await session('victor@example.com'),
          body: { invite_code: code },
        })
      ).status,
    ).toBe(409);
    const stranger = await t.app.db.prisma.user.create({ data: { email: 's@example.com', name: 'S', username: 's' } });
    await t.app.db.prisma.user.update({
      where: { id: stranger.id },
      data: {
        passwordHash: (await t.app.db.prisma.user.findUniqueOrThrow({ where: { username: 'victor' } })).passwordHash,
      },
    });
    expect(
      (await t.call('POST', '/api/orgs/join', { headers: await session('s@example.com'), body: { invite_code: code } }))
        .status,
    ).toBe(201);
  });
});
