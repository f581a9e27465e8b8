import { request as httpRequest } from 'node:http';
import { checkResourceAllowed, resourceUrlFromServerUrl } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';
import { listen } from './support/socket.js';

// DNS rebinding protection on /api/mcp (src/pipeline/host-check.ts, the surface table's
// `hostBound`): a request naming another host, or a browser origin CORS does not allow, is
// refused with a valid token; and the MCP endpoint's path-aware protected-resource metadata.

const PING = { jsonrpc: '2.0', id: 1, method: 'ping' };
const HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

async function post(t: TestApp, url: string, headers: Record<string, string> = {}, path = '/api/mcp') {
  const token = t.user('mark').token;
  return t.app.fetch(
    new Request(`${url}${path}`, {
      method: 'POST',
      headers: { ...HEADERS, authorization: `Bearer ${token}`, ...headers },
      body: JSON.stringify(PING),
    }),
  );
}

describe('the Host of an MCP request', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  test("BASE_URL's host is served, on any port (the port is not what a rebinding changes)", async () => {
    expect((await post(t, ORIGIN)).status).toBe(200);
    expect((await post(t, 'http://localhost:8123')).status).toBe(200);
  });

  test('another host is refused with a valid token, before any credential is looked at', async () => {
    const response = await post(t, 'http://attacker.example:4000');
    expect(response.status).toBe(403);
    const problem = (await response.json()) as { code: string; detail: string };
    expect(problem.code).toBe('csrf_rejected');
    expect(problem.detail).toContain('Host attacker.example:4000 is not');
    expect(response.headers.get('x-ratelimit-limit')).toBeNull();
  });

  test('a loopback BASE_URL answers to every loopback name, and to no other', async () => {
    expect((await post(t, 'http://127.0.0.1:4000')).status).toBe(200);
    expect((await post(t, 'http://[::1]:4000')).status).toBe(200);
    expect((await post(t, 'http://127.0.0.2:4000')).status).toBe(403);
    expect((await post(t, 'http://localhost.attacker.example:4000')).status).toBe(403);
  });

  test('the rest of the API is not host-bound', async () => {
    const response = await t.app.fetch(
      new Request('http://attacker.example:4000/api/me', {
        headers: { authorization: `Bearer ${t.user('mark').token}` },
      }),
    );
    expect(response.status).toBe(200);
  });

  test('over a real socket, the Host header is what is checked', async () => {
    const socket = await listen(t.app);
    try {
      const send = (host: string) =>
        new Promise<number>((resolve, reject) => {
          const req = httpRequest(
            {
              host: '127.0.0.1',
              port: socket.port,
              path: '/api/mcp',
              method: 'POST',
              headers: { ...HEADERS, host, authorization: `Bearer ${t.user('mark').token}` },
            },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.on('error', reject);
          req.end(JSON.stringify(PING));
        });
      expect(await send('attacker.example')).toBe(403);
      expect(await send(`localhost:${socket.port}`)).toBe(200);
    } finally {
      await socket.close();
    }
  });

  test('the protected-resource metadata is served at the path-aware address of the endpoint, with a resource the SDK client accepts for /api/mcp', async () => {
    const response = await t.call('GET', '/.well-known/oauth-protected-resource/api/mcp');
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as { resource: string; authorization_servers: string[] };
    expect(metadata.resource).toBe(`${ORIGIN}/api`);
    expect(metadata.authorization_servers).toEqual([ORIGIN]);
    const requested = resourceUrlFromServerUrl(`${ORIGIN}/api/mcp`);
    expect(checkResourceAllowed({ requestedResource: requested, configuredResource: metadata.resource })).toBe(true);
  });

  test('with every origin allowed by CORS (the default), an Origin is not refused', async () => {
    expect((await post(t, ORIGIN, { origin: 'https://spa.example.test' })).status).toBe(200);
  });
});

describe('the Origin of an MCP request, with CORS_ORIGINS a list', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ corsOrigins: ['https://app.example.test'] });
  });
  afterAll(() => t.close());

  test("BASE_URL's origin, an allowed origin, and no Origin are served", async () => {
    expect((await post(t, ORIGIN, { origin: ORIGIN })).status).toBe(200);
    expect((await post(t, ORIGIN, { origin: 'https://app.example.test' })).status).toBe(200);
    expect((await post(t, ORIGIN)).status).toBe(200);
  });

  test('another origin is refused', async () => {
    const response = await post(t, ORIGIN, { origin: 'https://attacker.example' });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { detail: string }).detail).toContain('Origin https://attacker.example');
  });
});

describe('behind a trusted proxy (TRUST_PROXY)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ trustProxy: true });
  });
  afterAll(() => t.close());

  test('a Host the proxy rewrote is served; the X-Forwarded-Host it sends is checked', async () => {
    expect((await post(t, 'http://10.1.2.3:9000')).status).toBe(200);
    expect((await post(t, 'http://10.1.2.3:9000', { 'x-forwarded-host': 'localhost' })).status).toBe(200);
    expect((await post(t, 'http://10.1.2.3:9000', { 'x-forwarded-host': 'attacker.example' })).status).toBe(403);
  });
});
