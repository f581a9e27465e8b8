import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rateLimitSubject } from '../../src/pipeline/rate-limit.js';
import { MemoryStore } from '../../src/limits/memory-store.js';
import { GLOBAL_POLICY } from '../../src/limits/policy.js';
import { BATCH_ERROR_CODES, MAX_BATCH_MESSAGES } from '../../src/mcp/batch.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * Finding 4, "make it stay fixed": MCP JSON-RPC batches of any size, mixing valid requests (tool
 * calls that read and write, ping, unknown methods), malformed tool calls, notifications and
 * entries that are no message at all, under any protocol version header, with the bucket full
 * or nearly spent. Whatever is sent: no 5xx and no internal error (-32603); every request is
 * answered exactly once under its id; each message draws one request from the global bucket
 * (X-RateLimit-Remaining says what is left); a message over the budget runs nothing; and only
 * create_issue calls answered with a result created issues.
 *
 * FUZZ_RUNS (default 40) and FUZZ_SEED (replay a failure) steer it.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

let t: TestApp;
let clock = 10_000_000;
let token: string;
let projectId: string;
beforeAll(async () => {
  // A clock the property moves a window ahead per case: each batch starts with the bucket it chose.
  t = await startTestApp({}, { limiterStore: new MemoryStore({ now: () => clock }) });
  token = t.user('mark').token;
  projectId = t.org('acme').projects[0]!.id;
}, 120_000);
afterAll(() => t?.close());

const FUZZ_TITLE = 'mcp batch fuzz';

/** One entry of a batch, and what it is: a request (answered under `id`), a notification, or not a message. */
type Entry =
  | { kind: 'request'; tool?: string; message: (id: string) => unknown }
  | { kind: 'notification' | 'garbage'; message: unknown };

const request = (method: string, params?: unknown, tool?: string): Entry => ({
  kind: 'request',
  tool,
  message: (id) => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }),
});
const toolCall = (name: string, args: unknown) => request('tools/call', { name, arguments: args }, name);

const entry: fc.Arbitrary<Entry> = fc.oneof(
  fc.constantFrom<Entry>(
    request('ping'),
    request('tools/list'),
    request('no/such/method'),
    toolCall('who_am_i', {}),
    toolCall('no_such_tool', {}),
    request('tools/call'),
    request('tools/call', 'params'),
    request('tools/call', { name: 7 }),
    request('tools/call', { name: 'who_am_i', arguments: [] }),
    request('tools/list', 12),
    { kind: 'notification', message: { jsonrpc: '2.0', method: 'notifications/initialized' } },
    {
      kind: 'notification',
      message: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'x' } },
    },
  ),
  fc.integer({ min: 1, max: 100 }).map((limit) => toolCall('list_issues', { project_id: projectId, limit })),
  fc
    .oneof(fc.constant(FUZZ_TITLE), fc.constant(''), fc.string({ maxLength: 3 }))
    .map((title) => toolCall('create_issue', { project_id: projectId, title })),
  fc
    .oneof(
      fc.integer(),
      fc.string({ maxLength: 5 }),
      fc.constant(null),
      fc.array(fc.integer(), { maxLength: 2 }),
      fc.dictionary(fc.constantFrom('id', 'jsonrpc', 'params'), fc.integer(), { maxKeys: 3 }),
    )
    .map((message): Entry => ({ kind: 'garbage', message })),
);

const batchCase = fc.record({
  entries: fc.array(entry, { maxLength: MAX_BATCH_MESSAGES + 3 }),
  version: fc.constantFrom(undefined, '2025-03-26', '2024-11-05', '2025-06-18', '2025-11-25'),
  // Requests of the window spent before this POST: none, or all but a few.
  spent: fc.oneof(
    fc.constant(0),
    fc.integer({ min: GLOBAL_POLICY.limit - MAX_BATCH_MESSAGES, max: GLOBAL_POLICY.limit }),
  ),
});

type Answer = {
  jsonrpc: string;
  id: string | number | null;
  result?: { isError?: boolean };
  error?: { code: number; message: string };
};

describe('MCP batches, fuzzed', () => {
  test('clean JSON-RPC answers and one draw per message, whatever the batch', { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(batchCase, async ({ entries, version, spent }) => {
        clock += GLOBAL_POLICY.windowMs + 1;
        for (let i = 0; i < spent; i++) await t.app.limiter.admit(rateLimitSubject(token, '0.0.0.0'));
        const batch = entries.map((e, i) => (e.kind === 'request' ? e.message(`r${i}`) : e.message));
        const issuesBefore = await t.app.db.prisma.issue.count({ where: { title: FUZZ_TITLE } });
        const response = await t.call('POST', '/api/mcp', {
          token,
          body: batch,
          headers: {
            accept: 'application/json, text/event-stream',
            ...(version ? { 'mcp-protocol-version': version } : {}),
          },
        });
        const created = (await t.app.db.prisma.issue.count({ where: { title: FUZZ_TITLE } })) - issuesBefore;
        const left = GLOBAL_POLICY.limit - spent;
        expect(response.status).toBeLessThan(500);
        if (left === 0) {
          // Over before the first message: the whole POST is refused, nothing runs.
          expect(response.status).toBe(429);
          expect(response.headers.get('retry-after')).not.toBeNull();
          expect(created).toBe(0);
          return;
        }
        const refusedWhole =
          (version !== undefined && version >= '2025-06-18') || batch.length === 0 || batch.length > MAX_BATCH_MESSAGES;
        if (refusedWhole) {
          expect(response.status).toBe(400);
          expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
          expect(Number(response.headers.get('x-ratelimit-remaining'))).toBe(left - 1);
          expect(created).toBe(0);
          return;
        }
        // Each message is one request: those within the budget ran, the others did not.
        const ran = Math.min(batch.length, left);
        expect(Number(response.headers.get('x-ratelimit-remaining'))).toBe(Math.max(0, left - batch.length));
        const answered = entries.filter((e) => e.kind !== 'notification').length;
        if (answered === 0) {
          expect(response.status).toBe(202);
          return;
        }
        expect(response.status).toBe(200);
        const answers = (await response.json()) as Answer[];
        expect(answers).toHaveLength(answered);
        for (const answer of answers) {
          expect(answer.jsonrpc).toBe('2.0');
          expect('result' in answer !== 'error' in answer).toBe(true);
          if (answer.error)
            expect([-32600, -32601, -32602, BATCH_ERROR_CODES.rateLimited]).toContain(answer.error.code);
        }
        let createdByAnswers = 0;
        entries.forEach((e, i) => {
          if (e.kind !== 'request') return;
          const mine = answers.filter((a) => a.id === `r${i}`);
          expect(mine).toHaveLength(1);
          if (i >= ran) expect(mine[0]!.error?.code).toBe(BATCH_ERROR_CODES.rateLimited);
          const titled =
            (e.message('') as { params: { arguments: { title?: string } } }).params?.arguments?.title === FUZZ_TITLE;
          if (e.tool === 'create_issue' && titled && mine[0]!.result && !mine[0]!.result.isError) createdByAnswers++;
        });
        expect(created).toBe(createdByAnswers);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  });
});
