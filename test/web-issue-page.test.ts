import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ISSUE_FIELD_NAMES, ISSUE_TABLE, type IssueColumnDeclaration } from '../src/schema/issues/columns.js';
import { ACTIVITY_PAGE } from '../src/web/issue-activity.js';
import { formPost, ORIGIN, startTestApp, type TestApp } from './support/app.js';

/**
 * The issue page over the real stack: the description's Markdown (and what hostile text becomes),
 * the properties sidebar's form, the activity feed from the issue's history, and the times.
 * The same page in Chromium, with its script: test/browser/issue-page.test.ts.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const get = (path: string, cookie: string) =>
  t.app.fetch(new Request(`${ORIGIN}${path}`, { headers: { accept: 'text/html', cookie } }));
const post = (path: string, fields: Record<string, string>, cookie: string) =>
  t.app.fetch(formPost(path, fields, { cookie }));
const flashOf = (response: Response) => response.headers.get('set-cookie')?.split(';')[0] ?? '';
/** The rendered description: what the page's `<div class="markdown">` holds. */
const descriptionOf = (html: string) =>
  /<div class="markdown" data-description>([\s\S]*?)<\/div>\s*<details/.exec(html)?.[1] ?? '';
const patch = (key: string, username: string, body: Record<string, unknown>) =>
  t.call('PATCH', `/api/issues/${key}`, { token: t.user(username, 'acme').token, body });

