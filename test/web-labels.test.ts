import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { formPost, ORIGIN, startTestApp, type TestApp } from './support/app.js';

/** Settings > Labels, the label chips and the label filter, through the pages (app.fetch, as a browser sends them). */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const get = (path: string, cookie?: string) =>
  t.app.fetch(new Request(`${ORIGIN}${path}`, { headers: cookie ? { cookie } : {} }));
const labels = '/orgs/acme/settings/labels';

describe('Settings > Labels', () => {
  test('a manager adds, renames and deletes a label; a mistake is shown beside its field', async () => {
    const maya = await t.signIn('maya@example.com');
    const added = await t.app.fetch(
      formPost(
        labels,
        { name: 'Needs design', color: '#5319e7', description: 'Waiting on a mock-up' },
        { cookie: maya },
      ),
    );
    expect(added.status).toBe(303);
    expect(added.headers.get('location')).toBe(labels);
    const page = await (await get(labels, maya)).text();
    expect(page).toContain('value="Needs design"');
    expect(page).toContain('fill="#5319e7"');
    const label = await t.app.db.prisma.label.findFirstOrThrow({ where: { nameKey: 'needs design' } });

    const refused = await t.app.fetch(formPost(labels, { name: 'needs DESIGN', color: 'purple' }, { cookie: maya }));
    expect(refused.status).toBe(400);
    const refusedPage = await refused.text();
    expect(refusedPage).toContain('must be a color written #rrggbb');

    const renamed = await t.app.fetch(
      formPost(
        `${labels}/${label.id}`,
        { action: 'save', name: 'Design', color: '#5319e7', description: '' },
        { cookie: maya },
      ),
    );
    expect(renamed.status).toBe(303);
    expect((await t.app.db.prisma.label.findUniqueOrThrow({ where: { id: label.id } })).name).toBe('Design');
    const deleted = await t.app.fetch(formPost(`${labels}/${label.id}`, { action: 'delete' }, { cookie: maya }));
    expect(deleted.status).toBe(303);
    expect(await t.app.db.prisma.label.count({ where: { id: label.id } })).toBe(0);
  });

  test('a viewer reads the labels, with no form; a member posting one is refused', async () => {
    await t.app.db.prisma.label.create({
      data: { orgId: t.org('acme').id, name: 'Read only', nameKey: 'read only', color: '#0e8a16' },
    });
    const victor = await t.signIn('victor@example.com');
    const page = await (await get(labels, victor)).text();
    expect(page).toContain('Read only');
    expect(page).not.toContain('Add a label');
    const mark = await t.signIn('mark@example.com');
    const refused = await t.app.fetch(formPost(labels, { name: 'Sneaky', color: '#000000' }, { cookie: mark }));
    expect(refused.status).toBe(403);
    expect(await t.app.db.prisma.label.count({ where: { nameKey: 'sneaky' } })).toBe(0);
  });
});

describe('labels on the issue pages', () => {
  test("a member sets an issue's labels; the issue page, the list and the board show them; the list filters by them", async () => {
    const orgId = t.org('acme').id;
    const [bug, ui] = await Promise.all(
      ['Bug', 'UI'].map((name) =>
        t.app.db.prisma.label.create({ data: { orgId, name, nameKey: name.toLowerCase(), color: '#d73a4a' } }),
      ),
    );
    const mark = await t.signIn('mark@example.com');
    const saved = await t.app.fetch(formPost('/orgs/acme/issues/WEB-1/labels', { labels: bug!.id }, { cookie: mark }));
    expect(saved.status).toBe(303);
    const issuePage = await (await get('/orgs/acme/issues/WEB-1', mark)).text();
    expect(issuePage).toMatch(/<li class="label-chip">[\s\S]*?Bug<\/li>/);
    expect(issuePage).toContain('Save labels');

    const filtered = await (await get('/orgs/acme/issues?label=bug', mark)).text();
    expect(filtered).toContain('WEB-1');
    expect(filtered).toContain('name="label" value="Bug" checked');
    expect(filtered).toMatch(/1 issue\b/);
    const none = await (await get(`/orgs/acme/issues?label=${ui!.name}`, mark)).text();
    expect(none).toContain('No issue matches these filters.');

    const board = await (await get('/orgs/acme/board?label=Bug', mark)).text();
    expect(board).toContain('data-key="WEB-1"');
    expect(board).toMatch(/<li class="label-chip">[\s\S]*?Bug<\/li>/);
    expect(board).not.toContain('data-key="WEB-2"');
  });
});

describe('labels on the new-issue form', () => {
  test("the form lists the organization's labels on the list, the board and a project; the issue is created with those checked", async () => {
    const orgId = t.org('acme').id;
    const [docs, perf] = await Promise.all(
      ['Docs', 'Perf'].map((name) =>
        t.app.db.prisma.label.create({ data: { orgId, name, nameKey: name.toLowerCase(), color: '#0075ca' } }),
      ),
    );
    const mark = await t.signIn('mark@example.com');
    for (const path of ['/orgs/acme/issues', '/orgs/acme/board', '/orgs/acme/projects/WEB']) {
      const page = await (await get(path, mark)).text();
      expect(page).toContain('id="new-labels"');
      expect(page).toContain(`name="labels" value="${docs!.id}"`);
    }
    const post = (fields: [string, string][]) =>
      t.app.fetch(
        new Request(`${ORIGIN}/orgs/acme/issues`, {
          method: 'POST',
          body: new URLSearchParams(fields),
          headers: { origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded', cookie: mark },
        }),
      );
    const projectId = t.org('acme').projects.find((p) => p.key === 'WEB')!.id;
    const created = await post([
      ['project_id', projectId],
      ['title', 'Made with labels'],
      ['labels', perf!.id],
      ['labels', docs!.id],
    ]);
    expect(created.status).toBe(303);
    const issue = await t.app.db.prisma.issue.findFirstOrThrow({
      where: { title: 'Made with labels' },
      select: { labels: { select: { label: { select: { name: true } } } } },
    });
    expect(issue.labels.map((l) => l.label.name).sort()).toEqual(['Docs', 'Perf']);

    // A refusal shows the form again with the labels still checked, and a gone label's error under them.
    const refused = await post([
      ['project_id', projectId],
      ['title', ''],
      ['labels', docs!.id],
    ]);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain(`name="labels" value="${docs!.id}" checked`);
    const gone = await post([
      ['project_id', projectId],
      ['title', 'Not made'],
      ['labels', '00000000-0000-4000-8000-000000000000'],
    ]);
    expect(gone.status).toBe(400);
    expect(await gone.text()).toContain(
      '<p class="field-error" id="new-labels-error">names no label of this organization</p>',
    );
    expect(await t.app.db.prisma.issue.count({ where: { title: 'Not made' } })).toBe(0);
  });
});
