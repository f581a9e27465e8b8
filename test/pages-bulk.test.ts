import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
let keys: string[];
beforeAll(async () => {
  t = await startTestApp();
  const response = await t.call('POST', '/api/issues/bulk', {
    token: t.user('mark').token,
    body: { issues: ['Pick one', 'Pick two', 'Pick three'].map((title) => ({ project_id: 'WEB', title })) },
  });
  keys = ((await response.json()) as { key: string }[]).map((issue) => issue.key);
});
afterAll(() => t.close());

const get = (path: string, cookie: string) => t.app.fetch(new Request(`${ORIGIN}${path}`, { headers: { cookie } }));
/** The bulk form as a browser posts it: one `ids` field per checked box. */
const postBulk = (cookie: string, ids: string[], fields: Record<string, string>) => {
  const body = new URLSearchParams(fields);
  for (const id of ids) body.append('ids', id);
  return t.app.fetch(
    new Request(`${ORIGIN}/orgs/acme/issues/bulk`, {
      method: 'POST',
      body,
      headers: { origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded', cookie },
    }),
  );
};
const issue = async (key: string) =>
  (await t.call('GET', `/api/issues/${key}`, { token: t.user('mark').token })).json() as Promise<{
    status: string;
    priority: string;
    assignee_id: string | null;
  }>;

describe('the list page bulk-action bar and the board multi-select move (forms, without JavaScript)', () => {
  test('the list shows a checkbox per issue tied to the bar; a viewer sees neither', async () => {
    const html = await (await get('/orgs/acme/issues', await t.signIn('mark@example.com'))).text();
    expect(html).toContain('id="bulk-form"');
    expect(html).toContain(`<input type="checkbox" name="ids" value="${keys[0]}" form="bulk-form"`);
    const board = await (await get('/orgs/acme/board', await t.signIn('mark@example.com'))).text();
    expect(board).toContain('id="board-bulk"');
    expect(board).toContain(`value="${keys[1]}" form="board-bulk"`);
    const viewer = await (await get('/orgs/acme/issues', await t.signIn('victor@example.com'))).text();
    expect(viewer).not.toContain('bulk-form');
    expect(viewer).not.toContain('name="ids"');
  });

  test('the bar changes every checked issue, empty selects change nothing, and redirects back with a notice', async () => {
    const cookie = await t.signIn('mark@example.com');
    const mark = t.user('mark');
    const back = '/orgs/acme/issues?sort=priority';
    const response = await postBulk(cookie, [keys[0]!, keys[1]!], {
      back,
      status: 'Todo',
      priority: '',
      assignee_id: mark.id,
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe(back);
    const flash = response.headers.get('set-cookie')!.split(';')[0]!;
    expect(await (await get(back, `${cookie}; ${flash}`)).text()).toContain('Changed 2 issues.');
    expect(await issue(keys[0]!)).toMatchObject({ status: 'Todo', priority: 'none', assignee_id: mark.id });
    expect(await issue(keys[1]!)).toMatchObject({ status: 'Todo', assignee_id: mark.id });
    expect(await issue(keys[2]!)).toMatchObject({ status: 'Backlog', assignee_id: null });
    // "Unassign" clears the assignee.
    await postBulk(cookie, [keys[0]!], { back, assignee_id: 'none' });
    expect((await issue(keys[0]!)).assignee_id).toBeNull();
  });

  test('the bar adds a label to and takes one off every checked issue', async () => {
    const cookie = await t.signIn('mark@example.com');
    for (const name of ['page-bug', 'page-ui'])
      await t.call('POST', '/api/labels', { token: t.user('maya').token, body: { name, color: '#0E8A16' } });
    const html = await (await get('/orgs/acme/issues', cookie)).text();
    expect(html).toContain('<option value="page-bug">page-bug</option>');
    await postBulk(cookie, [keys[0]!, keys[1]!], { back: '/orgs/acme/issues', label_add: 'page-ui' });
    await postBulk(cookie, [keys[0]!], { back: '/orgs/acme/issues', label_add: 'page-bug', label_remove: 'page-ui' });
    const labels = async (key: string) =>
      ((await issue(key)) as unknown as { labels: { name: string }[] }).labels.map((l) => l.name);
    expect(await labels(keys[0]!)).toEqual(['page-bug']);
    expect(await labels(keys[1]!)).toEqual(['page-ui']);
  });

  test('the board moves every checked card to the status of the button pressed', async () => {
    const cookie = await t.signIn('mark@example.com');
    const response = await postBulk(cookie, [keys[1]!, keys[2]!], { back: '/orgs/acme/board', status: 'In Review' });
    expect(response.headers.get('location')).toBe('/orgs/acme/board');
    expect((await issue(keys[1]!)).status).toBe('In Review');
    expect((await issue(keys[2]!)).status).toBe('In Review');
  });

  test('nothing checked, or nothing to change: the list again with the reason, and nothing written', async () => {
    const cookie = await t.signIn('mark@example.com');
    const none = await postBulk(cookie, [], { back: '/orgs/acme/issues', status: 'Done' });
    expect(none.status).toBe(400);
    expect(await none.text()).toContain('Selection: must hold between 1 and 100 items');
    const nothing = await postBulk(cookie, [keys[2]!], { back: '/orgs/acme/issues' });
    expect(nothing.status).toBe(400);
    expect(await nothing.text()).toContain('change: must set at least one field');
    const gone = await postBulk(cookie, [keys[2]!, 'WEB-99999'], { back: '/orgs/acme/issues', status: 'Done' });
    expect(gone.status).toBe(400);
    expect(await gone.text()).toContain('WEB-99999: names no issue in this organization');
    expect((await issue(keys[2]!)).status).toBe('In Review');
  });

  test('a viewer posting the form is refused', async () => {
    const response = await postBulk(await t.signIn('victor@example.com'), [keys[0]!], { status: 'Done' });
    expect(response.status).toBe(403);
    expect((await issue(keys[0]!)).status).toBe('Todo');
  });
});
