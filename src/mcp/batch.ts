import { DEFAULT_NEGOTIATED_PROTOCOL_VERSION, isSpecType } from '@modelcontextprotocol/server';
import type { Context } from '../context.js';
import type { InFlight } from '../limits/in-flight.js';
import { credentialSubject } from '../schema/core/rate-limit.js';
import { Response } from '../http/fetch-api.js';
import {
  invalidParams,
  isRecord,
  jsonRpcError,
  jsonRpcResponse,
  type JsonRpcError,
  type JsonRpcId,
} from './messages.js';

/**
 * JSON-RPC batches (an array of messages in one POST), which MCP has only in protocol 2025-03-26
 * (2025-06-18 removed them). Each message is a request of its own to the rate limits: the POST
 * drew one from the global bucket, every further message draws one more, and a tool's operation
 * draws from its own bucket as over REST. Messages run one after another; a batch holds at most
 * MAX_BATCH_MESSAGES of them and stops running them once its answers pass MAX_BATCH_ANSWER_BYTES.
 */
export const MAX_BATCH_MESSAGES = 10;
export const MAX_BATCH_ANSWER_BYTES = 1024 * 1024;
/** Batches of one credential running at once in this process; more are answered as not run (see notRunning). */
export const BATCHES_RUNNING_PER_CREDENTIAL = 2;
/** The first protocol version without batches; versions are dates, so they compare as strings. */
const NO_BATCHES_SINCE = '2025-06-18';

/** Implementation-defined JSON-RPC error codes (-32000 to -32099) for messages of a batch that did not run. */
export const BATCH_ERROR_CODES = { rateLimited: -32029, answerTooLarge: -32013 } as const;

/**
 * The id an entry is answered under: a request's id; undefined for a notification or a response,
 * which get no answer; for an entry that is not a valid message, its id when it has one, else null.
 */
function answeredId(message: unknown, valid: boolean): JsonRpcId | undefined {
  const id = isRecord(message) ? message.id : undefined;
  const usable = typeof id === 'string' || typeof id === 'number' ? id : null;
  if (!valid) return usable;
  return 'method' in (message as object) && usable !== null ? usable : undefined;
}

/** Whether the POST's batch is refused as a whole, before anything runs. */
function refusal(batch: unknown[], request: Request): Response | null {
  const version = request.headers.get('mcp-protocol-version') ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
  const invalid = (message: string) => jsonRpcResponse(jsonRpcError(null, -32600, `Invalid Request: ${message}`), 400);
  if (version >= NO_BATCHES_SINCE) {
    const why = `protocol version ${version} has no JSON-RPC batches (MCP removed them in ${NO_BATCHES_SINCE})`;
    return invalid(`${why}: send one message per POST.`);
  }
  if (batch.length === 0) return invalid('an empty batch.');
  if (batch.length > MAX_BATCH_MESSAGES) {
    return invalid(`a batch holds at most ${MAX_BATCH_MESSAGES} messages (this one has ${batch.length}): send fewer.`);
  }
  return null;
}

/** The answer to a message of a batch that did not run: the budget was spent, or the answers' bytes. */
function notRun(id: JsonRpcId, retryAfter: string | null): JsonRpcError {
  if (retryAfter !== null) {
    const data = { code: 'rate_limited', retry_after: Number(retryAfter) };
    const message = `Not run: rate limited. Retry after ${retryAfter} seconds.`;
    return jsonRpcError(id, BATCH_ERROR_CODES.rateLimited, message, data);
  }
  const data = { code: 'batch_answer_too_large', max_bytes: MAX_BATCH_ANSWER_BYTES };
  const message = `Not run: the answers of this batch passed ${MAX_BATCH_ANSWER_BYTES} bytes. Send this message again.`;
  return jsonRpcError(id, BATCH_ERROR_CODES.answerTooLarge, message, data);
}

/**
 * Answers a batch message by message with `answerOne` (what a POST of that message alone gets),
 * in order, drawing each message after the first from the request's global bucket. A message
 * refused by the rate limit, or met after the answers passed their byte limit, does not run and
 * is answered with an error naming why; so are all after it. A failure of the POST's headers
 * (Accept, Content-Type, protocol version) shows on the first message and answers the whole POST.
 */
export async function answerBatch(
  batch: unknown[],
  request: Request,
  ctx: Context,
  answerOne: (message: unknown) => Promise<Response>,
  running: InFlight,
): Promise<Response> {
  const refused = refusal(batch, request);
  if (refused) return refused;
  const release = running.acquire(credentialSubject(ctx));
  if (!release) return notRunning(batch);
  try {
    return await answerMessages(batch, ctx, answerOne);
  } finally {
    release();
  }
}

/**
 * A batch refused because the credential has BATCHES_RUNNING_PER_CREDENTIAL running: each of its
 * requests is answered as not run, to retry after a second. Its messages run one after another,
 * so this bounds how many of one credential's messages run at once, as the GraphQL executions
 * costing the most are bounded (src/graphql/query-bounds.ts): the budget of a minute cannot be
 * spent in one burst of concurrent batches while other tenants wait.
 */
function notRunning(batch: unknown[]): Response {
  const answers = batch.flatMap((message) => {
    const id = answeredId(message, isSpecType.JSONRPCMessage(message));
    return id === undefined ? [] : [notRun(id, '1')];
  });
  if (answers.length === 0) return new Response(null, { status: 202 });
  return jsonRpcResponse(answers, 200, { 'retry-after': '1' });
}

async function answerMessages(
  batch: unknown[],
  ctx: Context,
  answerOne: (message: unknown) => Promise<Response>,
): Promise<Response> {
  const answers: unknown[] = [];
  let bytes = 0;
  let retryAfter: string | null = null;
  let fed = false;
  for (const [index, message] of batch.entries()) {
    if (index > 0 && retryAfter === null) retryAfter = (await ctx.drawRequest?.()) ?? null;
    const valid = isSpecType.JSONRPCMessage(message);
    const id = answeredId(message, valid);
    if (retryAfter !== null || bytes > MAX_BATCH_ANSWER_BYTES) {
      if (id !== undefined) answers.push(notRun(id, retryAfter));
      continue;
    }
    // Checked before the message's shape, so that bad params are -32602 in a batch as alone.
    const paramsError = invalidParams(message);
    if (paramsError) {
      answers.push(paramsError);
      continue;
    }
    // JSON-RPC 2.0: an entry that is no message gets an error of its own (under id null when it has none).
    if (!valid) {
      answers.push(jsonRpcError(id ?? null, -32600, 'Invalid Request: not a JSON-RPC 2.0 message.'));
      continue;
    }
    const response = await answerOne(message);
    if (!response.ok && !fed) return response;
    fed = true;
    if (response.status === 202) continue;
    const text = await response.text();
    bytes += Buffer.byteLength(text);
    const answer = JSON.parse(text) as JsonRpcError;
    // The transport answers a refused message under id null; in a batch it is this message's.
    answers.push(response.ok ? answer : { ...answer, id: id ?? null });
  }
  if (answers.length === 0) return new Response(null, { status: 202 });
  return jsonRpcResponse(answers, 200, retryAfter === null ? {} : { 'retry-after': retryAfter });
}
