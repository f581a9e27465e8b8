import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp } from '../src/app.js';
import { testConfig, type ConnectionLimits } from '../src/config.js';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';
import { listen, RawConnection } from './support/socket.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** The real Node server over an app on the shared database, with connection limits of the test's choosing. */
async function serve(limits: Partial<ConnectionLimits>) {
  const defaults = testConfig().connections;
  const app = await createApp(testConfig({ connections: { ...defaults, ...limits } }), { db: t.app.db });
  return listen(app);
}

/** Whether the connection closes before `boundMs` (far above the limit under test, far below Node's defaults). */
async function closesWithin(connection: RawConnection, boundMs: number): Promise<boolean> {
  await Promise.race([connection.closed, delay(boundMs)]);
  return connection.isClosed;
}

/** Waits (bounded) until the server counts `count` open connections. */
async function serverHolds(server: Awaited<ReturnType<typeof listen>>, count: number): Promise<void> {
  const open = () =>
    new Promise<number>((resolve, reject) =>
      server.server.getConnections((error, n) => (error ? reject(error) : resolve(n))),
    );
  for (let i = 0; i < 100 && (await open()) !== count; i++) await delay(50);
  expect(await open()).toBe(count);
}

function expectProblem(connection: RawConnection, status: number, code: string) {
  const { status: got, headers, body } = connection.response();
  expect(got).toBe(status);
  expect(headers.get('content-type')).toBe('application/problem+json');
  expect(headers.get('connection')).toBe('close');
  expect(JSON.parse(body)).toMatchObject({ status, code });
}

describe('slow and idle connections', () => {
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    server = await serve({ headersTimeoutMs: 500, requestTimeoutMs: 1_000, keepAliveTimeoutMs: 500 });
  });
  afterAll(() => server.close());

  test('headers trickled a byte at a time: 408 problem+json and closed after the headers timeout', async () => {
    const connection = await new RawConnection(server.port).connected();
    await connection.write('GET /api/openapi.json HTTP/1.1\r\n');
    // Node's defaults would keep this going for 60 s and more.
    for (let i = 0; i < 200 && !connection.isClosed; i++) {
      await connection.write('x');
      await delay(100);
    }
    expect(connection.isClosed).toBe(true);
    expectProblem(connection, 408, 'request_timeout');
  }, 60_000);

  test('a body trickled a byte at a time: closed after the request timeout', async () => {
    const connection = await new RawConnection(server.port).connected();
    await connection.write(
      `POST /api/issues HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${t.user('mark').token}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n`,
    );
    for (let i = 0; i < 200 && !connection.isClosed; i++) {
      await connection.write('{');
      await delay(100);
    }
    expect(connection.isClosed).toBe(true);
    expectProblem(connection, 408, 'request_timeout');
  }, 60_000);

  test('a connection that never sends anything is closed', async () => {
    const connection = await new RawConnection(server.port).connected();
    expect(await closesWithin(connection, 20_000)).toBe(true);
  }, 60_000);

  test('an idle connection after a response is closed after the keep-alive timeout', async () => {
    const connection = await new RawConnection(server.port).connected();
    await connection.write('GET /api/openapi.json HTTP/1.1\r\nhost: x\r\n\r\n');
    expect(await closesWithin(connection, 20_000)).toBe(true);
    expect(connection.response().status).toBe(200);
  }, 60_000);
});

