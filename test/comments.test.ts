import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { COMMENT_BODY_MAX } from '../src/schema/comments/fields.js';
import { startTestApp, type TestApp } from './support/app.js';
import { expectProblem, fieldErrors } from './support/problem.js';

let t: TestApp;
let projectId: string;
beforeAll(async () => {
  t = await startTestApp();
  projectId = t.org('acme').projects.find((p) => p.key === 'WEB')!.id;
});
afterAll(() => t.close());

const MISSING = '00000000-0000-4000-8000-000000000000';
const token = (username: string, org = 'acme') => t.user(username, org).token;

async function json(response: Response) {
  if (response.status >= 300) throw new Error(`${response.status}: ${await response.text()}`);
  return response.json();
}

async function newIssue() {
  return (await json(
    await t.call('POST', '/api/issues', { token: token('mark'), body: { project_id: projectId, title: 'Discuss me' } }),
  )) as { id: string; key: string };
}

const comment = (issue: string, body: unknown, as = 'mark') =>
  t.call('POST', `/api/issues/${issue}/comments`, { token: token(as), body: { body } });
const list = (issue: string, query = '', as = 'victor') =>
  t.call('GET', `/api/issues/${issue}/comments${query}`, { token: token(as) });
const edit = (issue: string, id: string, body: unknown, as = 'mark') =>
  t.call('PATCH', `/api/issues/${issue}/comments/${id}`, { token: token(as), body: { body } });
const remove = (issue: string, id: string, as = 'mark') =>
  t.call('DELETE', `/api/issues/${issue}/comments/${id}`, { token: token(as) });

describe('REST comments', () => {
  test('a member comments (by key); anyone reads them oldest first, with author and times; Location names it', async () => {
    const issue = await newIssue();
    const created = await comment(issue.key.toLowerCase(), '  First **look**  ');
    expect(created.status).toBe(201);
    const first = await created.json();
    expect(first).toEqual({
      id: expect.any(String),
      issue_id: issue.id,
      author_id: t.user('mark').id,
      body: 'First **look**',
      created_at: expect.any(String),
      updated_at: first.created_at,
    });
    expect(created.headers.get('location')).toMatch(new RegExp(`/api/issues/${issue.id}/comments/${first.id}$`));
    const second = await json(await comment(issue.id, 'Second', 'olivia'));
    const page = await json(await list(issue.key));
    expect(page.map((c: { id: string }) => c.id)).toEqual([first.id, second.id]);
  });

  test('cursor pages, oldest first, follow the Link header to the end', async () => {
    const issue = await newIssue();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await json(await comment(issue.id, `note ${i}`))).id);
    const seen: string[] = [];
    let query = '?limit=2';
    for (let pages = 0; pages < 5; pages++) {
      const response = await list(issue.id, query);
      const body = await json(response);
      seen.push(...body.map((c: { id: string }) => c.id));
      const link = response.headers.get('link');
      if (!link) break;
      query = `?limit=2&cursor=${encodeURIComponent(new URL(/<([^>]+)>/.exec(link)![1]!).searchParams.get('cursor')!)}`;
    }
    expect(seen).toEqual(ids);
    await expectProblem(await list(issue.id, '?cursor=nope'), 400, 'validation_failed');
    await expectProblem(await list(issue.id, '?limit=101'), 400, 'validation_failed');
  });

  test('the author edits their own; a manager cannot edit or delete it (403); an admin can', async () => {
    const issue = await newIssue();
    const mine = await json(await comment(issue.id, 'draft'));
    const edited = await json(await edit(issue.id, mine.id, 'final'));
    expect(edited).toMatchObject({ id: mine.id, body: 'final', created_at: mine.created_at });
    expect(Date.parse(edited.updated_at)).toBeGreaterThanOrEqual(Date.parse(mine.updated_at));
    await expectProblem(await edit(issue.id, mine.id, 'hijacked', 'maya'), 403, 'forbidden');
    await expectProblem(await remove(issue.id, mine.id, 'maya'), 403, 'forbidden');
    expect(await json(await edit(issue.id, mine.id, 'moderated', 'adam'))).toMatchObject({ body: 'moderated' });
    expect((await remove(issue.id, mine.id, 'olivia')).status).toBe(204);
    expect(await json(await list(issue.id))).toEqual([]);
    await expectProblem(await remove(issue.id, mine.id), 404, 'not_found');
  });

  test('a viewer reads but cannot comment, edit or delete', async () => {
    const issue = await newIssue();
    const mine = await json(await comment(issue.id, 'hello'));
    await expectProblem(await comment(issue.id, 'me too', 'victor'), 403, 'forbidden');
    await expectProblem(await edit(issue.id, mine.id, 'x', 'victor'), 403, 'forbidden');
    await expectProblem(await remove(issue.id, mine.id, 'victor'), 403, 'forbidden');
    expect(await json(await list(issue.id, '', 'victor'))).toHaveLength(1);
  });

  test('bad input: every mistake at once, bounded body, unknown fields refused', async () => {
    const issue = await newIssue();
    const empty = await comment(issue.id, '   ');
    await expectProblem(empty, 400, 'validation_failed');
    const tooLong = await comment(issue.id, 'x'.repeat(COMMENT_BODY_MAX + 1));
    expect(await fieldErrors(tooLong)).toEqual([
      { field: 'body', message: `must be at most ${COMMENT_BODY_MAX} characters` },
    ]);
    const extra = await t.call('POST', `/api/issues/${issue.id}/comments`, {
      token: token('mark'),
      body: { body: 1, author_id: MISSING },
    });
    expect((await fieldErrors(extra))!.map((e) => e.field).sort()).toEqual(['author_id', 'body']);
    await expectProblem(await comment(issue.id, 'nul \0 byte'), 400, 'validation_failed');
    expect((await comment(issue.id, 'x'.repeat(COMMENT_BODY_MAX))).status).toBe(201);
  });

  test("another organization's issue or comment is a 404, like a missing one; a comment named under the wrong issue too", async () => {
    const issue = await newIssue();
    const other = await newIssue();
    const mine = await json(await comment(issue.id, 'secret'));
    await expectProblem(
      await t.call('GET', `/api/issues/${issue.id}/comments`, { token: token('bella', 'globex') }),
      404,
      'not_found',
    );
    await expectProblem(
      await t.call('POST', `/api/issues/${issue.id}/comments`, {
        token: token('bella', 'globex'),
        body: { body: 'x' },
      }),
      404,
      'not_found',
    );
    await expectProblem(
      await t.call('DELETE', `/api/issues/${issue.id}/comments/${mine.id}`, { token: token('bella', 'globex') }),
      404,
      'not_found',
    );
    await expectProblem(await edit(other.id, mine.id, 'moved?'), 404, 'not_found');
    await expectProblem(await edit(issue.id, 'not-a-uuid', 'x'), 404, 'not_found');
    await expectProblem(await list(MISSING), 404, 'not_found');
    expect((await json(await list(issue.id)))[0].body).toBe('secret');
  });

  test('deleting the issue deletes its comments', async () => {
    const issue = await newIssue();
    await json(await comment(issue.id, 'soon gone'));
    expect((await t.call('DELETE', `/api/issues/${issue.id}`, { token: token('maya') })).status).toBe(204);
    expect(await t.app.db.prisma.comment.count({ where: { issueId: issue.id } })).toBe(0);
  });
});

