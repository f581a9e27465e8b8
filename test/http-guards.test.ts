import { describe, expect, test } from 'vitest';
import type { Credentials } from '../src/auth/authenticate.js';
import { BODY_LIMITS, BodyTooLargeError, boundedBody, readBodyWithin, withBodyWithin } from '../src/http/body-limit.js';
import { isSameOrigin, isUnsafeMethod } from '../src/http/same-origin.js';
import { surfaceOf } from '../src/http/surfaces.js';
import { csrf, csrfRefusal } from '../src/pipeline/csrf.js';
import type { RequestContext } from '../src/pipeline/request-context.js';
import { REFUSALS } from '../src/pipeline/refusals.js';

// The request guards one at a time, without a database, so that mutation testing
// (stryker/http-guards.config.mjs) can judge each change to them in milliseconds. The same rules
// through the whole stack: test/sessions.test.ts (CSRF) and test/body-limits.test.ts (limits).

const BASE = 'https://work.example.test';

describe('isUnsafeMethod', () => {
  test('the writes are unsafe, whatever their case; reads and OPTIONS are not', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'post', 'Delete'])
      expect(isUnsafeMethod(method)).toBe(true);
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'get', '']) expect(isUnsafeMethod(method)).toBe(false);
  });
});

describe('isSameOrigin', () => {
  const request = (headers: Record<string, string>) => new Request(`${BASE}/api/issues`, { method: 'POST', headers });

  test('Origin decides when present: ours passes, any other is refused even with our Referer', () => {
    expect(isSameOrigin(request({ origin: BASE }), `${BASE}/`)).toBe(true);
    expect(isSameOrigin(request({ origin: 'https://evil.example.test', referer: `${BASE}/orgs` }), BASE)).toBe(false);
    expect(isSameOrigin(request({ origin: 'null', referer: `${BASE}/orgs` }), BASE)).toBe(false);
    expect(isSameOrigin(request({ origin: `${BASE}:443` }), BASE)).toBe(false);
  });

  test("without Origin, the Referer's origin decides", () => {
    expect(isSameOrigin(request({ referer: `${BASE}/orgs/acme?x=1` }), BASE)).toBe(true);
    expect(isSameOrigin(request({ referer: 'https://evil.example.test/page' }), BASE)).toBe(false);
    expect(isSameOrigin(request({ referer: `${BASE}.evil.example/page` }), BASE)).toBe(false);
  });

  test('a request that says nothing, or an unreadable Referer, is refused', () => {
    expect(isSameOrigin(request({}), BASE)).toBe(false);
    expect(isSameOrigin(request({ referer: '' }), BASE)).toBe(false);
    expect(isSameOrigin(request({ referer: 'not a url' }), BASE)).toBe(false);
  });
});

describe('csrf', () => {
  function check(
    method: string,
    path: string,
    credentials: Partial<Credentials>,
    headers: Record<string, string> = {},
  ) {
    const request = new Request(`${BASE}${path}`, { method, headers });
    const presented = { token: null, sessionToken: null, requestedOrgId: null, ...credentials };
    return csrfRefusal(request, presented, surfaceOf(path), BASE);
  }
  const session = { sessionToken: 'session-token' };
  const foreign = { origin: 'https://evil.example.test' };

  test('a cookie-authenticated API write from another site is refused with 403 csrf_rejected', async () => {
    for (const path of ['/api', '/api/issues', '/api/graphql']) {
      const response = check('POST', path, session, foreign);
      expect(response?.status).toBe(403);
      expect(response?.headers.get('content-type')).toBe('application/problem+json');
      expect(await response!.json()).toMatchObject({
        status: 403,
        code: 'csrf_rejected',
        detail: 'Cross-site request refused: Origin (or Referer) must be this service.',
      });
    }
    expect(check('DELETE', '/api/issues/1', session)?.status).toBe(403);
  });

  test('a page form from another site is refused even without a session (login CSRF)', () => {
    expect(check('POST', '/login', {}, foreign)?.status).toBe(403);
    expect(check('POST', '/orgs/acme/settings', session, {})?.status).toBe(403);
  });

  test('our own origin passes', () => {
    expect(check('POST', '/api/issues', session, { origin: BASE })).toBeNull();
    expect(check('POST', '/login', {}, { referer: `${BASE}/login` })).toBeNull();
  });

  test('reads, token-authenticated writes, and writes with no cookie outside the pages are not its business', () => {
    expect(check('GET', '/api/issues', session, foreign)).toBeNull();
    expect(check('GET', '/login', {}, foreign)).toBeNull();
    expect(check('POST', '/api/issues', { token: 'a-token' }, foreign)).toBeNull();
    // A browser cannot add Authorization to a cross-site form, so a token-carrying one is no forgery.
    expect(check('POST', '/login', { token: 'a-token' }, foreign)).toBeNull();
    expect(check('POST', '/api/issues', {}, foreign)).toBeNull();
    // Not under /api and not a page: the OAuth back channel authenticates clients, not cookies.
    expect(check('POST', '/oauth/token', session, foreign)).toBeNull();
    expect(check('POST', '/apix', session, foreign)).toBeNull();
  });
});

