import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { addMember, createProject, createUser } from '../src/cli/operations.js';
import type { Role } from '../src/auth/principal.js';
import { startTestApp, type TestApp } from './support/app.js';
import { expectProblem, fieldErrors } from './support/problem.js';

let t: TestApp;
const people: Record<string, string> = {};

async function person(username: string, name: string, slug = 'acme', role: Role = 'member') {
  const user = await createUser(t.app.db.prisma, { email: `${username}@corp.test`, name, username });
  await addMember(t.app.db.prisma, { orgId: t.org(slug).id, userId: user.id, role });
  people[username] = user.id;
  return user;
}

async function issue(slug: string, projectKey: string, title: string) {
  const project = await t.app.db.prisma.project.findFirstOrThrow({ where: { orgId: t.org(slug).id, key: projectKey } });
  const { issueCount } = await t.app.db.prisma.project.update({
    where: { id: project.id },
    data: { issueCount: { increment: 1 } },
  });
  return t.app.db.prisma.issue.create({
    data: { orgId: project.orgId, projectId: project.id, number: issueCount, title, status: 'Todo', priority: 'low' },
  });
}

beforeAll(async () => {
  t = await startTestApp();
  await person('ann', 'Ann Lee');
  await person('annabel', 'Annabel Smith');
  await person('jo', 'Joanna Ray');
  await person('zj', 'Zeta Jones');
  await person('af', 'Annie Zetaford', 'acme', 'viewer');
  await person('zed', 'Zeta Globex', 'globex');
  for (const [slug, name, key] of [
    ['acme', 'Greek letters', 'ZETA'],
    ['acme', 'Zetaboard', 'ZB'],
    ['globex', 'Zeta at Globex', 'ZETA'],
  ]) {
    await createProject(t.app.db.prisma, { orgId: t.org(slug!).id, name: name!, key: key! });
  }
  await issue('acme', 'MOB', 'Zeta');
  await issue('acme', 'MOB', 'Fix the zeta function');
  await issue('globex', 'RES', 'Zeta in globex');
});
afterAll(() => t.close());

const people_ = (q: string, who = 'mark', slug = 'acme') =>
  t.call('GET', `/api/people/search?q=${encodeURIComponent(q)}`, { token: t.user(who, slug).token });
const palette = (q: string, who = 'mark', slug = 'acme') =>
  t.call('GET', `/api/palette/search?q=${encodeURIComponent(q)}`, { token: t.user(who, slug).token });

describe('GET /api/people/search', () => {
  test('members matching by name or username: id, name, username, role; exact, then prefix, then substring', async () => {
    const response = await people_('ann');
    expect(response.status).toBe(200);
    const found = await response.json();
    // ann exactly; Annabel Smith and Annie Zetaford by prefix (by name); Joanna Ray inside.
    expect(found.map((p: { username: string }) => p.username)).toEqual(['ann', 'annabel', 'af', 'jo']);
    expect(found[0]).toEqual({ id: people.ann, name: 'Ann Lee', username: 'ann', role: 'member' });
    expect(found[2]).toMatchObject({ username: 'af', role: 'viewer' });
  });

  test('email: shown to manager, admin and owner; absent for member and viewer', async () => {
    for (const who of ['victor', 'mark']) {
      const [first] = await (await people_('olivia', who)).json();
      expect(first).toEqual({ id: t.user('olivia').id, name: 'Olivia Owner', username: 'olivia', role: 'owner' });
    }
    for (const who of ['maya', 'adam', 'olivia']) {
      const [first] = await (await people_('olivia', who)).json();
      expect(first).toEqual({
        id: t.user('olivia').id,
        name: 'Olivia Owner',
        username: 'olivia',
        role: 'owner',
        email: 'olivia@example.com',
      });
    }
  });

  test('only those who may see emails can search by them', async () => {
    expect(await (await people_('example.com', 'mark')).json()).toEqual([]);
    const byManager = await (await people_('example.com', 'maya')).json();
    expect(byManager.map((p: { username: string }) => p.username).sort()).toEqual([
      'adam',
      'mark',
      'maya',
      'olivia',
      'victor',
    ]);
  });

  test("only the caller's organization: the same user sees different people through each organization's key", async () => {
    expect((await (await people_('zeta', 'mark', 'acme')).json()).map((p: { username: string }) => p.username)).toEqual(
      ['zj', 'af'],
    );
    expect(
      (await (await people_('zeta', 'mark', 'globex')).json()).map((p: { username: string }) => p.username),
    ).toEqual(['zed']);
    expect(await (await people_('bella', 'olivia')).json()).toEqual([]);
    const globex = await (await people_('a', 'bella', 'globex')).json();
    expect(globex.map((p: { username: string }) => p.username).sort()).toEqual(['bella', 'mark', 'zed']);
  });

  test('% and _ are not wildcards', async () => {
    expect(await (await people_('%')).json()).toEqual([]);
    expect(await (await people_('_')).json()).toEqual([]);
  });

  test('at most 20 results', async () => {
    for (let i = 0; i < 25; i++) await person(`bulk${i}`, `Bulk Person ${i}`);
    expect(await (await people_('bulk')).json()).toHaveLength(20);
  });
});

