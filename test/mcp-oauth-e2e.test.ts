import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
  UnauthorizedError as UnauthorizedErrorV2,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { seedDemo, type DemoSeed } from '../src/cli/demo-data.js';
import { testConfig } from '../src/config.js';
import { openTestDatabase } from './support/database.js';
import { PASSWORD } from './support/app.js';
import { TOOL_NAMES } from './support/mcp-tool-names.js';

// The MCP TypeScript SDK's own client, over a real socket, through the whole authorization:
// discovery from a 401, registration (or a Client ID Metadata Document), PKCE, the person's
// consent with the org picker, tools, refresh, and revocation from the Authorized applications page.

const CALLBACK = 'http://127.0.0.1:43210/callback';

async function freePort(): Promise<number> {
  const server = createNetServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A self-signed certificate for localhost and 127.0.0.1 (the CIMD host of the test). */
function selfSigned(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'cimd-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
}

/** An OAuthClientProvider as an agent keeps one: in memory, and "opening the browser" records the URL. */
class TestProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  constructor(
    readonly clientMetadata: OAuthClientMetadata,
    readonly clientMetadataUrl?: string,
  ) {}
  get redirectUrl() {
    return CALLBACK;
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

let app: App;
let seed: DemoSeed;
let base: string;
let closeSocket: () => Promise<void>;
let closeDb: () => Promise<void>;
let cimd: HttpsServer;
let cimdBase: string;
const cimdHits: string[] = [];
const documents = new Map<string, { body: unknown; headers?: Record<string, string> }>();

beforeAll(async () => {
  const tls = selfSigned();
  cimd = createHttpsServer(tls, (req, res) => {
    cimdHits.push(req.url!);
    const doc = documents.get(req.url!);
    if (!doc) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json', ...doc.headers }).end(JSON.stringify(doc.body));
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => cimd.once('listening', resolve));
  cimdBase = `https://localhost:${(cimd.address() as AddressInfo).port}`;

  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const db = await openTestDatabase();
  seed = await seedDemo(db.prisma, { password: PASSWORD });
  // The operator allows the test's CIMD host, which is loopback, and trusts its certificate.
  app = await createApp(
    testConfig({ baseUrl: base, port, clientMetadata: { allowedHosts: ['localhost'], caPem: tls.cert } }),
    { db },
  );
  const server = createNodeServerOn(app, port);
  closeSocket = (await server).close;
  closeDb = () => db.close();
});

afterAll(async () => {
  await closeSocket?.();
  await app?.close();
  await closeDb?.();
  cimd?.close();
});

/** The app on a real socket at a port chosen before the app exists (its base URL, the OAuth resource, names the port). */
async function createNodeServerOn(target: App, port: number) {
  const { createNodeServer } = await import('../src/http/node-server.js');
  const server = createNodeServer(target);
  server.listen(port, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The person, in a browser: signs in, reads the consent page, picks an organization, allows. Returns the code. */
async function personConsents(
  authorizationUrl: URL,
  email: string,
  orgName: string,
): Promise<{ code: string; page: string; callback: URLSearchParams }> {
  const login = await fetch(`${base}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password: PASSWORD, next: '/' }),
  });
  expect(login.status).toBe(303);
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const shown = await fetch(authorizationUrl, { headers: { cookie }, redirect: 'manual' });
  const page = await shown.text();
  expect(shown.status, page).toBe(200);
  // The org picker: one radio per organization, the person picks by name.
  const radios = [...page.matchAll(/name="org_id" value="([^"]+)"[^>]*> ([^<]+) <span/g)];
  const org = radios.find((r) => r[2]!.trim() === orgName);
  expect(org, `no ${orgName} among ${radios.map((r) => r[2]).join(', ')}`).toBeTruthy();
  const hidden = [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [
    m[1]!,
    decodeEntities(m[2]!),
  ]);
  const decided = await fetch(`${base}/oauth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, origin: base, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams([...hidden, ['org_id', org![1]!], ['decision', 'allow']]),
  });
  expect(decided.status).toBe(302);
  const location = new URL(decided.headers.get('location')!);
  expect(location.origin + location.pathname).toBe(CALLBACK);
  return { code: location.searchParams.get('code')!, page, callback: location.searchParams };
}

const decodeEntities = (s: string) =>
  s
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');

function transportFor(provider: TestProvider) {
  return new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), { authProvider: provider });
}

/** Connects; on the first 401 the SDK discovers, registers and sends the person to consent; then it finishes. */
async function authorizeAndConnect(
  provider: TestProvider,
  email: string,
  orgName: string,
): Promise<{ client: Client; page: string }> {
  const first = new Client({ name: 'e2e', version: '1.0.0' });
  await expect(first.connect(transportFor(provider))).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl).toBeDefined();
  const { code, page } = await personConsents(provider.authorizationUrl!, email, orgName);
  const transport = transportFor(provider);
  await transport.finishAuth(code);
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(transport);
  return { client, page };
}

async function revokeFromPage(email: string, clientName: string): Promise<void> {
  const login = await fetch(`${base}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password: PASSWORD, next: '/' }),
  });
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const listing = await (await fetch(`${base}/settings/applications`, { headers: { cookie } })).text();
  expect(listing).toContain(clientName);
  const action = new RegExp(
    `${clientName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[\\s\\S]*?action="(/settings/applications/[^"]+/revoke)"`,
  ).exec(listing);
  expect(action).toBeTruthy();
  const revoked = await fetch(`${base}${action![1]}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, origin: base },
  });
  expect(revoked.status).toBe(303);
  const after = await (await fetch(new URL(revoked.headers.get('location')!, base), { headers: { cookie } })).text();
  expect(after).toContain(`“${clientName}” can no longer act for you.`);
  expect(after).not.toContain(`<strong>${clientName}</strong>`);
}

describe('the MCP SDK client completes our OAuth and uses the tools', () => {
  test('dynamic registration: 401 discovery, registration, PKCE, consent with the org picker, tools, refresh, revocation -> 401', async () => {
    const provider = new TestProvider({
      client_name: 'SDK Agent',
      redirect_uris: [CALLBACK],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
    });
    // Mark is in Acme and Globex; he picks Globex.
    const { client, page } = await authorizeAndConnect(provider, 'mark@example.com', 'Globex');
    expect(provider.info?.client_id).toMatch(/^client_/);
    expect(page).toContain('What it can do in Globex, as member');
    expect(provider.saved?.refresh_token).toMatch(/^rt_/);

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    const orgs = await client.callTool({ name: 'list_my_orgs', arguments: {} });
    expect((orgs.structuredContent as { orgs: { org_slug: string }[] }).orgs.map((o) => o.org_slug)).toEqual([
      'globex',
    ]);
    const projects = (await client.callTool({ name: 'list_projects', arguments: {} })).structuredContent as {
      items: { id: string }[];
    };
    const created = await client.callTool({
      name: 'create_issue',
      arguments: { project_id: projects.items[0]!.id, title: 'Filed by an agent' },
    });
    expect(created.isError).toBeFalsy();
    expect(
      await app.db.prisma.issue.count({
        where: { title: 'Filed by an agent', orgId: seed.orgs.find((o) => o.slug === 'globex')!.id },
      }),
    ).toBe(1);

    // Refresh: the access token is gone bad; the SDK meets a 401, refreshes with the refresh token, and retries.
    const oldRefresh = provider.saved!.refresh_token;
    provider.saved = { ...provider.saved!, access_token: 'expired.access.token' };
    const again = new Client({ name: 'e2e', version: '1.0.0' });
    await again.connect(transportFor(provider));
    expect(provider.saved.refresh_token).not.toBe(oldRefresh);
    expect((await again.callTool({ name: 'who_am_i', arguments: {} })).isError).toBeFalsy();

    // The grant records its use, shown on the page.
    const grant = await app.db.prisma.oAuthGrant.findFirstOrThrow({ where: { clientId: provider.info!.client_id } });
    expect(grant.lastUsedAt).not.toBeNull();

    await revokeFromPage('mark@example.com', 'SDK Agent');
    const raw = await fetch(`${base}/api/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${provider.saved.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // The SDK client: 401, then its refresh token is refused too (invalid_grant: the grant is gone).
    await expect(again.callTool({ name: 'who_am_i', arguments: {} })).rejects.toThrow(/authorization has been revoked/);
  });

  test('the v2 SDK client pinned to 2026-07-28: 401 discovery, registration, PKCE, consent, tools, refresh', async () => {
    const provider = new TestProvider({
      client_name: 'Modern Agent',
      redirect_uris: [CALLBACK],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
    });
    const pinned = () =>
      new ClientV2({ name: 'e2e-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const transport = () => new TransportV2(new URL(`${base}/api/mcp`), { authProvider: provider });
    await expect(pinned().connect(transport())).rejects.toBeInstanceOf(UnauthorizedErrorV2);
    const { callback } = await personConsents(provider.authorizationUrl!, 'olivia@example.com', 'Acme Corp');
    const authorized = transport();
    // The whole callback: the v2 client checks its `iss` against the issuer it discovered (RFC 9207).
    await authorized.finishAuth(callback);
    const client = pinned();
    await client.connect(authorized);
    expect(client.getProtocolEra()).toBe('modern');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    const args = { project_id: 'WEB', title: 'Filed by a 2026 agent', idempotency_key: 'e2e-modern-once' };
    const first = await client.callTool({ name: 'create_issue', arguments: args });
    const again = await client.callTool({ name: 'create_issue', arguments: args });
    expect(first.isError).toBeFalsy();
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(await app.db.prisma.issue.count({ where: { title: args.title } })).toBe(1);

    // Refresh: the access token is gone bad; the client meets a 401, refreshes, and retries.
    const oldRefresh = provider.saved!.refresh_token;
    provider.saved = { ...provider.saved!, access_token: 'expired.access.token' };
    const later = pinned();
    await later.connect(transport());
    expect(provider.saved.refresh_token).not.toBe(oldRefresh);
    const me = await later.callTool({ name: 'who_am_i', arguments: {} });
    expect((me.structuredContent as { username: string }).username).toBe('olivia');
  });

  test('Client ID Metadata Document: the client_id is an https URL we fetch, check and cache; its host is on the consent page', async () => {
    const clientId = `${cimdBase}/agent/client.json`;
    documents.set('/agent/client.json', {
      body: {
        client_id: clientId,
        client_name: 'CIMD Agent',
        redirect_uris: [CALLBACK],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
      },
      headers: { 'cache-control': 'max-age=600' },
    });
    const provider = new TestProvider(
      {
        client_name: 'CIMD Agent',
        redirect_uris: [CALLBACK],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
      },
      clientId,
    );
    const registered = await app.db.prisma.oAuthClient.count();
    const { client, page } = await authorizeAndConnect(provider, 'olivia@example.com', 'Acme Corp');
    expect(provider.info?.client_id).toBe(clientId);
    expect(page).toContain(new URL(cimdBase).host);
    expect(page).toContain('CIMD Agent');
    // Mirrored once for grants to refer to; no registration happened.
    expect(await app.db.prisma.oAuthClient.count()).toBe(registered + 1);
    // Fetched once: the consent page and the decision used the cached document (max-age=600).
    expect(cimdHits.filter((p) => p === '/agent/client.json')).toHaveLength(1);
    const result = await client.callTool({ name: 'search_people', arguments: { q: 'mark' } });
    expect(result.isError).toBeFalsy();
    await revokeFromPage('olivia@example.com', 'CIMD Agent');
    await expect(client.callTool({ name: 'who_am_i', arguments: {} })).rejects.toThrow(
      /authorization has been revoked/,
    );
  });

  test('metadata documents that cannot be used are error pages, never 500s', async () => {
    const authorize = (clientId: string) =>
      fetch(
        `${base}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: CALLBACK, code_challenge: 'a'.repeat(43), code_challenge_method: 'S256', resource: `${base}/api` })}`,
        { redirect: 'manual' },
      );
    documents.set('/wrong-id.json', {
      body: { client_id: 'https://elsewhere.example/client.json', redirect_uris: [CALLBACK] },
    });
    documents.set('/bad-redirect.json', {
      body: { client_id: `${cimdBase}/bad-redirect.json`, redirect_uris: ['javascript:alert(1)'] },
    });
    documents.set('/no-store.json', {
      body: { client_id: `${cimdBase}/no-store.json`, redirect_uris: ['https://other.example/cb'] },
      headers: { 'cache-control': 'no-store' },
    });
    const cases: [string, string][] = [
      [`${cimdBase}/wrong-id.json`, 'names another client_id'],
      [`${cimdBase}/bad-redirect.json`, 'javascript: scheme is not allowed'],
      [`${cimdBase}/missing.json`, 'answered 404'],
      // Not on the operator's allow-list, and loopback: refused after DNS resolution.
      [`https://127.0.0.1:${new URL(cimdBase).port}/agent/client.json`, 'not a public address'],
      [`${cimdBase}/no-store.json`, 'redirect_uri does not match'],
    ];
    for (const [clientId, message] of cases) {
      const response = await authorize(clientId);
      const text = await response.text();
      expect(response.status, text).toBe(400);
      expect(decodeEntities(text)).toContain(message);
    }
    // no-store: fetched each time.
    await authorize(`${cimdBase}/no-store.json`);
    expect(cimdHits.filter((p) => p === '/no-store.json')).toHaveLength(2);
    const metadata = await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json();
    expect(metadata.client_id_metadata_document_supported).toBe(true);
  });
});