/** A body handed out in `chunks` pieces of `size` bytes, counting what was pulled. */
function chunked(chunks: number, size: number, fill = 0x61) {
  const pulled = { chunks: 0 };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (pulled.chunks === chunks) return controller.close();
        pulled.chunks += 1;
        controller.enqueue(new Uint8Array(size).fill(fill + pulled.chunks));
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled };
}

function post(body: BodyInit | null, headers: Record<string, string> = {}) {
  return new Request(`${BASE}/api/issues`, { method: 'POST', body, headers, duplex: 'half' } as RequestInit);
}

describe('readBodyWithin', () => {
  test('the limits are those docs/limits.md lists: 1 MiB for /api, 16 KiB for OAuth, 512 KiB for page forms', () => {
    expect(BODY_LIMITS).toEqual({ api: 1048576, oauth: 16384, page: 524288 });
  });

  test('a body of exactly the limit is read whole, in order; one byte more is refused', async () => {
    const whole = await readBodyWithin(post(chunked(3, 4).stream), 12);
    expect(Buffer.from(whole!).toString()).toBe('bbbbccccdddd');
    await expect(readBodyWithin(post(chunked(3, 4).stream), 11)).rejects.toThrow(BodyTooLargeError);
  });

  test('reading stops at the chunk that passes the limit', async () => {
    const { stream, pulled } = chunked(100, 10);
    const error = await readBodyWithin(post(stream), 25).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BodyTooLargeError);
    expect((error as BodyTooLargeError).limit).toBe(25);
    expect((error as Error).message).toBe('The body is larger than 25 bytes.');
    expect((error as Error).name).toBe('BodyTooLargeError');
    expect(pulled.chunks).toBeLessThanOrEqual(4);
  });

  test('a Content-Length over the limit is refused before a byte is read; one at the limit is read', async () => {
    const { stream, pulled } = chunked(1, 10);
    await expect(readBodyWithin(post(stream, { 'content-length': '11' }), 10)).rejects.toThrow(BodyTooLargeError);
    expect(pulled.chunks).toBe(0);
    expect(await readBodyWithin(post('0123456789', { 'content-length': '10' }), 10)).toHaveLength(10);
    expect(await readBodyWithin(post('01234', { 'content-length': '5' }), 10)).toHaveLength(5);
  });

  test('no body is null', async () => {
    expect(await readBodyWithin(new Request(BASE), 10)).toBeNull();
  });
});

describe('withBodyWithin', () => {
  test('a request without a body is passed on as it is', async () => {
    const request = new Request(BASE);
    expect(await withBodyWithin(request, 10)).toBe(request);
  });

  test('the copy keeps URL, method and headers, and carries the bytes read', async () => {
    const original = new Request(`${BASE}/api/issues?x=1`, {
      method: 'PATCH',
      body: '{"a":1}',
      headers: { 'x-probe': 'yes' },
    });
    const copy = await withBodyWithin(original, 100);
    expect(copy.url).toBe(`${BASE}/api/issues?x=1`);
    expect(copy.method).toBe('PATCH');
    expect(copy.headers.get('x-probe')).toBe('yes');
    expect(await copy.text()).toBe('{"a":1}');
  });

  test("the copy follows the original's abort signal", async () => {
    const controller = new AbortController();
    const copy = await withBodyWithin(new Request(BASE, { method: 'POST', body: 'x', signal: controller.signal }), 10);
    controller.abort();
    expect(copy.signal.aborted).toBe(true);
  });
});