describe('GET /api/palette/search', () => {
  test('ranked: exact key, exact title, prefixes, substrings; projects before issues before people within a rank', async () => {
    const response = await palette('zeta');
    expect(response.status).toBe(200);
    const hits = await response.json();
    expect(hits.map((h: { type: string; title: string }) => `${h.type}:${h.title}`)).toEqual([
      'project:Greek letters',
      'issue:Zeta',
      'project:Zetaboard',
      'person:Zeta Jones',
      'issue:Fix the zeta function',
      'person:Annie Zetaford',
    ]);
  });

  test('each hit carries what it takes to open it', async () => {
    const hits = await (await palette('zeta')).json();
    const project = await t.app.db.prisma.project.findFirstOrThrow({ where: { orgId: t.org('acme').id, key: 'ZETA' } });
    expect(hits[0]).toEqual({ type: 'project', id: project.id, title: 'Greek letters', key: 'ZETA' });
    const zeta = await t.app.db.prisma.issue.findFirstOrThrow({ where: { orgId: t.org('acme').id, title: 'Zeta' } });
    expect(hits[1]).toEqual({
      type: 'issue',
      id: zeta.id,
      title: 'Zeta',
      key: `MOB-${zeta.number}`,
      project_id: zeta.projectId,
    });
    expect(hits[3]).toEqual({ type: 'person', id: people.zj, title: 'Zeta Jones', username: 'zj' });
  });

  test('an issue key finds that issue first, in any case', async () => {
    const hits = await (await palette('web-2')).json();
    expect(hits[0]).toMatchObject({ type: 'issue', key: 'WEB-2', title: 'Write the onboarding guide' });
    expect((await (await palette('RES-1')).json()).filter((h: { key?: string }) => h.key === 'RES-1')).toEqual([]);
  });

  test('an issue key typed in part (WEB-, web-1) or a project key alone finds the issues of that project, lowest numbers first', async () => {
    const acme = t.org('acme');
    const web = acme.projects.find((p) => p.key === 'WEB')!;
    // WEB gets issues up to at least 12, so that web-1 has WEB-1 and WEB-10.. to find.
    let count = (await t.app.db.prisma.project.findUniqueOrThrow({ where: { id: web.id } })).issueCount;
    for (; count < 12; count++) {
      expect(
        (
          await t.call('POST', '/api/issues', {
            token: t.user('mark').token,
            body: { project_id: web.id, title: `Filler ${count + 1}` },
          })
        ).status,
      ).toBe(201);
    }
    const keys = async (q: string) =>
      ((await (await palette(q)).json()) as { type: string; key: string }[])
        .filter((h) => h.type === 'issue')
        .map((h) => h.key);
    const dash = await keys('WEB-');
    expect(dash.slice(0, 12)).toEqual(Array.from({ length: 12 }, (_, i) => `WEB-${i + 1}`));
    expect(dash.every((key) => key.startsWith('WEB-'))).toBe(true);
    const one = await keys('web-1');
    expect(one[0]).toBe('WEB-1');
    expect(one.slice(1, 4)).toEqual(['WEB-10', 'WEB-11', 'WEB-12']);
    expect(one.every((key) => /^WEB-1\d*$/.test(key))).toBe(true);
    // The project key alone: the project first (exact key), then its issues.
    const hits = (await (await palette('web')).json()) as { type: string; key: string }[];
    expect(hits[0]).toMatchObject({ type: 'project', key: 'WEB' });
    expect(
      hits
        .filter((h) => h.type === 'issue')
        .slice(0, 3)
        .map((h) => h.key),
    ).toEqual(['WEB-1', 'WEB-2', 'WEB-3']);
    // A number that no issue key starts with, and another organization's key, find nothing by key.
    expect(await keys('WEB-0')).toEqual([]);
    expect((await keys('web-')).length).toBeGreaterThan(0);
  });

  test('an exact key ranks above an exact name', async () => {
    await createProject(t.app.db.prisma, { orgId: t.org('acme').id, name: 'Ops', key: 'AOPS' });
    await createProject(t.app.db.prisma, { orgId: t.org('acme').id, name: 'Platform', key: 'OPS' });
    const hits = await (await palette('ops')).json();
    expect(hits.map((h: { key: string; title: string }) => `${h.key} ${h.title}`)).toEqual([
      'OPS Platform',
      'AOPS Ops',
    ]);
  });

  test('a project key prefix finds the project', async () => {
    const hits = await (await palette('we')).json();
    expect(hits[0]).toMatchObject({ type: 'project', key: 'WEB', title: 'Website' });
  });

  test("only the caller's organization", async () => {
    const acme = await (await palette('globex')).json();
    expect(acme).toEqual([]);
    const globex = await (await palette('zeta', 'mark', 'globex')).json();
    expect(globex.map((h: { type: string; title: string }) => `${h.type}:${h.title}`)).toEqual([
      'project:Zeta at Globex',
      'issue:Zeta in globex',
      'person:Zeta Globex',
    ]);
  });

  test('at most 20 results; % matches only itself', async () => {
    for (let i = 0; i < 25; i++) await issue('acme', 'WEB', `Many zeta ${i}`);
    expect(await (await palette('zeta')).json()).toHaveLength(20);
    expect(await (await palette('%')).json()).toEqual([]);
  });
});

