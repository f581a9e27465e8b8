import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('GET /api/me', () => {
  test("the User resource of the token's user", async () => {
    const olivia = t.user('olivia');
    const response = await t.call('GET', '/api/me', { token: olivia.token });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      id: olivia.id,
      email: 'olivia@example.com',
      name: 'Olivia Owner',
      username: 'olivia',
      locale: 'en',
    });
  });
});

describe('GET /api/me/orgs', () => {
  test('membership entries with exactly the spec fields and every project of the org', async () => {
    const olivia = t.user('olivia');
    const body = await (await t.call('GET', '/api/me/orgs', { token: olivia.token })).json();
    const acme = t.org('acme');
    const employee = await t.app.db.prisma.membership.findUniqueOrThrow({
      where: { orgId_userId: { orgId: acme.id, userId: olivia.id } },
    });
    expect(body).toEqual({
      count: 1,
      orgs: [
        {
          employee_id: employee.id,
          org_id: acme.id,
          org_name: 'Acme Corp',
          org_slug: 'acme',
          role: 'owner',
          projects: [...acme.projects].sort((a, b) => a.key.localeCompare(b.key)),
        },
      ],
    });
  });

  test('a user in two organizations sees only the org each key is bound to', async () => {
    for (const slug of ['acme', 'globex']) {
      const mark = t.user('mark', slug);
      const body = await (await t.call('GET', '/api/me/orgs', { token: mark.token })).json();
      expect(body.count).toBe(1);
      expect(body.orgs.map((o: { org_id: string }) => o.org_id)).toEqual([t.org(slug).id]);
      expect(body.orgs[0].role).toBe('member');
    }
  });

  test("each role is reported as the user's role in the org", async () => {
    for (const [username, role] of [
      ['adam', 'admin'],
      ['maya', 'manager'],
      ['victor', 'viewer'],
      ['bella', 'owner'],
    ] as const) {
      const user = t.seed.users.find((u) => u.username === username)!;
      const body = await (await t.call('GET', '/api/me/orgs', { token: user.token })).json();
      expect(body.orgs[0].role).toBe(role);
    }
  });
});
