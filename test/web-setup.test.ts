import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { testConfig } from '../src/config.js';
import type { Database } from '../src/db/client.js';
import { formPost, ORIGIN } from './support/app.js';
import { openTestDatabase } from './support/database.js';

let db: Database;
let app: App;
beforeAll(async () => {
  db = await openTestDatabase();
  app = await createApp(testConfig({ baseUrl: ORIGIN }), { db });
});
afterAll(async () => {
  await app?.close();
  await db?.close();
});

const get = (path: string, cookie?: string) =>
  app.fetch(new Request(`${ORIGIN}${path}`, { headers: { accept: 'text/html', ...(cookie ? { cookie } : {}) } }));

const FORM = {
  name: 'Ada Lovelace',
  email: 'Ada@Example.com',
  username: 'ada',
  password: 'analytical engine 1843',
  confirmation: 'analytical engine 1843',
  org_name: 'Analytical',
  org_slug: 'analytical',
  project_name: 'Engine',
  project_key: 'ENG',
};

describe('first-run setup of an empty database', () => {
  test('the link is printed once; without its token the page does not exist', async () => {
    expect(app.setupUrl).toMatch(new RegExp(`^${ORIGIN}/setup\\?token=[A-Za-z0-9_-]{43}$`));
    for (const path of ['/setup', '/setup?token=wrong', `/setup?token=${'x'.repeat(43)}`]) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type')).toContain('text/html');
    }
    const wrong = await app.fetch(formPost('/setup', { ...FORM, token: 'wrong' }));
    expect(wrong.status).toBe(404);
    expect(await db.prisma.user.count()).toBe(0);
  });

  test('every mistake at once, the form keeps what was typed, the token still works afterwards', async () => {
    const token = new URL(app.setupUrl!).searchParams.get('token')!;
    const page = await get(`/setup?token=${token}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('referrer-policy')).toBe('strict-origin');
    const response = await app.fetch(
      formPost('/setup', {
        ...FORM,
        token,
        email: 'not-an-email',
        org_slug: '-bad-',
        project_key: 'x',
        confirmation: 'something else entirely',
      }),
    );
    expect(response.status).toBe(400);
    const html = await response.text();
    for (const id of ['email', 'org-slug', 'project-key', 'password'])
      expect(html, id).toMatch(new RegExp(`id="${id}-error"`));
    expect(html).toContain('value="Ada Lovelace"');
    expect(html).not.toContain(FORM.password);
    expect(await db.prisma.user.count()).toBe(0);
  });

  test('creates the owner, the organization and the project, signs in, and the link is gone', async () => {
    const token = new URL(app.setupUrl!).searchParams.get('token')!;
    const response = await app.fetch(formPost('/setup', { ...FORM, token }));
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/orgs/analytical');
    const cookie = response.headers.get('set-cookie')!.split(';')[0]!;
    const membership = await db.prisma.membership.findFirstOrThrow({
      include: { user: true, org: { include: { projects: true } } },
    });
    expect(membership.role).toBe('owner');
    expect(membership.user.email).toBe('ada@example.com');
    expect(membership.user.passwordHash).toMatch(/^scrypt\$/);
    expect(membership.org.projects.map((p) => p.key)).toEqual(['ENG']);
    // Signed in: the API answers with the session.
    const me = await app.fetch(new Request(`${ORIGIN}/api/me`, { headers: { cookie } }));
    expect((await me.json()).username).toBe('ada');
    // Spent: neither the page nor a second submission works.
    expect((await get(`/setup?token=${token}`)).status).toBe(404);
    expect(
      (
        await app.fetch(
          formPost('/setup', { ...FORM, token, email: 'eve@example.com', username: 'eve', org_slug: 'eve' }),
        )
      ).status,
    ).toBe(404);
    expect(await db.prisma.user.count()).toBe(1);
  });

  test('a database with users prints no link', async () => {
    const second = await createApp(testConfig({ baseUrl: ORIGIN }), { db });
    expect(second.setupUrl).toBeNull();
    expect((await second.fetch(new Request(`${ORIGIN}/setup`))).status).toBe(404);
    await second.close();
  });
});