describe('q is required, 1 to 100 characters', () => {
  test('missing, empty, blank or too long: 400 on q, for both searches', async () => {
    for (const path of ['/api/people/search', '/api/palette/search']) {
      const token = t.user('victor').token;
      expect(await fieldErrors(await t.call('GET', path, { token }))).toEqual([{ field: 'q', message: 'is required' }]);
      expect(await fieldErrors(await t.call('GET', `${path}?q=`, { token }))).toEqual([
        { field: 'q', message: 'must not be empty' },
      ]);
      expect(await fieldErrors(await t.call('GET', `${path}?q=%20%20`, { token }))).toEqual([
        { field: 'q', message: 'must not be empty' },
      ]);
      expect(await fieldErrors(await t.call('GET', `${path}?q=${'x'.repeat(101)}`, { token }))).toEqual([
        { field: 'q', message: 'must be at most 100 characters' },
      ]);
      expect((await t.call('GET', `${path}?q=${'x'.repeat(100)}`, { token })).status).toBe(200);
      await expectProblem(await t.call('GET', `${path}?q=a&q=b`, { token }), 400, 'validation_failed');
    }
  });
});

describe('GraphQL', () => {
  const gql = async (token: string, query: string) =>
    (await t.call('POST', '/api/graphql', { token, body: { query } })).json();

  test('searchPeople: email is null below manager; paletteSearch: typed hits', async () => {
    const member = await gql(t.user('mark').token, '{ searchPeople(q: "olivia") { username role email } }');
    expect(member.data.searchPeople).toEqual([{ username: 'olivia', role: 'owner', email: null }]);
    const manager = await gql(t.user('maya').token, '{ searchPeople(q: "olivia") { username email } }');
    expect(manager.data.searchPeople).toEqual([{ username: 'olivia', email: 'olivia@example.com' }]);
    const hits = await gql(t.user('victor').token, '{ paletteSearch(q: "WEB-1") { type key projectId } }');
    expect(hits.data.paletteSearch[0]).toEqual({
      type: 'ISSUE',
      key: 'WEB-1',
      projectId: t.org('acme').projects.find((p) => p.key === 'WEB')!.id,
    });
    const invalid = await gql(t.user('victor').token, '{ paletteSearch(q: "") { id } }');
    expect(invalid.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  });
});
