import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp } from '../src/app.js';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '../src/auth/session.js';
import { testConfig } from '../src/config.js';
import { formPost, ORIGIN, startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const withCookie = (cookie: string, headers: Record<string, string> = {}) => ({ headers: { cookie, ...headers } });
const hashOf = (cookie: string) => createHash('sha256').update(cookie.split('=')[1]!).digest('hex');
const sessionRow = async (cookie: string) =>
  (await t.app.db.prisma.session.findMany()).find((s) => Buffer.from(s.tokenHash).toString('hex') === hashOf(cookie));

describe('sign-in', () => {
  test('the sign-in page is a labelled form', async () => {
    const response = await t.call('GET', '/login');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain('<label for="email">');
    expect(html).toContain('<label for="password">');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  test('a wrong password and an unknown email get the same answer', async () => {
    const wrong = await t.app.fetch(formPost('/login', { email: 'olivia@example.com', password: 'nope' }));
    const unknown = await t.app.fetch(formPost('/login', { email: 'nobody@example.com', password: 'nope' }));
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect(await wrong.text()).toContain('The email or password is incorrect.');
    expect(await unknown.text()).toContain('The email or password is incorrect.');
  });

  test('success sets an HttpOnly, SameSite=Lax session cookie for 30 days and goes to a same-site next', async () => {
    const response = await t.app.fetch(
      formPost('/login', {
        email: 'OLIVIA@example.com',
        password: 'correct horse battery staple',
        next: '/orgs/acme/settings/integrations',
      }),
    );
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/orgs/acme/settings/integrations');
    const cookie = response.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^wm_session=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain('Max-Age=2592000');
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Path=/');
    expect(cookie).not.toContain('Secure');
    for (const next of ['https://evil.example', '//evil.example', '/\\evil.example']) {
      const offsite = await t.app.fetch(
        formPost('/login', { email: 'olivia@example.com', password: 'correct horse battery staple', next }),
      );
      expect(offsite.headers.get('location')).toBe('/');
    }
  });

  test('over https the cookie is __Host- prefixed and Secure', async () => {
    const app = await createApp(testConfig({ baseUrl: 'https://work.example.com' }), { db: t.app.db });
    const request = new Request('https://work.example.com/login', {
      method: 'POST',
      body: new URLSearchParams({ email: 'olivia@example.com', password: 'correct horse battery staple' }),
      headers: { origin: 'https://work.example.com', 'content-type': 'application/x-www-form-urlencoded' },
    });
    const cookie = (await app.fetch(request)).headers.get('set-cookie')!;
    expect(cookie).toMatch(/^__Host-wm_session=/);
    expect(cookie).toContain('Secure');
    await app.close();
  });

  test('sessions are stored hashed; every sign-in gets a new id and ends the one the browser carried', async () => {
    const first = await t.signIn('maya@example.com');
    expect(await sessionRow(first)).toBeDefined();
    const second = (
      await t.app.fetch(
        formPost('/login', { email: 'maya@example.com', password: 'correct horse battery staple' }, { cookie: first }),
      )
    ).headers
      .get('set-cookie')!
      .split(';')[0]!;
    expect(second).not.toBe(first);
    expect(await sessionRow(first)).toBeUndefined();
    expect((await t.call('GET', '/api/me', withCookie(first))).status).toBe(401);
    expect((await t.call('GET', '/api/me', withCookie(second))).status).toBe(200);
    const everyHash = (await t.app.db.prisma.session.findMany()).map((s) => Buffer.from(s.tokenHash).toString('hex'));
    expect(everyHash.join()).not.toContain(second.split('=')[1]);
  });

  test('ten failed attempts for one account from one address, then 429', async () => {
    for (let i = 0; i < 10; i++)
      expect((await t.app.fetch(formPost('/login', { email: 'bella@example.com', password: 'x' }))).status).toBe(401);
    const locked = await t.app.fetch(
      formPost('/login', { email: 'bella@example.com', password: 'correct horse battery staple' }),
    );
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('the session on the API', () => {
  test('works on REST and GraphQL; a user with one organization needs no X-Org-Id', async () => {
    const cookie = await t.signIn('olivia@example.com');
    expect(await (await t.call('GET', '/api/me', withCookie(cookie))).json()).toMatchObject({ username: 'olivia' });
    const issues = await t.call('GET', `/api/issues?project_id=${t.org('acme').projects[0]!.id}`, withCookie(cookie));
    expect(issues.status).toBe(200);
    const gql = await t.call('POST', '/api/graphql', {
      body: { query: '{ me { username } }' },
      headers: { cookie, origin: ORIGIN },
    });
    expect(await gql.json()).toEqual({ data: { me: { username: 'olivia' } } });
  });

  test("X-Org-Id picks one of the user's organizations; another is 403; several and none chosen is 403", async () => {
    const cookie = await t.signIn('mark@example.com');
    const orgs = await (await t.call('GET', '/api/me/orgs', withCookie(cookie))).json();
    expect(orgs.count).toBe(2);
    const noChoice = await t.call('GET', '/api/issues', withCookie(cookie));
    expect(noChoice.status).toBe(403);
    expect((await noChoice.json()).detail).toContain('X-Org-Id');
    const globex = await t.call('GET', '/api/issues', withCookie(cookie, { 'x-org-id': t.org('globex').id }));
    const projectIds = (await globex.json()).map((i: { project_id: string }) => i.project_id);
    expect(new Set(projectIds)).toEqual(new Set(t.org('globex').projects.map((p) => p.id)));
    const victor = await t.signIn('victor@example.com');
    const foreign = await t.call('GET', '/api/issues', withCookie(victor, { 'x-org-id': t.org('globex').id }));
    expect(foreign.status).toBe(403);
    expect((await foreign.json()).code).toBe('org_forbidden');
  });

  test('logout ends the session at once', async () => {
    const cookie = await t.signIn('adam@example.com');
    expect((await t.call('GET', '/api/me', withCookie(cookie))).status).toBe(200);
    const out = await t.app.fetch(formPost('/logout', {}, { cookie }));
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toMatch(/^wm_session=; Max-Age=0/);
    expect((await t.call('GET', '/api/me', withCookie(cookie))).status).toBe(401);
  });

  test('an expired session, or one past its absolute cap, is refused', async () => {
    for (const field of ['expiresAt', 'absoluteExpiresAt'] as const) {
      const cookie = await t.signIn('adam@example.com');
      const row = (await sessionRow(cookie))!;
      await t.app.db.prisma.session.update({ where: { id: row.id }, data: { [field]: new Date(Date.now() - 1000) } });
      expect((await t.call('GET', '/api/me', withCookie(cookie))).status).toBe(401);
    }
  });

  test('use slides the expiry forward (at most hourly, cookie sent again), never past the absolute cap', async () => {
    const cookie = await t.signIn('adam@example.com');
    const row = (await sessionRow(cookie))!;
    const quiet = await t.call('GET', '/api/me', withCookie(cookie));
    expect(quiet.headers.get('set-cookie')).toBeNull(); // used within the hour: no write, no cookie
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    await t.app.db.prisma.session.update({
      where: { id: row.id },
      data: { lastSeenAt: twoHoursAgo, expiresAt: new Date(Date.now() + 3600_000) },
    });
    const refreshed = await t.call('GET', '/api/me', withCookie(cookie));
    expect(refreshed.headers.get('set-cookie')).toMatch(/Max-Age=259\d{4}/);
    const after = (await sessionRow(cookie))!;
    expect(after.expiresAt.getTime()).toBeGreaterThan(Date.now() + SESSION_IDLE_MS - 60_000);

    const nearCap = new Date(Date.now() + 5 * 24 * 3600_000);
    await t.app.db.prisma.session.update({
      where: { id: row.id },
      data: { lastSeenAt: twoHoursAgo, absoluteExpiresAt: nearCap },
    });
    await t.call('GET', '/api/me', withCookie(cookie));
    expect((await sessionRow(cookie))!.expiresAt.getTime()).toBe(nearCap.getTime());
    expect(SESSION_ABSOLUTE_MS).toBe(90 * 24 * 3600_000);
  });
});

describe('CSRF: cookie-authenticated writes must come from our own pages', () => {
  const body = () => ({ project_id: t.org('acme').projects[0]!.id, title: 'CSRF probe' });

  test('no Origin, a foreign Origin, or a foreign Referer is refused; our Origin or Referer passes', async () => {
    const cookie = await t.signIn('olivia@example.com');
    const post = (headers: Record<string, string>) =>
      t.call('POST', '/api/issues', { body: body(), headers: { cookie, ...headers } });
    const attempts: Record<string, string>[] = [
      {},
      { origin: 'https://evil.example' },
      { referer: 'https://evil.example/page' },
      { origin: 'null' },
    ];
    for (const headers of attempts) {
      const response = await post(headers);
      expect(response.status).toBe(403);
      expect((await response.json()).code).toBe('csrf_rejected');
    }
    expect((await post({ origin: ORIGIN })).status).toBe(201);
    expect((await post({ referer: `${ORIGIN}/orgs/acme/settings/integrations` })).status).toBe(201);
    expect(await t.app.db.prisma.issue.count({ where: { title: 'CSRF probe' } })).toBe(2);
  });

  test('GraphQL mutations over the cookie are protected the same way', async () => {
    const cookie = await t.signIn('olivia@example.com');
    const mutation = {
      query: `mutation { createIssue(input: { projectId: "${t.org('acme').projects[0]!.id}", title: "csrf gql" }) { __typename } }`,
    };
    const forged = await t.call('POST', '/api/graphql', {
      body: mutation,
      headers: { cookie, origin: 'https://evil.example' },
    });
    expect(forged.status).toBe(403);
  });

  test('a sign-in form posted from another site is refused (login CSRF)', async () => {
    const response = await t.app.fetch(
      formPost(
        '/login',
        { email: 'olivia@example.com', password: 'correct horse battery staple' },
        { origin: 'https://evil.example' },
      ),
    );
    expect(response.status).toBe(403);
  });

  test('token-authenticated writes need no Origin', async () => {
    expect((await t.call('POST', '/api/issues', { token: t.user('olivia').token, body: body() })).status).toBe(201);
  });
});
