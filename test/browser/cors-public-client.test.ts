import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chromiumAvailable, SHOTS, signInOnPage, startHarness, type Harness } from './harness.js';

/**
 * A single-page app on another origin, as a public OAuth client (no secret) would be written:
 * discovery, dynamic registration, PKCE (S256 through WebCrypto), the redirect to consent, the
 * code exchange and API calls, all with the browser's fetch, so every step needs CORS.
 * `SERVICE` is replaced by the service's origin.
 */
const SPA_SCRIPT = String.raw`
const SERVICE = '__SERVICE__';
const out = (result) => { const pre = document.createElement('pre'); pre.id = 'result'; pre.textContent = JSON.stringify(result); document.body.append(pre); };
const b64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

async function start() {
  const metadata = await (await fetch(SERVICE + '/.well-known/oauth-authorization-server')).json();
  const resource = await (await fetch(SERVICE + '/.well-known/oauth-protected-resource/api')).json();
  // A JSON body: a CORS preflight first.
  const client = await (await fetch(metadata.registration_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Browser SPA', redirect_uris: [location.origin + '/callback'], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] }),
  })).json();
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = b64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  sessionStorage.setItem('flow', JSON.stringify({ verifier, client_id: client.client_id, token_endpoint: metadata.token_endpoint, resource: resource.resource }));
  const authorize = new URL(metadata.authorization_endpoint);
  const params = { response_type: 'code', client_id: client.client_id, redirect_uri: location.origin + '/callback', code_challenge: challenge,
    code_challenge_method: 'S256', resource: resource.resource, scope: 'read write', state: 'spa-state' };
  for (const [k, v] of Object.entries(params)) authorize.searchParams.set(k, v);
  location.assign(authorize.href);
}

async function callback() {
  const flow = JSON.parse(sessionStorage.getItem('flow'));
  const query = new URLSearchParams(location.search);
  const tokenResponse = await fetch(flow.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: query.get('code'), redirect_uri: location.origin + '/callback',
      code_verifier: flow.verifier, client_id: flow.client_id, resource: flow.resource }),
  });
  const tokens = await tokenResponse.json();
  // Authorization is not a safelisted header: a preflight first, then the call.
  const me = await fetch(SERVICE + '/api/me', { headers: { authorization: 'Bearer ' + tokens.access_token } });
  const meBody = await me.json();
  // The MCP endpoint (Streamable HTTP, stateless): initialize, then a tool call, read by the page.
  let mcp;
  try {
    const rpc = (body) =>
      fetch(SERVICE + '/api/mcp', {
        method: 'POST',
        headers: { authorization: 'Bearer ' + tokens.access_token, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify(body),
      });
    const init = await rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'spa', version: '1' } } });
    const initBody = await init.json();
    const call = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'who_am_i', arguments: {} } });
    const callBody = await call.json();
    mcp = { status: init.status, server: initBody.result && initBody.result.serverInfo.name, username: callBody.result && callBody.result.structuredContent.username };
  } catch (error) {
    mcp = { error: String(error) };
  }
  out({
    state: query.get('state'),
    iss: query.get('iss'),
    tokenStatus: tokenResponse.status,
    tokenType: tokens.token_type,
    hasRefreshToken: typeof tokens.refresh_token === 'string',
    me: { status: me.status, username: meBody.username, remaining: me.headers.get('x-ratelimit-remaining'), requestId: me.headers.get('x-request-id') },
    mcp,
  });
}

(location.pathname === '/callback' ? callback() : start()).catch((error) => out({ error: String(error) }));
`;

