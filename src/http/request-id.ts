import { randomUUID } from 'node:crypto';

/** Longest X-Request-Id kept from a client: room for a UUID, a trace id or a proxy's composite id. */
const REQUEST_ID_MAX_LENGTH = 128;

/**
 * Characters allowed in a client's X-Request-Id. It is echoed in a header and written to logs
 * and problem bodies, so nothing that could split a header or a log line, or smuggle markup.
 */
const SAFE_REQUEST_ID = new RegExp(`^[A-Za-z0-9._:@/+=-]{1,${REQUEST_ID_MAX_LENGTH}}$`);

/**
 * The id of a request: the X-Request-Id it came with when that is short and plain (a proxy or
 * the client set it, and keeping it ties their logs to ours), else a new random UUID.
 */
export function requestIdFor(headers: Headers): string {
  const sent = headers.get('x-request-id');
  return sent !== null && SAFE_REQUEST_ID.test(sent) ? sent : randomUUID();
}