describe('the issue page', () => {
  test('the description is Markdown; links lead to http, https or mailto only and say rel="noopener nofollow ugc"', async () => {
    const maya = await t.signIn('maya@example.com');
    expect(
      (
        await patch('WEB-2', 'maya', {
          description: '**bold** and `code`\n\n- one\n- two\n\n[docs](https://example.com/docs) and ops@example.com',
        })
      ).status,
    ).toBe(200);
    const html = descriptionOf(await (await get('/orgs/acme/issues/WEB-2', maya)).text());
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<code>code</code>');
    expect(html).toMatch(/<ul>\s*<li>one<\/li>\s*<li>two<\/li>\s*<\/ul>/);
    expect(html).toContain('<a href="https://example.com/docs" rel="noopener nofollow ugc">docs</a>');
    expect(html).toContain('<a href="mailto:ops@example.com" rel="noopener nofollow ugc">ops@example.com</a>');
  });

  test('hostile text in a description reaches the page as text: no element, attribute or address of its own', async () => {
    const maya = await t.signIn('maya@example.com');
    const hostile = [
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(2)>',
      '[click](javascript:alert(3))',
      '[data](data:text/html;base64,PHNjcmlwdD5hbGVydCg0KTwvc2NyaXB0Pg==)',
      '<javascript:alert(5)>',
      '[rel](/orgs/acme/settings/integrations)',
      '![pic](https://tracker.example/pixel.png)',
      '![x" onerror="alert(6)](https://example.com/a.png)',
      '<a href="https://example.com" onclick="alert(7)">a</a>',
      '<iframe src="https://example.com"></iframe>',
    ].join('\n\n');
    expect((await patch('WEB-3', 'maya', { description: hostile })).status).toBe(200);
    const html = descriptionOf(await (await get('/orgs/acme/issues/WEB-3', maya)).text());
    expect(html).not.toBe('');
    // The only elements are paragraphs and links: the pictures become links to them, and the
    // https addresses inside the HTML shown as text are linked as any address in text is.
    expect([...html.matchAll(/<([a-z]+)[\s>]/g)].map((m) => m[1]).filter((tag) => tag !== 'p')).toEqual([
      'a',
      'a',
      'a',
      'a',
    ]);
    expect([...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1])).toEqual([
      'https://tracker.example/pixel.png',
      'https://example.com/a.png',
      'https://example.com',
      'https://example.com',
    ]);
    expect([...html.matchAll(/<a ([^>]*)>/g)].map((m) => m[1]!.replace(/href="[^"]*"/, 'href'))).toEqual(
      Array(4).fill('href rel="noopener nofollow ugc"'),
    );
    expect(html).not.toMatch(/<(script|img|iframe)/i);
    // No tag has an attribute but those (an "onerror=" in the text is text).
    expect(html).not.toMatch(/<[^>]*\son[a-z]+=/i);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  test('the issue page and its forms list what the declaration says pages show and the API writes', async () => {
    const declared = ISSUE_FIELD_NAMES.map((field) => ISSUE_TABLE[field] as IssueColumnDeclaration).filter(
      (d) => d.page,
    );
    expect(declared.length).toBeGreaterThan(0);
    const [maya, victor] = [await t.signIn('maya@example.com'), await t.signIn('victor@example.com')];
    const createForm = /<details class="card create" id="new-issue"[\s\S]*?<\/details>/.exec(
      await (await get('/orgs/acme/issues', maya)).text(),
    )![0];
    const editable = await (await get('/orgs/acme/issues/WEB-1', maya)).text();
    const readable = await (await get('/orgs/acme/issues/WEB-1', victor)).text();
    for (const { json, page, write } of declared) {
      const { name } = json!;
      const { label, place } = page!;
      expect(createForm.includes(`name="${name}"`), name).toBe(Boolean(write));
      if (place) {
        // The heading and the body: edited in the edit form, never a property.
        expect(
          editable.includes(`<input id="e-${name}" name="${name}"`) ||
            editable.includes(`<textarea id="e-${name}" name="${name}"`),
          name,
        ).toBe(Boolean(write?.update));
        expect(readable, name).not.toContain(`<dt>${label}</dt>`);
      } else {
        // A property: a form of its own when it changes; for a viewer (or when fixed), a line of the list.
        expect(editable.includes(`id="property-${name}"`), name).toBe(Boolean(write?.update));
        expect(editable.includes(`<dt>${label}</dt>`), name).toBe(!write?.update);
        expect(readable, name).toContain(`<dt>${label}</dt>`);
      }
    }
  });

  test('the sidebar sets the one property its form sends; a bad value is shown next to its select', async () => {
    const maya = await t.signIn('maya@example.com');
    const before = await t.app.db.prisma.issue.findFirstOrThrow({ where: { project: { key: 'MOB' }, number: 1 } });
    const saved = await post('/orgs/acme/issues/MOB-1/properties', { priority: 'low' }, maya);
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe('/orgs/acme/issues/MOB-1');
    const after = await t.app.db.prisma.issue.findUniqueOrThrow({ where: { id: before.id } });
    expect([after.priority, after.status, after.assigneeId, after.title]).toEqual([
      'low',
      before.status,
      before.assigneeId,
      before.title,
    ]);
    expect(await (await get('/orgs/acme/issues/MOB-1', `${maya}; ${flashOf(saved)}`)).text()).toContain(
      'Saved the priority of MOB-1.',
    );
    // Nobody: the empty assignee clears it.
    await post('/orgs/acme/issues/MOB-1/properties', { assignee_id: '' }, maya);
    expect((await t.app.db.prisma.issue.findUniqueOrThrow({ where: { id: before.id } })).assigneeId).toBeNull();

    const bad = await post('/orgs/acme/issues/MOB-1/properties', { status: 'Nope' }, maya);
    expect(bad.status).toBe(400);
    const page = await bad.text();
    expect(page).toMatch(/<select id="p-status" name="status" aria-invalid="true" aria-describedby="p-status-error">/);
    expect(page).toContain('id="p-status-error" data-property-error>must be one of');
    // The select still shows the issue's status, not the refused value.
    expect(page).toContain(`<option value="${before.status}" selected>`);
  });

  test("a viewer sees the properties as text, and a post anyway is the operation's 403", async () => {
    const victor = await t.signIn('victor@example.com');
    const page = await (await get('/orgs/acme/issues/WEB-1', victor)).text();
    expect(page).toContain('<dl class="property-list">');
    expect(page).not.toContain('data-property>');
    expect(page).not.toContain('<textarea');
    const refused = await post('/orgs/acme/issues/WEB-1/properties', { status: 'Canceled' }, victor);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('data-properties-error');
    expect(
      (await t.app.db.prisma.issue.findFirstOrThrow({ where: { project: { key: 'WEB' }, number: 1 } })).status,
    ).not.toBe('Canceled');
  });

  test('the activity feed tells who changed what, through what, and when; older entries are a page further', async () => {
    const maya = await t.signIn('maya@example.com');
    const olivia = t.user('olivia', 'acme');
    expect((await patch('WEB-4', 'mark', { status: 'In Review', assignee_id: olivia.id })).status).toBe(200);
    await post(
      '/orgs/acme/issues/WEB-4',
      { title: 'Plan the next quarter well', description: 'Now with a plan.' },
      maya,
    );
    const page = await (await get('/orgs/acme/issues/WEB-4', maya)).text();
    const items = [...page.matchAll(/<li>\s*([\s\S]*?)<\/li>/g)].map((m) =>
      m[1]!
        .replace(/<[^>]+>/g, '')
        .replace(/\s+/g, ' ')
        .trim(),
    );
    const activity = items.filter((text) => / (changed|renamed|edited|created) /.test(text));
    expect(activity[0]).toMatch(
      /^Maya Manager renamed it from “Plan the next quarter” to “Plan the next quarter well” and edited the description · \d{4}-\d\d-\d\d \d\d:\d\d UTC$/,
    );
    expect(activity[1]).toMatch(
      /^Mark Member changed the status from Backlog to In Review and the assignee from Mark Member to Olivia Owner with an API key · \d{4}-\d\d-\d\d \d\d:\d\d UTC$/,
    );
    // Each time is a <time> with the instant, and the UTC time as text and title.
    const time = /<time datetime="([^"]+)" title="([^"]+)" data-relative>([^<]+)<\/time>/.exec(page)!;
    expect(new Date(time[1]!).toISOString()).toBe(time[1]);
    expect(time[2]).toBe(time[3]);
    expect(time[3]).toMatch(/ UTC$/);

    for (let i = 0; i < ACTIVITY_PAGE; i++)
      await post('/orgs/acme/issues/WEB-4/properties', { priority: i % 2 ? 'high' : 'low' }, maya);
    const first = await (await get('/orgs/acme/issues/WEB-4', maya)).text();
    const older = /href="(\/orgs\/acme\/issues\/WEB-4\?activity_after=[^"#]+)#activity">Older activity/.exec(
      first,
    )![1]!;
    const second = await (await get(older, maya)).text();
    expect(second).toContain('Mark Member');
    expect(second).toContain('Newest activity');
    const bad = await get('/orgs/acme/issues/WEB-4?activity_after=nope', maya);
    expect(bad.status).toBe(200);
    expect(await bad.text()).toContain('This link to older activity is not valid.');
  });

  test('every page with times shows them with the one <time> helper the script makes relative', async () => {
    const maya = await t.signIn('maya@example.com');
    for (const path of [
      '/orgs/acme/issues',
      '/orgs/acme/projects',
      '/orgs/acme/settings/integrations',
      '/orgs/acme/issues/WEB-1',
      '/orgs/acme',
    ]) {
      const html = await (await get(path, maya)).text();
      const times = [...html.matchAll(/<time [^>]*>/g)].map((m) => m[0]);
      expect(times.length, path).toBeGreaterThan(0);
      for (const time of times)
        expect(time, path).toMatch(/^<time datetime="[^"]+" title="\d{4}-\d\d-\d\d \d\d:\d\d UTC" data-relative>$/);
    }
  });
});