describe('connection caps', () => {
  test('per address: the connection over the cap gets 503 problem+json and is closed; the others are served', async () => {
    const server = await serve({ maxConnectionsPerAddress: 2, maxConnections: 100 });
    try {
      const held = [await new RawConnection(server.port).connected(), await new RawConnection(server.port).connected()];
      await serverHolds(server, 2);
      const refused = await new RawConnection(server.port).connected();
      expect(await closesWithin(refused, 10_000)).toBe(true);
      expectProblem(refused, 503, 'too_many_connections');
      expect(refused.response().headers.get('retry-after')).toBe('1');
      await held[0]!.write('GET /api/openapi.json HTTP/1.1\r\nhost: x\r\n\r\n');
      await held[0]!.headReceived();
      expect(held[0]!.status).toBe(200);
      // One closes: a new connection is served again.
      held[1]!.destroy();
      await serverHolds(server, 1);
      const next = await new RawConnection(server.port).connected();
      await next.write('GET /api/openapi.json HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
      await closesWithin(next, 10_000);
      expect(next.status).toBe(200);
      held[0]!.destroy();
    } finally {
      await server.close();
    }
  });

  test('in total, with no per-address cap', async () => {
    const server = await serve({ maxConnectionsPerAddress: 0, maxConnections: 3 });
    try {
      const held = await Promise.all([1, 2, 3].map(() => new RawConnection(server.port).connected()));
      await serverHolds(server, 3);
      const refused = await new RawConnection(server.port).connected();
      expect(await closesWithin(refused, 10_000)).toBe(true);
      expectProblem(refused, 503, 'too_many_connections');
      for (const connection of held) expect(connection.isClosed).toBe(false);
      for (const connection of held) connection.destroy();
    } finally {
      await server.close();
    }
  });
});

describe("Node's own refusals", () => {
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    server = await serve({});
  });
  afterAll(() => server.close());

  test('a request that is not HTTP: 400 problem+json, closed', async () => {
    const connection = await new RawConnection(server.port).connected();
    await connection.write('HELLO THERE\r\n\r\n');
    expect(await closesWithin(connection, 10_000)).toBe(true);
    expectProblem(connection, 400, 'bad_request');
  });

  test('headers over the size limit: 431 problem+json, closed', async () => {
    const connection = await new RawConnection(server.port).connected();
    await connection.write(`GET /api/openapi.json HTTP/1.1\r\nhost: x\r\nx-padding: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(await closesWithin(connection, 10_000)).toBe(true);
    expectProblem(connection, 431, 'headers_too_large');
  });
});

describe('two credentials in one request', () => {
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    server = await serve({});
  });
  afterAll(() => server.close());

  async function send(headerLines: string[]) {
    const connection = await new RawConnection(server.port).connected();
    await connection.write(
      `GET /api/me HTTP/1.1\r\nhost: x\r\nconnection: close\r\n${headerLines.map((l) => `${l}\r\n`).join('')}\r\n`,
    );
    await closesWithin(connection, 10_000);
    return connection.response();
  }

  test('two Authorization fields over a socket are refused as conflicting credentials, not "the first wins"', async () => {
    for (const second of [t.user('adam').token, t.user('mark').token]) {
      const { status, body } = await send([
        `authorization: Bearer ${t.user('mark').token}`,
        `authorization: Bearer ${second}`,
      ]);
      expect(status).toBe(400);
      expect(JSON.parse(body).code).toBe('conflicting_credentials');
    }
    // One of them alone is served.
    expect((await send([`authorization: Bearer ${t.user('mark').token}`])).status).toBe(200);
  });

  test('two X-Auth-Token fields likewise', async () => {
    const { status, body } = await send([
      `x-auth-token: ${t.user('mark').token}`,
      `x-auth-token: ${t.user('adam').token}`,
    ]);
    expect(status).toBe(400);
    expect(JSON.parse(body).code).toBe('conflicting_credentials');
  });

  test('through app.fetch: a repeated Authorization (joined by the fetch API) is refused the same way', async () => {
    const headers = new Headers({ origin: ORIGIN });
    headers.append('authorization', `Bearer ${t.user('mark').token}`);
    headers.append('authorization', `Bearer ${t.user('adam').token}`);
    const response = await t.app.fetch(new Request(`${ORIGIN}/api/me`, { headers }));
    expect(response.status).toBe(400);
    expect((await response.json()).code).toBe('conflicting_credentials');
  });
});
