import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { COMMENT_BODY_MAX } from '../src/schema/comments/fields.js';
import { formPost, ORIGIN, startTestApp, type TestApp } from './support/app.js';

/**
 * The issue page's comments over the real stack, without JavaScript: the list (oldest first, its
 * Markdown rendered with raw HTML shown as text), the add, edit and delete forms by role, a refused
 * comment shown again with its text and reason, and the activity feed's lines for comments.
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
/** The comments section of a page. */
const commentsOf = (html: string) => /<section class="card" id="comments"[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';
const bodiesOf = (html: string) =>
  [...commentsOf(html).matchAll(/<div class="markdown" data-comment-body>([\s\S]*?)<\/div>/g)].map((m) => m[1]!.trim());

async function newIssue(): Promise<string> {
  const response = await t.call('POST', '/api/issues', {
    token: t.user('mark').token,
    body: { project_id: 'WEB', title: 'Talk about me' },
  });
  return (await response.json()).key;
}

describe('comments on the issue page', () => {
  test('a member adds comments without JavaScript; they show oldest first, Markdown rendered, raw HTML as text', async () => {
    const key = await newIssue();
    const mark = await t.signIn('mark@example.com');
    const first = await post(`/orgs/acme/issues/${key}/comments`, { body: '**First** see https://example.com' }, mark);
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe(`/orgs/acme/issues/${key}#comments`);
    const hostile = '<script>alert(1)</script> [x](javascript:alert(2)) <img src=x onerror=alert(3)>';
    expect((await post(`/orgs/acme/issues/${key}/comments`, { body: hostile }, mark)).status).toBe(303);
    const html = await (await get(`/orgs/acme/issues/${key}`, mark)).text();
    const [one, two] = bodiesOf(html);
    expect(one).toContain('<strong>First</strong>');
    expect(one).toContain('<a href="https://example.com" rel="noopener nofollow ugc">https://example.com</a>');
    expect(two).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(two).toContain('&lt;img src=x onerror=alert(3)&gt;');
    expect(two).not.toMatch(/<script|<img|href="javascript/i);
    expect(commentsOf(html)).toContain('Mark Member');
    // The activity feed tells of them.
    expect(html).toMatch(/Mark Member<\/strong>\s*commented/);
  });

  test("edit and delete show on the comments one may change: the author's own, and every one for owners and admins", async () => {
    const key = await newIssue();
    const mark = await t.signIn('mark@example.com');
    const maya = await t.signIn('maya@example.com');
    const olivia = await t.signIn('olivia@example.com');
    await post(`/orgs/acme/issues/${key}/comments`, { body: 'by mark' }, mark);
    await post(`/orgs/acme/issues/${key}/comments`, { body: 'by maya' }, maya);
    const editForms = async (cookie: string) =>
      (commentsOf(await (await get(`/orgs/acme/issues/${key}`, cookie)).text()).match(/Save comment/g) ?? []).length;
    expect(await editForms(mark)).toBe(1);
    expect(await editForms(maya)).toBe(1);
    expect(await editForms(olivia)).toBe(2);

    const list = await t.call('GET', `/api/issues/${key}/comments`, { token: t.user('mark').token });
    const [marks, mayas] = (await list.json()) as { id: string }[];
    // Maya cannot change Mark's comment, even by posting the form herself: the operation refuses it.
    const refused = await post(`/orgs/acme/issues/${key}/comments/${marks!.id}`, { body: 'hijacked' }, maya);
    expect(refused.status).toBe(403);
    expect(commentsOf(await refused.text())).toContain('Only its author, or an owner or admin');
    expect(
      (await post(`/orgs/acme/issues/${key}/comments/${marks!.id}`, { body: 'by mark, edited' }, mark)).status,
    ).toBe(303);
    expect((await post(`/orgs/acme/issues/${key}/comments/${mayas!.id}/delete`, {}, olivia)).status).toBe(303);
    const html = await (await get(`/orgs/acme/issues/${key}`, mark)).text();
    expect(bodiesOf(html)).toEqual(['<p>by mark, edited</p>']);
    expect(commentsOf(html)).toContain('· edited');
    expect(html).toMatch(/edited a comment/);
    expect(html).toMatch(/deleted a comment/);
  });

  test('a viewer reads comments but gets no form, and a posted one is refused', async () => {
    const key = await newIssue();
    const mark = await t.signIn('mark@example.com');
    await post(`/orgs/acme/issues/${key}/comments`, { body: 'visible' }, mark);
    const victor = await t.signIn('victor@example.com');
    const section = commentsOf(await (await get(`/orgs/acme/issues/${key}`, victor)).text());
    expect(bodiesOf(section)).toEqual(['<p>visible</p>']);
    expect(section).not.toContain('<form');
    expect(section).toContain('Viewers read comments');
    expect((await post(`/orgs/acme/issues/${key}/comments`, { body: 'me too' }, victor)).status).toBe(403);
  });

  test('a refused comment comes back with its text and the reason next to it (400)', async () => {
    const key = await newIssue();
    const mark = await t.signIn('mark@example.com');
    const long = 'y'.repeat(COMMENT_BODY_MAX + 1);
    const response = await post(`/orgs/acme/issues/${key}/comments`, { body: long }, mark);
    expect(response.status).toBe(400);
    const section = commentsOf(await response.text());
    expect(section).toContain(`must be at most ${COMMENT_BODY_MAX} characters`);
    expect(section).toContain(long);
    expect(section).toMatch(/id="new-comment"[^>]*aria-invalid="true"/);
  });
});
