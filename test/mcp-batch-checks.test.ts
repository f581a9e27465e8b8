import { describe, expect, test } from 'vitest';
import type { Context } from '../src/context.js';
import { Response } from '../src/http/fetch-api.js';
import { InFlight } from '../src/limits/in-flight.js';
import {
  answerBatch,
  BATCH_ERROR_CODES,
  BATCHES_RUNNING_PER_CREDENTIAL,
  MAX_BATCH_ANSWER_BYTES,
  MAX_BATCH_MESSAGES,
} from '../src/mcp/batch.js';
import { invalidParams, isRecord, jsonRpcError, jsonRpcResponse } from '../src/mcp/messages.js';

// JSON-RPC batch metering one function at a time, with a stand-in for the transport (answerOne)
// and for the global bucket (ctx.drawRequest), so that mutation testing
// (stryker/mcp-batch.config.mjs) judges each change in milliseconds. The same rules through the
// whole stack: test/mcp-batch.test.ts.

const request = (version: string | null = '2025-03-26') =>
  new Request('http://127.0.0.1/api/mcp', {
    method: 'POST',
    headers: version === null ? {} : { 'mcp-protocol-version': version },
  });
const ping = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'ping' });
const notification = { jsonrpc: '2.0', method: 'notifications/initialized' };

/** The transport: answers each message with `{id, result}` (202 for a notification) and records what it ran. */
function transport(answer?: (message: { id?: unknown }) => Response | undefined) {
  const ran: unknown[] = [];
  const answerOne = async (message: unknown) => {
    ran.push(message);
    const m = message as { id?: unknown };
    const custom = answer?.(m);
    if (custom) return custom;
    if (m.id === undefined) return new Response(null, { status: 202 });
    return jsonRpcResponse({ jsonrpc: '2.0', id: m.id, result: {} });
  };
  return { ran, answerOne };
}

/** A bucket that allows `allowed` draws, then answers `retryAfter` (the seconds to wait); the caller is key `keyId`. */
function bucket(allowed: number, retryAfter = '7', keyId = 'k1') {
  const ctx = {
    draws: 0,
    principal: { kind: 'user', credential: { kind: 'pat', id: keyId } },
  } as unknown as Context & { draws: number };
  ctx.drawRequest = async () => (++ctx.draws > allowed ? retryAfter : null);
  return ctx;
}

const run = async (
  batch: unknown[],
  ctx: Context = bucket(100),
  t = transport(),
  req = request(),
  running = new InFlight(BATCHES_RUNNING_PER_CREDENTIAL),
) => {
  const response = await answerBatch(batch, req, ctx, t.answerOne, running);
  const text = await response.text();
  return { response, body: text ? JSON.parse(text) : null, ran: t.ran };
};

describe('batches running at once', () => {
  test('a credential runs BATCHES_RUNNING_PER_CREDENTIAL batches at once; another is answered as not run, to retry after a second', async () => {
    const running = new InFlight(BATCHES_RUNNING_PER_CREDENTIAL);
    let open!: () => void;
    const held = new Promise<void>((resolve) => (open = resolve));
    const slow = transport();
    const answerOne = async (message: unknown) => {
      await held;
      return slow.answerOne(message);
    };
    const first = Array.from({ length: BATCHES_RUNNING_PER_CREDENTIAL }, () =>
      answerBatch([ping('slow')], request(), bucket(100), answerOne, running),
    );
    const refused = await run([ping(1), notification, ping(2)], bucket(100), transport(), request(), running);
    expect(refused.response.status).toBe(200);
    expect(refused.response.headers.get('retry-after')).toBe('1');
    expect(refused.ran).toEqual([]);
    expect(
      refused.body.map((a: { id: unknown; error: { code: number; data: unknown } }) => [
        a.id,
        a.error.code,
        a.error.data,
      ]),
    ).toEqual([
      [1, BATCH_ERROR_CODES.rateLimited, { code: 'rate_limited', retry_after: 1 }],
      [2, BATCH_ERROR_CODES.rateLimited, { code: 'rate_limited', retry_after: 1 }],
    ]);
    // Only notifications: nothing to answer.
    expect((await run([notification], bucket(100), transport(), request(), running)).response.status).toBe(202);
    // Another credential is not affected.
    expect((await run([ping(3)], bucket(100, '7', 'k2'), transport(), request(), running)).ran).toHaveLength(1);
    open();
    await Promise.all(first);
    // The slots are free again, also after a batch whose message failed.
    const failing = async () => {
      throw new Error('transport failed');
    };
    await expect(answerBatch([ping(4)], request(), bucket(100), failing, running)).rejects.toThrow('transport failed');
    for (let i = 0; i < BATCHES_RUNNING_PER_CREDENTIAL; i++)
      expect((await run([ping(5)], bucket(100), transport(), request(), running)).ran).toHaveLength(1);
  });
});

