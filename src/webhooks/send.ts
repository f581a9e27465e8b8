import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { checkOutboundUrl, safeLookup, type OutboundPolicy } from '../http/outbound-address.js';

const SEND_TIMEOUT_MS = 10_000;
/** What is kept of a response body: enough to see why a receiver refused, not a place to store documents. */
export const RESPONSE_BODY_MAX = 4096;
/** Error messages are kept (and shown) clipped to this many characters. */
export const ERROR_MAX = 500;
/** "Disabled on <time>: every delivery failed for N days. Last error: <error>" (src/webhooks/worker.ts). */
export const DISABLED_REASON_MAX = 120 + ERROR_MAX;
const clip = (message: string) => (message.length > ERROR_MAX ? `${message.slice(0, ERROR_MAX - 1)}…` : message);

export interface SendResult {
  /** The HTTP status; null when no response came (network error, timeout, refused address). */
  status: number | null;
  body: string | null;
  durationMs: number;
  /** Seconds the receiver asked us to wait (Retry-After), if it said. */
  retryAfterSeconds: number | null;
  error: string | null;
}

/** Retry-After: delay-seconds or an HTTP-date (RFC 9110 §10.2.3). */
function retryAfterSeconds(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * POSTs one webhook message: the address is checked at connection time (no private address
 * unless allowed, never a metadata address), redirects are not followed (a 3xx is an answer
 * like any other), the whole exchange has SEND_TIMEOUT_MS, and only the first 4 KB of the
 * response body is read.
 */
export async function sendWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  policy: OutboundPolicy,
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let target: URL;
  try {
    target = await checkOutboundUrl(url, policy);
  } catch (error) {
    return {
      status: null,
      body: null,
      durationMs: elapsed(),
      retryAfterSeconds: null,
      error: clip((error as Error).message),
    };
  }
  return new Promise((resolve) => {
    const request = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'workmgmt-webhooks/1',
        'content-length': Buffer.byteLength(body),
        ...headers,
      },
      lookup: safeLookup(policy) as never,
      // A connection of its own each time: every send resolves and checks the address again, and
      // no socket the receiver has half-closed is reused (Node's global agent keeps them alive).
      agent: false,
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    });
    let settled = false;
    const finish = (result: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...result, error: result.error === null ? null : clip(result.error), durationMs: elapsed() });
    };
    request.on('error', (error) => {
      const timedOut = error.name === 'AbortError' || error.name === 'TimeoutError';
      finish({
        status: null,
        body: null,
        retryAfterSeconds: null,
        error: timedOut ? `no response within ${SEND_TIMEOUT_MS / 1000} s` : error.message,
      });
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        const text = Buffer.concat(chunks).subarray(0, RESPONSE_BODY_MAX).toString('utf8');
        const retryAfter = response.headers['retry-after'];
        finish({
          status: response.statusCode ?? null,
          body: text,
          retryAfterSeconds: retryAfterSeconds(retryAfter),
          error: null,
        });
        response.destroy();
      };
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= RESPONSE_BODY_MAX) done();
      });
      response.on('end', done);
      response.on('error', done);
    });
    request.end(body);
  });
}