describe.skipIf(!chromiumAvailable)('a public OAuth client in a browser page on another origin', () => {
  let h: Harness;
  let spa: Server;
  let spaOrigin: string;
  beforeAll(async () => {
    h = await startHarness();
    // The second origin: another port, so another origin (but the same site: the session cookie is sent when a page asks).
    spa = createServer((req, res) => {
      if (req.url === '/app.js')
        return res.writeHead(200, { 'content-type': 'text/javascript' }).end(SPA_SCRIPT.replace('__SERVICE__', h.base));
      if (req.url === '/' || req.url?.startsWith('/callback')) {
        return res
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<!doctype html><title>SPA</title><h1>Browser SPA</h1><script src="/app.js"></script>');
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => spa.listen(0, '127.0.0.1', resolve));
    spaOrigin = `http://127.0.0.1:${(spa.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => spa?.close(resolve));
    await h?.close();
  });

  test('discovers, registers, runs PKCE through consent, exchanges the code and calls the API; the session cookie does not work from there', async () => {
    const { page, base } = h;
    expect(new URL(spaOrigin).origin).not.toBe(new URL(base).origin);
    const failedRequests: string[] = [];
    page.on('requestfailed', (request) =>
      failedRequests.push(`${request.method()} ${request.url()} ${request.failure()?.errorText}`),
    );

    await page.goto(`${spaOrigin}/`);
    await expect.poll(() => page.url(), { timeout: 15_000 }).toContain('/login?next=');
    await signInOnPage(page, 'mark@example.com');
    await page.getByRole('heading', { name: 'Authorize Browser SPA' }).waitFor();
    await page.getByLabel('Globex').check();
    await page.getByRole('button', { name: 'Allow' }).click();
    const result = JSON.parse((await page.locator('#result').textContent({ timeout: 15_000 })) ?? '{}');
    await page.screenshot({ path: `${SHOTS}/cors-spa-callback.png`, fullPage: true });

    expect(result).toMatchObject({
      state: 'spa-state',
      iss: base,
      tokenStatus: 200,
      tokenType: 'Bearer',
      hasRefreshToken: true,
    });
    // The page read the API's answer and the headers it needs (exposed through CORS).
    expect(result.me).toMatchObject({ status: 200, username: 'mark' });
    expect(Number(result.me.remaining)).toBeGreaterThan(0);
    expect(result.me.requestId).toMatch(/.+/);
    // The MCP endpoint answered the page (the preflight with MCP's headers passed) and a tool ran as the user.
    expect(result.mcp).toEqual({ status: 200, server: 'workmgmt', username: result.me.username });
    expect(failedRequests).toEqual([]);

    // Same page, same browser, with the session cookie the person just signed in with.
    const cookies = await page.context().cookies(base);
    expect(cookies.length).toBeGreaterThan(0);
    const withCookie = await page.evaluate(async (service) => {
      const attempt = async (init: RequestInit & { url: string }) => {
        try {
          const r = await fetch(init.url, init);
          return { status: r.status, body: await r.text() };
        } catch (error) {
          return { error: String(error) };
        }
      };
      return {
        // The cookie goes along (same site), but without Access-Control-Allow-Credentials the browser withholds the answer.
        read: await attempt({ url: `${service}/api/me`, credentials: 'include' }),
        graphql: await attempt({ url: `${service}/api/graphql?query=%7Bme%7Busername%7D%7D`, credentials: 'include' }),
        write: await attempt({
          url: `${service}/api/projects`,
          method: 'POST',
          credentials: 'include',
          headers: { 'content-type': 'application/json', 'x-org-id': 'ignored' },
          body: JSON.stringify({ name: 'Cross-origin', key: 'XO' }),
        }),
        // Without credentials the API sees no one.
        plain: await attempt({ url: `${service}/api/me` }),
      };
    }, base);
    expect(withCookie.read).toEqual({ error: 'TypeError: Failed to fetch' });
    expect(withCookie.graphql).toEqual({ error: 'TypeError: Failed to fetch' });
    expect(withCookie.write).toEqual({ error: 'TypeError: Failed to fetch' });
    expect(withCookie.plain.status).toBe(401);
    expect(JSON.parse(withCookie.plain.body!).code).toBe('unauthenticated');

    // Nothing was created by the cookie-carrying write.
    const projects = await h.app.db.prisma.project.findMany({ where: { key: 'XO' } });
    expect(projects).toEqual([]);
  });
});
