import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { formPost, ORIGIN, startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const get = (path: string, cookie?: string, accept = 'text/html') =>
  t.app.fetch(new Request(`${ORIGIN}${path}`, { headers: { accept, ...(cookie ? { cookie } : {}) } }));
const post = (path: string, fields: Record<string, string>, cookie: string) =>
  t.app.fetch(formPost(path, fields, { cookie }));
const flashOf = (response: Response) => response.headers.get('set-cookie')?.split(';')[0] ?? '';

describe('the web app pages', () => {
  test('every page of an organization renders for a member; another organization is the 404 page', async () => {
    const maya = await t.signIn('maya@example.com');
    for (const path of [
      '/orgs/acme/issues',
      '/orgs/acme/board',
      '/orgs/acme/projects',
      '/orgs/acme/projects/WEB',
      '/orgs/acme/issues/WEB-1',
      '/orgs/acme/team',
      '/orgs/acme/search?q=web',
      '/account',
      '/join',
      '/orgs/acme/settings/integrations',
    ]) {
      const response = await get(path, maya);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toContain('text/html');
    }
    for (const path of [
      '/orgs/globex/issues',
      '/orgs/globex/projects',
      '/orgs/acme/issues/NOPE-1',
      '/orgs/acme/projects/NOPE',
    ]) {
      const response = await get(path, maya);
      expect(response.status, path).toBe(404);
      expect(await response.text(), path).toContain('not found');
    }
  });

  test('the list keeps the REST filters, sorts and cursors in its URL; a bad parameter is reported, not a 500', async () => {
    const maya = await t.signIn('maya@example.com');
    const page = await (await get('/orgs/acme/issues?status=Todo,Backlog&sort=priority&limit=2', maya)).text();
    expect(page).toMatch(
      /<a href="\/orgs\/acme\/issues\?status=Todo%2CBacklog&amp;sort=priority&amp;limit=2&amp;cursor=[^"]+" rel="next">Next page<\/a>/,
    );
    expect(page).toMatch(/<input type="checkbox" name="status" value="Todo" checked>/);
    const next = /href="([^"]+)" rel="next"/.exec(page)![1]!.replace(/&amp;/g, '&');
    const second = await (await get(next, maya)).text();
    expect(second).toContain('First page');
    const bad = await get('/orgs/acme/issues?status=Nope&limit=1000', maya);
    expect(bad.status).toBe(400);
    const html = await bad.text();
    expect(html).toContain('status');
    expect(html).toContain('limit');
  });

  test('create, edit, move and delete an issue: each post redirects, a reload repeats nothing', async () => {
    const maya = await t.signIn('maya@example.com');
    const project = t.org('acme').projects[0]!;
    const created = await post(
      '/orgs/acme/issues',
      { project_id: project.id, title: 'From the page', status: 'Todo', priority: 'high', back: '/orgs/acme/board' },
      maya,
    );
    expect(created.status).toBe(303);
    expect(created.headers.get('location')).toBe('/orgs/acme/board');
    const issue = await t.app.db.prisma.issue.findFirstOrThrow({
      where: { title: 'From the page' },
      include: { project: true },
    });
    const key = `${issue.project.key}-${issue.number}`;
    expect(await (await get('/orgs/acme/board', `${maya}; ${flashOf(created)}`)).text()).toContain(
      `Created ${key}: From the page`,
    );
    const moved = await post(
      `/orgs/acme/issues/${key}/status`,
      { status: 'In Progress', back: '/orgs/acme/board' },
      maya,
    );
    expect(moved.status).toBe(303);
    const edited = await post(
      `/orgs/acme/issues/${key}`,
      { title: 'Renamed', status: 'In Review', priority: 'low', assignee_id: '', description: 'Text' },
      maya,
    );
    expect(edited.status).toBe(303);
    const after = await t.app.db.prisma.issue.findUniqueOrThrow({ where: { id: issue.id } });
    expect([after.title, after.status, after.priority, after.description]).toEqual([
      'Renamed',
      'In Review',
      'low',
      'Text',
    ]);
    const invalid = await post(`/orgs/acme/issues/${key}`, { title: '', status: 'Nope' }, maya);
    expect(invalid.status).toBe(400);
    expect(await invalid.text()).toContain('id="e-title-error"');
    expect((await post(`/orgs/acme/issues/${key}/delete`, {}, maya)).status).toBe(303);
    expect(await t.app.db.prisma.issue.count({ where: { id: issue.id } })).toBe(0);
  });

  test("below the role: no buttons, and a post anyway is the operation's 403", async () => {
    const victor = await t.signIn('victor@example.com');
    const projects = await (await get('/orgs/acme/projects', victor)).text();
    expect(projects).not.toContain('Create project');
    const refused = await post('/orgs/acme/projects', { name: 'Sneaky', key: 'SNK' }, victor);
    expect(refused.status).toBe(403);
    expect(await t.app.db.prisma.project.count({ where: { key: 'SNK' } })).toBe(0);
    const board = await (await get('/orgs/acme/board', victor)).text();
    expect(board).not.toContain('class="move"');
    expect((await post('/orgs/acme/issues/WEB-1/status', { status: 'Done' }, victor)).status).toBe(403);
  });

  test('projects: create, rename, delete with its issues (managers)', async () => {
    const maya = await t.signIn('maya@example.com');
    const created = await post('/orgs/acme/projects', { name: 'Docs', key: 'DOC' }, maya);
    expect(created.headers.get('location')).toBe('/orgs/acme/projects/DOC');
    const dup = await post('/orgs/acme/projects', { name: 'Docs again', key: 'DOC' }, maya);
    expect(dup.status).toBe(409);
    const project = await t.app.db.prisma.project.findFirstOrThrow({ where: { key: 'DOC' } });
    await post('/orgs/acme/issues', { project_id: project.id, title: 'Write docs' }, maya);
    expect(
      (await post('/orgs/acme/projects/DOC', { name: 'Documentation', key: 'DOCS' }, maya)).headers.get('location'),
    ).toBe('/orgs/acme/projects/DOCS');
    expect((await post('/orgs/acme/projects/DOCS/delete', {}, maya)).status).toBe(409);
    expect((await post('/orgs/acme/projects/DOCS/delete', { force: 'true' }, maya)).status).toBe(303);
    expect(await t.app.db.prisma.project.count({ where: { id: project.id } })).toBe(0);
  });

  test('team: invite with a link shown once, the invitee joins with its code, roles change, members are removed', async () => {
    const owner = await t.signIn('olivia@example.com');
    const invited = await post('/orgs/acme/team/invitations', { role: 'member', expires_in_days: '3' }, owner);
    expect(invited.status).toBe(303);
    const shown = await (await get('/orgs/acme/team', `${owner}; ${flashOf(invited)}`)).text();
    const code = /value="http:\/\/localhost:4000\/invite\/(inv_[A-Za-z0-9_-]+)"/.exec(shown)![1]!;
    expect(await (await get('/orgs/acme/team', owner)).text()).not.toContain(code);
    // Someone of globex joins acme with it.
    const gina = t.seed.users.find(
      (u) =>
        t.seed.orgs.find((o) => o.id === u.org_id)!.slug === 'globex' &&
        !t.seed.users.some((x) => x.username === u.username && x.org_id === t.org('acme').id),
    )!;
    const guest = await t.signIn(gina.email);
    // The whole link pasted into /join works as well as its code.
    const joined = await post('/join', { code: `${ORIGIN}/invite/${code}` }, guest);
    expect(joined.headers.get('location')).toBe('/orgs/acme');
    expect((await get('/orgs/acme/issues', guest)).status).toBe(200);
    expect((await post('/join', { code }, guest)).status).toBe(404);
    const role = await post(`/orgs/acme/team/members/${gina.id}/role`, { role: 'viewer' }, owner);
    expect(role.status).toBe(303);
    expect(
      (await t.app.db.prisma.membership.findFirstOrThrow({ where: { userId: gina.id, orgId: t.org('acme').id } })).role,
    ).toBe('viewer');
    expect((await post(`/orgs/acme/team/members/${gina.id}/remove`, {}, owner)).status).toBe(303);
    expect((await get('/orgs/acme/issues', guest)).status).toBe(404);
    // A pending invitation can be revoked.
    await post('/orgs/acme/team/invitations', { role: 'viewer' }, owner);
    const pending = await t.app.db.prisma.invitation.findFirstOrThrow({
      where: { usedAt: null, orgId: t.org('acme').id },
    });
    expect((await post(`/orgs/acme/team/invitations/${pending.id}/revoke`, {}, owner)).status).toBe(303);
    expect(await t.app.db.prisma.invitation.findUniqueOrThrow({ where: { id: pending.id } })).toMatchObject({
      revokedAt: expect.any(Date),
    });
    const listed = await (await get('/orgs/acme/team', owner)).text();
    expect(listed).toMatch(/<td data-label="State">revoked<\/td>/);
    expect(listed).toMatch(/<td data-label="State">used by [^<]+<\/td>/);
  });

  test('account: change the name, the password (other sessions end), sign out everywhere', async () => {
    const first = await t.signIn('victor@example.com');
    const second = await t.signIn('victor@example.com');
    expect((await post('/account/profile', { name: 'Victor V.' }, first)).status).toBe(303);
    const wrong = await post(
      '/account/password',
      { current_password: 'nope', password: 'a brand new passphrase', confirmation: 'a brand new passphrase' },
      first,
    );
    expect(wrong.status).toBe(400);
    expect(
      (
        await post(
          '/account/password',
          {
            current_password: 'correct horse battery staple',
            password: 'a brand new passphrase',
            confirmation: 'a brand new passphrase',
          },
          first,
        )
      ).status,
    ).toBe(303);
    expect((await get('/account', second)).status).toBe(303);
    expect((await get('/account', first)).status).toBe(200);
    expect((await post('/account/sign-out-everywhere', {}, first)).status).toBe(303);
    expect((await get('/account', first)).status).toBe(303);
  });

  test('the dashboard: counts, charts as tables, the data as JSON, Chart.js from the service', async () => {
    const maya = await t.signIn('maya@example.com');
    // One issue completed now: the history records the move to Done, which the dashboard counts.
    const issue = await t.app.db.prisma.issue.findFirstOrThrow({
      where: { orgId: t.org('acme').id, status: { not: 'Done' } },
    });
    expect(
      (await t.call('PATCH', `/api/issues/${issue.id}`, { token: t.user('maya').token, body: { status: 'Done' } }))
        .status,
    ).toBe(200);
    const response = await get('/orgs/acme', maya);
    expect(response.status).toBe(200);
    const html = await response.text();
    const open = await t.app.db.prisma.issue.count({
      where: { orgId: t.org('acme').id, status: { notIn: ['Done', 'Canceled'] } },
    });
    expect(html).toContain(`<strong>${open}</strong> open`);
    for (const id of ['by-status', 'by-priority', 'workload', 'created-completed-per-week'])
      expect(html).toContain(`id="chart-${id}"`);
    const data = JSON.parse(
      /<script type="application\/json" id="dashboard-data">([\s\S]*?)<\/script>/.exec(html)![1]!,
    );
    const weekly = data.find((c: { id: string }) => c.id === 'created-completed-per-week') as {
      series: string[];
      rows: [string, number, number][];
    };
    expect(weekly.series).toEqual(['Created', 'Completed']);
    expect(weekly.rows).toHaveLength(12);
    const monday = new Date();
    monday.setUTCHours(0, 0, 0, 0);
    monday.setUTCDate(monday.getUTCDate() - ((monday.getUTCDay() + 6) % 7));
    const completed = await t.app.db.prisma.event.count({
      where: { orgId: t.org('acme').id, toStatus: 'Done', createdAt: { gte: monday } },
    });
    expect(completed).toBeGreaterThanOrEqual(1);
    expect(weekly.rows.at(-1)![2]).toBe(completed);
    expect(html).toContain(`<strong>${completed}</strong> completed this week`);
    const chartJs = /<script src="(\/assets\/charts\/[^"]+\/chart\.umd\.min\.js)"/.exec(html)![1]!;
    const asset = await get(chartJs);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    // Projects list their open issues (the same aggregates).
    expect(await (await get('/orgs/acme/projects', maya)).text()).toMatch(/data-label="Open issues"><a [^>]+>\d+<\/a>/);
  });

  test('unknown addresses: an HTML 404 page for browsers, problem+json for API clients', async () => {
    const html = await get('/no/such/page');
    expect(html.status).toBe(404);
    expect(html.headers.get('content-type')).toContain('text/html');
    const json = await get('/no/such/page', undefined, 'application/json');
    expect(json.status).toBe(404);
    expect(json.headers.get('content-type')).toContain('application/problem+json');
  });
});