describe('refusals of the whole batch', () => {
  test('protocol 2025-06-18 and later have no batches; 2025-03-26 and no header (its default) do', async () => {
    for (const version of ['2025-06-18', '2025-11-25']) {
      const { response, body, ran } = await run([ping(1)], bucket(100), transport(), request(version));
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(body).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: `Invalid Request: protocol version ${version} has no JSON-RPC batches (MCP removed them in 2025-06-18): send one message per POST.`,
        },
      });
      expect(ran).toEqual([]);
    }
    for (const version of ['2025-03-26', '2024-11-05', null]) {
      const { response, ran } = await run([ping(1)], bucket(100), transport(), request(version));
      expect(response.status).toBe(200);
      expect(ran).toHaveLength(1);
    }
  });

  test('an empty batch is refused', async () => {
    const { response, body } = await run([]);
    expect(response.status).toBe(400);
    expect(body.error).toEqual({ code: -32600, message: 'Invalid Request: an empty batch.' });
  });

  test(`a batch holds at most ${MAX_BATCH_MESSAGES} messages: ${MAX_BATCH_MESSAGES} run, one more runs none`, async () => {
    expect(MAX_BATCH_MESSAGES).toBe(10);
    const full = Array.from({ length: MAX_BATCH_MESSAGES }, (_, i) => ping(i + 1));
    const ok = await run(full);
    expect(ok.response.status).toBe(200);
    expect(ok.ran).toHaveLength(MAX_BATCH_MESSAGES);
    const over = await run([...full, ping(99)]);
    expect(over.response.status).toBe(400);
    expect(over.body.error.message).toBe(
      `Invalid Request: a batch holds at most ${MAX_BATCH_MESSAGES} messages (this one has ${MAX_BATCH_MESSAGES + 1}): send fewer.`,
    );
    expect(over.ran).toEqual([]);
  });
});

describe('each message drawn from the rate limits', () => {
  test('the first message is the POST itself; each further one draws once', async () => {
    const ctx = bucket(100);
    const { response, body } = await run([ping(1), ping(2), ping(3)], ctx);
    expect(ctx.draws).toBe(2);
    expect(response.status).toBe(200);
    expect([...response.headers.keys()]).not.toContain('retry-after');
    expect(body).toEqual([1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, result: {} })));
  });

  test('once a draw is refused, that message and all after it do not run, and are answered so; no more draws', async () => {
    const ctx = bucket(1, '7');
    const { response, body, ran } = await run([ping(1), ping(2), ping('three'), notification, ping(4)], ctx);
    expect(ctx.draws).toBe(2);
    expect(ran).toEqual([ping(1), ping(2)]);
    expect(response.status).toBe(200);
    expect(response.headers.get('retry-after')).toBe('7');
    const notRun = (id: number | string) => ({
      jsonrpc: '2.0',
      id,
      error: {
        code: BATCH_ERROR_CODES.rateLimited,
        message: 'Not run: rate limited. Retry after 7 seconds.',
        data: { code: 'rate_limited', retry_after: 7 },
      },
    });
    expect(BATCH_ERROR_CODES.rateLimited).toBe(-32029);
    // The notification gets no answer, run or not.
    expect(body).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, result: {} },
      notRun('three'),
      notRun(4),
    ]);
  });

  test('without a bucket (no limiter), every message runs', async () => {
    const { body, ran } = await run([ping(1), ping(2)], {
      principal: { kind: 'anonymous' },
      clientIp: '127.0.0.1',
    } as unknown as Context);
    expect(ran).toHaveLength(2);
    expect(body).toHaveLength(2);
  });
});

