import http from 'node:http';
import { createServer } from 'node:net';
import { afterAll, describe, expect, test } from 'vitest';
import { dbKind } from '../support/database.js';
import { request, until, type Answer } from '../support/http-client.js';
import { startServer, type ServerProcess } from '../support/server-process.js';

const METRICS_TOKEN = 'shutdown-test-metrics-token-0123456789abcdef';

async function inFlight(base: string): Promise<number> {
  const scrape = await request(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  return Number(/^http_requests_in_flight (\d+)$/m.exec(scrape.body)?.[1]);
}

// A process of its own, whatever the database: run once, with the embedded suites.
describe.runIf(dbKind === 'pglite')(
  'graceful shutdown of the server process (real sockets)',
  { timeout: 180_000 },
  () => {
    let server: ServerProcess | undefined;
    afterAll(() => void server?.child.kill('SIGKILL'));

    test('SIGTERM: readiness 503 at once, the request in flight completes, new connections are refused, exit 0', async () => {
      // A delay long enough that the 503 is seen while it lasts; the second signal ends it.
      server = startServer({
        DATABASE_URL: 'memory://',
        METRICS_TOKEN,
        SHUTDOWN_DELAY_SECONDS: '120',
        SHUTDOWN_TIMEOUT_SECONDS: '120',
      });
      const base = `http://127.0.0.1:${await server.port}`;
      expect((await request(`${base}/readyz`)).status).toBe(200);

      // A client registration whose body arrives in two parts: in flight until the test sends the rest.
      const body = JSON.stringify({
        client_name: 'Slow client',
        redirect_uris: ['http://127.0.0.1/callback'],
        token_endpoint_auth_method: 'none',
      });
      const half = Math.floor(body.length / 2);
      // Keep-alive connections, as browsers and proxies use: the service must close them itself.
      const keepAlive = new http.Agent({ keepAlive: true });
      const slow = http.request(`${base}/oauth/register`, {
        method: 'POST',
        agent: keepAlive,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'x-request-id': 'slow-request-1',
        },
      });
      const answered = new Promise<Answer>((resolve, reject) => {
        slow.on('response', (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
        });
        slow.on('error', reject);
      });
      slow.write(body.slice(0, half));
      // In flight: counted by the service (the scrape that asks is the other one).
      await until(async () => (await inFlight(base)) === 2);

      server.child.kill('SIGTERM');
      await until(async () => (await request(`${base}/readyz`)).status === 503);
      const readiness = await request(`${base}/readyz`, { agent: keepAlive });
      expect(JSON.parse(readiness.body)).toEqual({ status: 'shutting_down' });
      expect(readiness.headers.connection).toBe('close');
      expect((await request(`${base}/healthz`)).status).toBe(200);

      // The second signal ends the delay: the listener closes.
      server.child.kill('SIGTERM');
      await until(() =>
        request(`${base}/healthz`).then(
          () => false,
          (error: NodeJS.ErrnoException) => error.code === 'ECONNREFUSED',
        ),
      );

      slow.end(body.slice(half));
      const response = await answered;
      expect(response.status).toBe(201);
      expect(JSON.parse(response.body)).toMatchObject({ client_name: 'Slow client' });
      expect(response.headers.connection).toBe('close');
      expect(await server.exited).toEqual({ code: 0, signal: null });
      keepAlive.destroy();
      expect(server.logs).toContainEqual(
        expect.objectContaining({
          msg: 'request',
          request_id: 'slow-request-1',
          route: '/oauth/register',
          status: 201,
        }),
      );
      expect(server.logs.at(-1)).toMatchObject({ msg: 'stopped' });
    });

    test('METRICS_PORT: metrics on a port of their own, on HOST; not on the main port', async () => {
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const metricsPort = (probe.address() as { port: number }).port;
      await new Promise((resolve) => probe.close(resolve));
      const metricsServer = startServer({ DATABASE_URL: 'memory://', METRICS_PORT: String(metricsPort) });
      server = metricsServer;
      const base = `http://127.0.0.1:${await metricsServer.port}`;
      expect((await request(`${base}/healthz`)).status).toBe(200);
      expect((await request(`${base}/metrics`)).status).toBe(404);
      const scrape = await request(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(scrape.status).toBe(200);
      expect(scrape.body).toMatch(
        /^http_request_duration_seconds_count\{method="GET",route="\/healthz",status="200"\} 1$/m,
      );
      expect((await request(`http://127.0.0.1:${metricsPort}/`)).status).toBe(404);
      metricsServer.child.kill('SIGTERM');
      expect(await metricsServer.exited).toEqual({ code: 0, signal: null });
    });
  },
);
