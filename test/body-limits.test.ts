import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BODY_LIMITS } from '../src/http/body-limit.js';
import { DESCRIPTION_MAX } from '../src/schema/issues/workflow.js';
import { formPost, ORIGIN, startTestApp, type TestApp } from './support/app.js';
import { chunkedUpload, listen, RawConnection } from './support/socket.js';

let t: TestApp;
let cookie: string;
beforeAll(async () => {
  t = await startTestApp();
  cookie = await t.signIn(t.user('olivia').email);
});
afterAll(() => t.close());

const MiB = 1024 * 1024;
const CHUNK = 64 * 1024;

/** A body of `total` bytes handed out 64 KiB per pull, counting what the server took. */
function countedBody(total: number) {
  const taken = { bytes: 0 };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (taken.bytes >= total) return controller.close();
        taken.bytes += CHUNK;
        controller.enqueue(new Uint8Array(CHUNK).fill(0x61));
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, taken };
}

type Surface = 'api' | 'oauth' | 'page';
const json = { 'content-type': 'application/json' };
const form = { 'content-type': 'application/x-www-form-urlencoded' };
const ENDPOINTS: [Surface, string, () => Record<string, string>][] = [
  ['api', '/api/issues', () => ({ ...json, authorization: `Bearer ${t.user('mark').token}` })],
  ['api', '/api/projects', () => ({ ...json, authorization: `Bearer ${t.user('mark').token}` })],
  ['api', '/api/graphql', () => ({ ...json, authorization: `Bearer ${t.user('mark').token}` })],
  ['oauth', '/oauth/token', () => form],
  ['oauth', '/oauth/register', () => json],
  ['oauth', '/oauth/revoke', () => form],
  ['oauth', '/oauth/introspect', () => form],
  ['page', '/login', () => ({ ...form, origin: ORIGIN })],
  ['page', '/oauth/authorize', () => ({ ...form, origin: ORIGIN, cookie })],
  ['page', '/orgs/acme/settings/integrations/keys', () => ({ ...form, origin: ORIGIN, cookie })],
];
const LIMIT: Record<Surface, number> = { api: BODY_LIMITS.api, oauth: BODY_LIMITS.oauth, page: BODY_LIMITS.page };

async function expectRefusalShape(response: Response, surface: Surface) {
  expect(response.status).toBe(413);
  expect(response.headers.get('connection')).toBe('close');
  if (surface === 'api') {
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toMatchObject({ status: 413, code: 'payload_too_large' });
  } else if (surface === 'oauth') {
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({ error: 'invalid_request' });
  } else {
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toContain(`larger than ${LIMIT.page} bytes`);
  }
}

describe('every body is counted as it arrives and refused as it passes its limit', () => {
  test.each(ENDPOINTS)(
    '%s %s: a 10 MiB chunked body is refused with 413 after about its limit, in the shape of the surface',
    async (surface, path, headers) => {
      const { stream, taken } = countedBody(10 * MiB);
      const response = await t.app.fetch(
        new Request(`${ORIGIN}${path}`, {
          method: 'POST',
          headers: headers(),
          body: stream,
          duplex: 'half',
        } as RequestInit),
      );
      await expectRefusalShape(response, surface);
      // The limit, plus the chunk that crossed it, plus one the stream may have prepared.
      expect(taken.bytes).toBeLessThanOrEqual(LIMIT[surface] + 2 * CHUNK);
    },
  );

  test('a body of exactly the limit is read; one byte more is refused', async () => {
    const issue = (size: number) => {
      const shell = JSON.stringify({ project_id: '00000000-0000-4000-8000-000000000000', title: '' });
      return shell.replace('"title":""', `"title":"${'x'.repeat(size - shell.length)}"`);
    };
    expect(Buffer.byteLength(issue(MiB))).toBe(MiB);
    const atLimit = await t.call('POST', '/api/issues', { token: t.user('mark').token, body: issue(MiB) });
    expect(atLimit.status).toBe(400);
    expect((await atLimit.json()).code).toBe('validation_failed');
    const over = await t.call('POST', '/api/issues', { token: t.user('mark').token, body: issue(MiB + 1) });
    expect(over.status).toBe(413);

    const token = (size: number) =>
      `grant_type=refresh_token&refresh_token=${'r'.repeat(size - 'grant_type=refresh_token&refresh_token='.length)}`;
    const post = (body: string) =>
      t.app.fetch(new Request(`${ORIGIN}/oauth/token`, { method: 'POST', headers: form, body }));
    expect((await post(token(BODY_LIMITS.oauth))).status).not.toBe(413);
    expect((await post(token(BODY_LIMITS.oauth + 1))).status).toBe(413);
  });

  test("the issue page's edit form carries the longest description, each character URL-encoded at its longest", async () => {
    const description = '€'.repeat(DESCRIPTION_MAX);
    const sent = formPost('/orgs/acme/issues/WEB-1', { title: 'Long write-up', description }, { cookie });
    expect(new URLSearchParams({ description }).toString()).toHaveLength('description='.length + 9 * DESCRIPTION_MAX);
    const response = await t.app.fetch(sent);
    expect(response.status).toBe(303);
    const issue = await t.call('GET', '/api/issues?project_id=WEB&per_page=100', { token: t.user('olivia').token });
    const saved = ((await issue.json()) as { title: string; description: string }[]).find(
      (i) => i.title === 'Long write-up',
    );
    expect(saved?.description).toBe(description);
  });

  test('GraphQL has the same 1 MiB limit as REST: a 2 MiB query is refused before it runs', async () => {
    const query = `{ me { id } }${' '.repeat(2 * MiB)}`;
    const response = await t.call('POST', '/api/graphql', { token: t.user('mark').token, body: { query } });
    await expectRefusalShape(response, 'api');
  });

  test('GraphQL: an unsupported media type is a 415 problem with a body', async () => {
    const response = await t.call('POST', '/api/graphql', {
      token: t.user('mark').token,
      body: '{ me { id } }',
      headers: { 'content-type': 'text/plain' },
    });
    expect(response.status).toBe(415);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.headers.get('accept-post')).toBe('application/json');
    expect(await response.json()).toMatchObject({ status: 415, code: 'unsupported_media_type' });
    // Other methods keep yoga's 405.
    expect(
      (
        await t.call('PUT', '/api/graphql', {
          token: t.user('mark').token,
          body: '{}',
          headers: { 'content-type': 'text/plain' },
        })
      ).status,
    ).toBe(405);
  });
});