describe('history and webhooks', () => {
  test("each write records an event in the issue's history and queues it for the webhooks that want it", async () => {
    const orgId = t.org('acme').id;
    const hook = await t.app.db.prisma.webhook.create({
      data: {
        orgId,
        url: 'https://hooks.example.com/x',
        events: ['comment.created', 'comment.deleted'],
        secret: 'unused',
      },
    });
    try {
      const issue = await newIssue();
      const c = await json(await comment(issue.id, 'one'));
      await json(await edit(issue.id, c.id, 'two'));
      await json(await edit(issue.id, c.id, 'two'));
      expect((await remove(issue.id, c.id)).status).toBe(204);
      const history = await json(await t.call('GET', `/api/issues/${issue.id}/history`, { token: token('victor') }));
      expect(history.map((e: { type: string }) => e.type)).toEqual([
        'comment.deleted',
        'comment.updated',
        'comment.created',
        'issue.created',
      ]);
      expect(history[1]).toMatchObject({
        actor_id: t.user('mark').id,
        via: 'pat',
        changes: [
          { field: 'comment_id', old: c.id, new: c.id },
          { field: 'body', old: 'one', new: 'two' },
        ],
      });
      expect(history[0].changes).toEqual([
        { field: 'comment_id', old: c.id, new: null },
        { field: 'body', old: 'two', new: null },
      ]);
      const deliveries = await t.app.db.prisma.webhookDelivery.findMany({
        where: { webhookId: hook.id },
        orderBy: { seq: 'asc' },
      });
      expect(deliveries.map((d) => [d.eventType, d.orderKey])).toEqual([
        ['comment.created', issue.id],
        ['comment.deleted', issue.id],
      ]);
      const payload = JSON.parse(deliveries[0]!.payload);
      expect(payload).toMatchObject({ type: 'comment.created', organization_id: orgId, data: { ...c } });
    } finally {
      await t.app.db.prisma.webhook.delete({ where: { id: hook.id } });
    }
  });
});