describe('the csrf step', () => {
  const context = (path: string, origin: string) => {
    const request = new Request(`${BASE}${path}`, { method: 'POST', headers: { origin } });
    const credentials = { token: null, sessionToken: 'session-token', requestedOrgId: null };
    return { request, credentials, surface: surfaceOf(path) } as unknown as RequestContext;
  };
  const next = async () => new Response('served');

  test('a refused write never reaches the steps after it; an accepted one does', async () => {
    const refused = await csrf(BASE)(context('/api/issues', 'https://evil.example.test'), next);
    expect(refused.status).toBe(403);
    const served = await csrf(BASE)(context('/api/issues', BASE), next);
    expect(await served.text()).toBe('served');
  });
});

describe('boundedBody', () => {
  const over = (limit: number) => post('x'.repeat(limit + 1));
  function broken() {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(4));
        controller.error(new Error('connection reset'));
      },
    });
    return post(stream);
  }

  test("within its surface's limit the request goes on, its body readable", async () => {
    const passed = await boundedBody(post('x'.repeat(BODY_LIMITS.page + 1)), 'api', REFUSALS.problem);
    expect(passed).toBeInstanceOf(Request);
    expect(await (passed as Request).text()).toHaveLength(BODY_LIMITS.page + 1);
  });

  test('/api refuses in problem+json, 413 payload_too_large or 400 body_incomplete, closing the connection', async () => {
    const tooLarge = (await boundedBody(over(BODY_LIMITS.api), 'api', REFUSALS.problem)) as Response;
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get('connection')).toBe('close');
    expect(tooLarge.headers.get('content-type')).toBe('application/problem+json');
    expect(await tooLarge.json()).toMatchObject({
      code: 'payload_too_large',
      detail: `The body is larger than ${BODY_LIMITS.api} bytes.`,
    });
    const incomplete = (await boundedBody(broken(), 'api', REFUSALS.problem)) as Response;
    expect(incomplete.status).toBe(400);
    expect(incomplete.headers.get('connection')).toBe('close');
    expect(await incomplete.json()).toMatchObject({
      code: 'body_incomplete',
      detail: 'The body ended before it was complete.',
    });
  });

  test('the OAuth endpoints refuse past their limit in RFC 6749 JSON', async () => {
    const tooLarge = (await boundedBody(over(BODY_LIMITS.oauth), 'oauth', REFUSALS.oauth)) as Response;
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get('connection')).toBe('close');
    expect(tooLarge.headers.get('content-type')).toBe('application/json');
    expect(await tooLarge.json()).toMatchObject({
      error: 'invalid_request',
      error_description: `The body is larger than ${BODY_LIMITS.oauth} bytes.`,
    });
    const incomplete = (await boundedBody(broken(), 'oauth', REFUSALS.oauth)) as Response;
    expect(incomplete.status).toBe(400);
    expect(await incomplete.json()).toMatchObject({ error: 'invalid_request' });
  });

  test('page forms refuse past their limit with an HTML page', async () => {
    const tooLarge = (await boundedBody(over(BODY_LIMITS.page), 'page', REFUSALS.page)) as Response;
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get('connection')).toBe('close');
    expect(tooLarge.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await tooLarge.text();
    expect(html).toContain('Form not accepted');
    expect(html).toContain('The form could not be read');
    expect(html).toContain(`larger than ${BODY_LIMITS.page} bytes`);
    const incomplete = (await boundedBody(broken(), 'page', REFUSALS.page)) as Response;
    expect(incomplete.status).toBe(400);
    expect(await incomplete.text()).toContain('The body ended before it was complete.');
  });
});