describe('the answers are bounded in bytes', () => {
  /** An answer whose JSON text is exactly `size` bytes. */
  const sized = (id: unknown, size: number) => {
    const empty = JSON.stringify({ jsonrpc: '2.0', id, result: { pad: '' } });
    return jsonRpcResponse({ jsonrpc: '2.0', id, result: { pad: 'x'.repeat(size - empty.length) } });
  };

  test(`answers up to ${MAX_BATCH_ANSWER_BYTES} bytes: the next message still runs`, async () => {
    expect(MAX_BATCH_ANSWER_BYTES).toBe(1024 * 1024);
    const t = transport((m) => (m.id === 1 ? sized(1, MAX_BATCH_ANSWER_BYTES) : undefined));
    const { body, ran } = await run([ping(1), ping(2)], bucket(100), t);
    expect(ran).toHaveLength(2);
    expect(body[1]).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  test('past them, later messages do not run and are answered so', async () => {
    const t = transport((m) => (m.id === 1 ? sized(1, MAX_BATCH_ANSWER_BYTES + 1) : undefined));
    const { response, body, ran } = await run([ping(1), notification, ping(2)], bucket(100), t);
    expect(ran).toHaveLength(1);
    expect(response.headers.get('retry-after')).toBeNull();
    expect(body).toHaveLength(2);
    expect(body[1]).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32013,
        message: `Not run: the answers of this batch passed ${MAX_BATCH_ANSWER_BYTES} bytes. Send this message again.`,
        data: { code: 'batch_answer_too_large', max_bytes: MAX_BATCH_ANSWER_BYTES },
      },
    });
  });

  test('bytes add up across answers (a multi-byte character counts its bytes)', async () => {
    const half = MAX_BATCH_ANSWER_BYTES / 2;
    const t = transport((m) =>
      m.id === 1 || m.id === 2 ? sized(m.id, half) : m.id === 3 ? jsonRpcResponse({ id: 3, r: 'é' }) : undefined,
    );
    const first = await run([ping(1), ping(2), ping(3)], bucket(100), t);
    expect(first.ran).toHaveLength(3);
    // 2 × half is the limit exactly; counted in characters the second batch would be at the limit too, in bytes it passes.
    const t2 = transport((m) =>
      m.id === 1 ? sized(1, MAX_BATCH_ANSWER_BYTES - 13) : m.id === 2 ? jsonRpcResponse({ r: 'ééééé' }) : undefined,
    );
    expect(JSON.stringify({ r: 'ééééé' }).length).toBe(13);
    const second = await run([ping(1), ping(2), ping(3)], bucket(100), t2);
    expect(second.ran).toHaveLength(2);
    expect(second.body[2].error.code).toBe(-32013);
  });
});

describe('entries that are no message, and bad params', () => {
  test('an entry that is not a JSON-RPC message gets -32600 under its id, or null; the others run', async () => {
    const { body, ran } = await run([
      { id: 5, method: 'ping' },
      42,
      { jsonrpc: '2.0', id: 'x' },
      { id: { a: 1 } },
      [],
      null,
      ping(6),
    ]);
    const invalid = (id: unknown) => ({
      jsonrpc: '2.0',
      id,
      error: { code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 message.' },
    });
    expect(body).toEqual([
      invalid(5),
      invalid(null),
      invalid('x'),
      invalid(null),
      invalid(null),
      invalid(null),
      { jsonrpc: '2.0', id: 6, result: {} },
    ]);
    expect(ran).toEqual([ping(6)]);
  });

  test('bad params are -32602 in a batch as alone, checked before the message shape; the message does not run', async () => {
    const bad = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { arguments: {} } };
    const badShape = { id: 4, method: 'tools/call', params: [] };
    const { body, ran } = await run([bad, badShape, ping(5)]);
    expect(body.map((a: { id: unknown; error?: { code: number } }) => [a.id, a.error?.code])).toEqual([
      [3, -32602],
      [4, -32602],
      [5, undefined],
    ]);
    expect(ran).toEqual([ping(5)]);
  });

  test('a response or notification in a batch runs and gets no answer; nothing to answer is 202', async () => {
    const response = { jsonrpc: '2.0', id: 9, result: {} };
    const t = transport((m) => (m === response ? new Response(null, { status: 202 }) : undefined));
    const { response: answer, body, ran } = await run([notification, response], bucket(100), t);
    expect(ran).toEqual([notification, response]);
    expect(answer.status).toBe(202);
    expect(body).toBeNull();
  });
});

