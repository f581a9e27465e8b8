import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rateLimitSubject } from '../src/pipeline/rate-limit.js';
import { MemoryStore } from '../src/limits/memory-store.js';
import { GLOBAL_POLICY } from '../src/limits/policy.js';
import { MAX_BATCH_ANSWER_BYTES, MAX_BATCH_MESSAGES } from '../src/mcp/batch.js';
import { startTestApp, type TestApp } from './support/app.js';

// Finding 4: a JSON-RPC batch of 100 create_issue calls created 100 issues against one unit of
// rate-limit budget. Every message is now a request to the limits, and a batch is capped.
let t: TestApp;
let clock = 1_000_000;
let projectId: string;
beforeAll(async () => {
  // A clock the tests move: a window passes only when a test says so.
  t = await startTestApp({}, { limiterStore: new MemoryStore({ now: () => clock }) });
  projectId = t.org('acme').projects[0]!.id;
}, 120_000);
afterAll(() => t.close());

/** A fresh user token's bucket is not enough: the bucket is per credential, so each test starts a window later. */
const nextWindow = () => (clock += GLOBAL_POLICY.windowMs + 1);

type Answer = {
  id: number | string | null;
  result?: { isError?: boolean; structuredContent?: unknown; content: { text: string }[] };
  error?: { code: number; message: string; data?: { code: string; retry_after?: number } };
};

const post = (body: unknown, token = t.user('mark').token, headers: Record<string, string> = {}) =>
  t.call('POST', '/api/mcp', { token, body, headers: { accept: 'application/json, text/event-stream', ...headers } });
const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});
const creates = (count: number, title: string) =>
  Array.from({ length: count }, (_, i) => call(i + 1, 'create_issue', { project_id: projectId, title }));
const issuesTitled = (title: string) => t.app.db.prisma.issue.count({ where: { title } });
const remaining = (response: Response) => Number(response.headers.get('x-ratelimit-remaining'));