describe('over a socket', () => {
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    server = await listen(t.app);
  });
  afterAll(() => server.close());

  test('six parallel 100 MB chunked uploads: each 413 at once, each connection closed, memory near its baseline', async () => {
    const uploads: [string, Record<string, string>][] = [
      ['/api/issues', { ...json, authorization: `Bearer ${t.user('mark').token}` }],
      ['/api/graphql', { ...json, authorization: `Bearer ${t.user('olivia').token}` }],
      ['/oauth/token', form],
      ['/oauth/register', json],
      ['/login', { ...form, origin: ORIGIN }],
      ['/oauth/authorize', { ...form, origin: ORIGIN, cookie }],
    ];
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const results = await Promise.all(
      uploads.map(([path, headers]) => chunkedUpload(server.port, path, headers, 100 * 1000 * 1000)),
    ).finally(() => clearInterval(sampler));
    console.log(
      `6 x 100 MB chunked uploads: RSS ${Math.round(baseline / MiB)} MiB, peak +${Math.round((peak - baseline) / MiB)} MiB`,
    );
    expect((peak - baseline) / MiB).toBeLessThan(150);
    for (const [i, { connection, sent }] of results.entries()) {
      expect(connection.status, uploads[i]![0]).toBe(413);
      expect(connection.response().headers.get('connection')).toBe('close');
      expect(connection.isClosed, `${uploads[i]![0]}: the connection is closed after the 413`).toBe(true);
      // Refused near the limit: what was sent beyond it is what the socket buffers held.
      expect(sent).toBeLessThan(20 * 1000 * 1000);
    }
  }, 120_000);

  test('a Content-Length over the limit is refused before any byte of the body is sent', async () => {
    const connection = await new RawConnection(server.port).connected();
    await connection.write(
      `POST /oauth/token HTTP/1.1\r\nhost: x\r\ncontent-type: application/x-www-form-urlencoded\r\ncontent-length: ${100 * MiB}\r\n\r\n`,
    );
    await connection.closed;
    expect(connection.response().status).toBe(413);
    expect(JSON.parse(connection.response().body)).toMatchObject({ error: 'invalid_request' });
  });

  test('a request answered before its body was read closes the connection instead of reading the rest', async () => {
    // No credential: 401 without reading the body; keeping the connection would mean reading all of it.
    const { connection, sent } = await chunkedUpload(server.port, '/api/issues', json, 100 * 1000 * 1000);
    expect(connection.status).toBe(401);
    expect(connection.response().headers.get('connection')).toBe('close');
    expect(connection.isClosed).toBe(true);
    expect(sent).toBeLessThan(20 * 1000 * 1000);
  });
});