describe("the transport's refusals", () => {
  const refusal = () => jsonRpcResponse(jsonRpcError(null, -32000, 'Not Acceptable'), 406);

  test("a refusal of the first message that runs (the POST's headers) answers the whole POST", async () => {
    const t = transport(() => refusal());
    const { response, body, ran } = await run([42, ping(1), ping(2)], bucket(100), t);
    expect(response.status).toBe(406);
    expect(body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Not Acceptable' } });
    expect(ran).toHaveLength(1);
  });

  test("a refusal after a message ran is that message's answer, under its id", async () => {
    const t = transport((m) => (m.id === 2 || m.id === undefined ? refusal() : undefined));
    const { response, body } = await run([ping(1), ping(2), notification, ping(3)], bucket(100), t);
    expect(response.status).toBe(200);
    expect(body).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, error: { code: -32000, message: 'Not Acceptable' } },
      { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Not Acceptable' } },
      { jsonrpc: '2.0', id: 3, result: {} },
    ]);
  });

  test('a notification that ran first counts as run: a later refusal does not answer the whole POST', async () => {
    const t = transport((m) => (m.id === 1 ? refusal() : undefined));
    const { response, body } = await run([notification, ping(1)], bucket(100), t);
    expect(response.status).toBe(200);
    expect(body).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'Not Acceptable' } }]);
  });
});

describe('messages', () => {
  test('jsonRpcError carries data only when given', () => {
    expect(jsonRpcError(1, -1, 'm')).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -1, message: 'm' } });
    expect('data' in jsonRpcError(1, -1, 'm').error).toBe(false);
    expect(jsonRpcError('a', -2, 'n', { k: 1 })).toEqual({
      jsonrpc: '2.0',
      id: 'a',
      error: { code: -2, message: 'n', data: { k: 1 } },
    });
  });

  test('jsonRpcResponse: JSON, 200 by default, extra headers', async () => {
    const plain = jsonRpcResponse({ a: 1 });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toBe('application/json');
    expect(await plain.text()).toBe('{"a":1}');
    const withHeaders = jsonRpcResponse([], 400, { 'retry-after': '3' });
    expect(withHeaders.status).toBe(400);
    expect(withHeaders.headers.get('retry-after')).toBe('3');
    expect(withHeaders.headers.get('content-type')).toBe('application/json');
  });

  test('isRecord: objects only', () => {
    expect(isRecord({})).toBe(true);
    for (const value of [null, [], 'x', 1, undefined]) expect(isRecord(value)).toBe(false);
  });

  describe('invalidParams', () => {
    const error = (id: unknown, message: string) => ({
      jsonrpc: '2.0',
      id,
      error: { code: -32602, message: `Invalid params: ${message}` },
    });
    const NAME = 'tools/call needs params.name, the name of a tool (tools/list names them).';
    const ARGS = "arguments must be an object of the tool's named arguments.";

    test('params, when sent, are an object', () => {
      expect(invalidParams({ id: 1, method: 'ping', params: 'x' })).toEqual(error(1, 'params must be an object.'));
      expect(invalidParams({ id: 'a', method: 'ping', params: [] })).toEqual(error('a', 'params must be an object.'));
      expect(invalidParams({ id: 1, method: 'ping', params: null })).toEqual(error(1, 'params must be an object.'));
      expect(invalidParams({ id: 1, method: 'ping' })).toBeNull();
      expect(invalidParams({ id: 1, method: 'ping', params: {} })).toBeNull();
    });

    test('a tools/call names its tool and passes its arguments as an object', () => {
      expect(invalidParams({ id: 1, method: 'tools/call' })).toEqual(error(1, NAME));
      expect(invalidParams({ id: 1, method: 'tools/call', params: {} })).toEqual(error(1, NAME));
      expect(invalidParams({ id: 1, method: 'tools/call', params: { name: 7 } })).toEqual(error(1, NAME));
      expect(invalidParams({ id: 1, method: 'tools/call', params: { name: 't', arguments: [] } })).toEqual(
        error(1, ARGS),
      );
      expect(invalidParams({ id: 1, method: 'tools/call', params: { name: 't', arguments: 'x' } })).toEqual(
        error(1, ARGS),
      );
      expect(invalidParams({ id: 1, method: 'tools/call', params: { name: 't' } })).toBeNull();
      expect(invalidParams({ id: 1, method: 'tools/call', params: { name: 't', arguments: {} } })).toBeNull();
    });

    test('answered under the id when it is a string or number, else null; a notification or non-object gets nothing', () => {
      expect(invalidParams({ id: { x: 1 }, method: 'ping', params: 1 })).toEqual(
        error(null, 'params must be an object.'),
      );
      expect(invalidParams({ id: null, method: 'ping', params: 1 })).toEqual(error(null, 'params must be an object.'));
      expect(invalidParams({ method: 'ping', params: 1 })).toBeNull();
      expect(invalidParams({ method: 'tools/call' })).toBeNull();
      for (const value of [null, 'x', [{ id: 1, params: 1 }]]) expect(invalidParams(value)).toBeNull();
    });
  });
});