describe('batches (protocol 2025-03-26)', () => {
  test('100 create_issue in one POST are refused whole: nothing is created', async () => {
    nextWindow();
    const title = `batch of 100 ${randomUUID()}`;
    const response = await post(creates(100, title));
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(body.error.message).toContain(`at most ${MAX_BATCH_MESSAGES} messages`);
    expect(await issuesTitled(title)).toBe(0);
  });

  test('every message draws from the global bucket: a batch of 10 costs 10, and X-RateLimit-Remaining says so', async () => {
    nextWindow();
    const title = `batch of 10 ${randomUUID()}`;
    const before = await post({ jsonrpc: '2.0', id: 0, method: 'ping' });
    expect(remaining(before)).toBe(GLOBAL_POLICY.limit - 1);
    const response = await post(creates(10, title));
    expect(response.status).toBe(200);
    const answers = (await response.json()) as Answer[];
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(answers.every((a) => a.result && !a.result.isError)).toBe(true);
    expect(await issuesTitled(title)).toBe(10);
    expect(remaining(response)).toBe(GLOBAL_POLICY.limit - 11);
  });

  test("a tool's operation draws from its own bucket once per message, as over REST", async () => {
    nextWindow();
    const response = await post(Array.from({ length: 10 }, (_, i) => call(i + 1, 'palette_search', { q: 'web' })));
    expect(response.status).toBe(200);
    // The search bucket (30 a minute) is the tightest: 10 drawn.
    expect(response.headers.get('ratelimit')).toMatch(/^"search";r=20;/);
    expect(remaining(response)).toBe(20);
  });

  test('messages over the budget do not run: each gets a JSON-RPC error with retry_after, the response Retry-After', async () => {
    nextWindow();
    const token = t.user('mark').token;
    // Leave 3 requests in the bucket: this POST (the first message) and two more.
    for (let i = 0; i < GLOBAL_POLICY.limit - 3; i++) await t.app.limiter.admit(rateLimitSubject(token, '0.0.0.0'));
    const title = `over budget ${randomUUID()}`;
    const response = await post(creates(5, title), token);
    expect(response.status).toBe(200);
    const answers = (await response.json()) as Answer[];
    expect(answers.slice(0, 3).every((a) => a.result && !a.result.isError)).toBe(true);
    for (const refused of answers.slice(3)) {
      expect(refused.error).toMatchObject({
        code: -32029,
        data: { code: 'rate_limited', retry_after: expect.any(Number) },
      });
    }
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3, 4, 5]);
    expect(await issuesTitled(title)).toBe(3);
    expect(remaining(response)).toBe(0);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    // The next POST is over already: a 429 for the whole of it.
    const next = await post(creates(2, title), token);
    expect(next.status).toBe(429);
    expect(next.headers.get('retry-after')).not.toBeNull();
    expect(await issuesTitled(title)).toBe(3);
  });

  test(`a batch stops running messages once its answers pass ${MAX_BATCH_ANSWER_BYTES} bytes`, async () => {
    nextWindow();
    const description = 'x'.repeat(50_000);
    const project = (await (
      await t.call('POST', '/api/projects', { token: t.user('olivia').token, body: { name: 'Large', key: 'LRG' } })
    ).json()) as { id: string };
    for (let i = 0; i < 11; i++) {
      const created = await t.call('POST', '/api/issues', {
        token: t.user('mark').token,
        body: { project_id: project.id, title: `large ${i}`, description },
      });
      expect(created.status).toBe(201);
    }
    const list = (id: number) => call(id, 'list_issues', { project_id: project.id, limit: 100 });
    const response = await post([list(1), list(2), { jsonrpc: '2.0', id: 3, method: 'ping' }]);
    const answers = (await response.json()) as Answer[];
    expect(answers[0]!.result!.isError).toBeUndefined();
    for (const skipped of answers.slice(1)) {
      expect(skipped.error).toMatchObject({
        code: -32013,
        data: { code: 'batch_answer_too_large', max_bytes: MAX_BATCH_ANSWER_BYTES },
      });
    }
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3]);
  });

  test('invalid entries get their own errors; notifications no answer; only notifications: 202', async () => {
    nextWindow();
    const response = await post([
      42,
      { jsonrpc: '2.0', id: 'p', method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { id: 7 },
    ]);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.any(String) } },
      { jsonrpc: '2.0', id: 'p', result: {} },
      { jsonrpc: '2.0', id: 7, error: { code: -32600, message: expect.any(String) } },
    ]);
    expect(remaining(response)).toBe(GLOBAL_POLICY.limit - 4);
    const notified = await post([{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
    expect(notified.status).toBe(202);
    const empty = await post([]);
    expect(empty.status).toBe(400);
    expect((await empty.json()).error.code).toBe(-32600);
  });
});

describe('batches in protocol versions without them', () => {
  test.each(['2025-06-18', '2025-11-25'])('%s: a batch is refused whole, before anything runs', async (version) => {
    nextWindow();
    const title = `batch in ${version} ${randomUUID()}`;
    const response = await post(creates(2, title), undefined, { 'mcp-protocol-version': version });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(body.error.message).toContain('no JSON-RPC batches');
    expect(await issuesTitled(title)).toBe(0);
    // One message per POST still works in that version.
    const single = await post(call(1, 'who_am_i', {}), undefined, { 'mcp-protocol-version': version });
    expect(((await single.json()) as Answer).result!.isError).toBeUndefined();
  });
});

describe('invalid params are -32602, never an internal error', () => {
  test.each([
    ['no params', { jsonrpc: '2.0', id: 1, method: 'tools/call' }],
    ['params not an object', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: [1] }],
    ['no tool name', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { arguments: {} } }],
    ['a tool name that is not a string', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 5 } }],
    [
      'arguments not an object',
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'who_am_i', arguments: 'x' } },
    ],
    ['params of tools/list not an object', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: 'x' }],
  ])('%s', async (_, message) => {
    nextWindow();
    const response = await post(message);
    expect(response.status).toBe(200);
    const answer = (await response.json()) as Answer;
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32602 } });
    expect(answer.error!.message).toMatch(/^Invalid params: /);
    // In a batch, the same answer for that entry alone.
    const batch = (await (await post([message, { jsonrpc: '2.0', id: 2, method: 'ping' }])).json()) as Answer[];
    expect(batch.map((a) => [a.id, a.error?.code])).toEqual([
      [1, -32602],
      [2, undefined],
    ]);
  });
});
