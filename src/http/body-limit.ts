import { AppError } from '../schema/core/errors.js';
import type { BodyRule } from './surfaces.js';

/**
 * Request bodies are read here, once, as they arrive, counting bytes against the limit of the
 * surface that will parse them, before any surface sees the request. A body is refused as soon
 * as it passes its limit (at once when Content-Length already says it will), so a chunked
 * upload without Content-Length is never buffered past the limit, whoever reads it later
 * (`request.text()`, `formData()`, graphql-yoga).
 */

/** Bytes a request body may carry, by who parses it. The limits table of docs/limits.md lists them. */
export const BODY_LIMITS = {
  /** `/api`: REST JSON bodies and GraphQL documents with their variables. */
  api: 1024 * 1024,
  /**
   * The OAuth endpoints (token, register, revoke, introspect): a few short fields, the longest a
   * registration with ten redirect URIs.
   */
  oauth: 16 * 1024,
  /**
   * Page forms. The longest text a page sends is an issue's description, 50,000 characters
   * (DESCRIPTION_MAX), which URL-encoding makes up to 9 bytes a character (`%E2%82%AC` for `€`):
   * 450,000 bytes, and the form's other fields fit in the rest.
   */
  page: 512 * 1024,
} as const;

/** A body over its limit: the 413 of every surface. */
export class BodyTooLargeError extends AppError {
  constructor(readonly limit: number) {
    super(`The body is larger than ${limit} bytes.`, 'PAYLOAD_TOO_LARGE');
  }
}

/**
 * Reads the body of `request` within `limit` bytes; null when it has none.
 * Throws BodyTooLargeError as soon as the count passes the limit.
 *
 * On overflow the stream is left as it is, neither cancelled nor drained: cancelling the body
 * of a Node request destroys its socket (and with it the 413 we are about to send), and
 * draining would read what we refuse. The 413 closes the connection instead (`Connection: close`).
 */
export async function readBodyWithin(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer> | null> {
  const declared = request.headers.get('content-length');
  // Stryker disable next-line ConditionalExpression: Number(null) is 0, never over a limit
  if (declared !== null && Number(declared) > limit) throw new BodyTooLargeError(limit);
  if (request.body === null) return null;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) throw new BodyTooLargeError(limit);
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

/**
 * The same request with its body read within `limit` and held in memory, so that every later
 * reader sees at most `limit` bytes. A request without a body is returned as it is.
 */
export async function withBodyWithin(request: Request, limit: number): Promise<Request> {
  if (request.body === null) return request;
  const body = await readBodyWithin(request, limit);
  // The request's own class: the Node adapter's (@whatwg-node) or the platform's, whose
  // constructors each accept only their own AbortSignal.
  const RequestClass = request.constructor as typeof Request;
  return new RequestClass(request.url, {
    method: request.method,
    headers: request.headers,
    body,
    signal: request.signal,
  });
}

const LIMIT_OF: Record<Exclude<BodyRule, 'none'>, number> = BODY_LIMITS;

/**
 * A refused body in the shape of its surface (src/pipeline/refusals.ts): problem+json on /api
 * (GraphQL included: the body is refused before any GraphQL document exists, like a 401 or a
 * 429 there), RFC 6749 JSON on the OAuth endpoints, an HTML page for page forms. Each closes
 * the connection (`headers`), whose unread rest must not be taken for the next request
 * (RFC 9110 §15.5.14).
 */
export type BodyRefusal = (error: AppError) => Response;

/**
 * The pipeline's body step: the request with its body read within the limit of its surface's
 * body rule, or the surface's 413 (too large) or 400 (the body broke off: the client went away
 * or sent a broken chunked encoding; its doing, so not logged as ours).
 */
export async function boundedBody(
  request: Request,
  rule: Exclude<BodyRule, 'none'>,
  refuse: BodyRefusal,
): Promise<Request | Response> {
  try {
    return await withBodyWithin(request, LIMIT_OF[rule]);
  } catch (error) {
    if (error instanceof BodyTooLargeError) return refuse(error);
    return refuse(new AppError('The body ended before it was complete.', 'BODY_INCOMPLETE'));
  }
}
