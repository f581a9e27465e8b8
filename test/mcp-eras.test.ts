import {
  Client as ClientV2,
  InsufficientScopeError,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';
import { obtainTokens } from './support/oauth.js';
import { listen } from './support/socket.js';
import { TOOL_NAMES } from './support/mcp-tool-names.js';

// Both protocol eras at one /api/mcp, over a real socket, with the official clients: the v2 SDK's
// client pinned to 2026-07-28, in `auto` mode (it probes with server/discover) and in its default
// legacy mode (initialize), and the v1 SDK's client (2025-11-25). Each lists the tools, calls a
// read tool and a write tool with an idempotency_key, and a read-only token is refused a write
// tool with the step-up challenge. They call as the same user, from the same rate-limit bucket.

/** What the server answered over the socket: each response's status and the headers a client reads. */
interface Seen {
  method: string;
  status: number;
  remaining: string | null;
  challenge: string | null;
  body: string;
}

/** One kind of client, as an agent's host makes it; `era` is the one it must land on. */
interface Kind {
  name: string;
  era: 'modern' | 'legacy';
  connect(url: URL, token: string, seen: Seen[]): Promise<McpClient>;
}

/** What the test uses of either SDK's client. */
interface McpClient {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(call: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
  era(): string | undefined;
}

/** A fetch that records what the server answered, for the assertions on headers a client library hides. */
function recording(seen: Seen[]) {
  return async (url: string | URL, init?: RequestInit) => {
    const response = await fetch(url, init);
    const body = await response.clone().text();
    seen.push({
      method: init?.method ?? 'GET',
      status: response.status,
      remaining: response.headers.get('x-ratelimit-remaining'),
      challenge: response.headers.get('www-authenticate'),
      body,
    });
    return response;
  };
}

function v2(name: string, era: Kind['era'], versionNegotiation?: ConstructorParameters<typeof ClientV2>[1]): Kind {
  return {
    name,
    era,
    async connect(url, token, seen) {
      const client = new ClientV2({ name: 'eras-test', version: '1.0.0' }, versionNegotiation);
      const transport = new TransportV2(url, {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
        fetch: recording(seen),
      });
      await client.connect(transport);
      return Object.assign(client, { era: () => client.getProtocolEra() });
    },
  };
}

const KINDS: Kind[] = [
  v2('v2 client pinned to 2026-07-28', 'modern', { versionNegotiation: { mode: { pin: '2026-07-28' } } }),
  v2('v2 client in auto mode', 'modern', { versionNegotiation: { mode: 'auto' } }),
  v2('v2 client in legacy mode (its default)', 'legacy'),
  {
    name: 'v1 client (2025-11-25)',
    era: 'legacy',
    async connect(url, token, seen) {
      const client = new ClientV1({ name: 'eras-test', version: '1.0.0' });
      const transport = new TransportV1(url, {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
        fetch: recording(seen),
      });
      await client.connect(transport);
      return Object.assign(client, { era: () => (client.getServerVersion() ? 'legacy' : undefined) });
    },
  },
];

let t: TestApp;
let socket: Awaited<ReturnType<typeof listen>>;
let url: URL;
beforeAll(async () => {
  t = await startTestApp();
  socket = await listen(t.app);
  url = new URL(`http://localhost:${socket.port}/api/mcp`);
});
afterAll(async () => {
  await socket?.close();
  await t?.close();
});

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown> };

describe.each(KINDS)('$name', (kind) => {
  test('lands on its era, lists the tools in their fixed order, calls a read tool and a write tool once', async () => {
    const seen: Seen[] = [];
    const client = await kind.connect(url, t.user('mark').token, seen);
    expect(client.era()).toBe(kind.era);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);

    const me = (await client.callTool({ name: 'who_am_i', arguments: {} })) as ToolResult;
    expect(me.structuredContent?.username).toBe('mark');

    const key = `eras-${kind.name}`;
    const args = { project_id: 'WEB', title: `Filed by the ${kind.name}`, idempotency_key: key };
    const first = (await client.callTool({ name: 'create_issue', arguments: args })) as ToolResult;
    const again = (await client.callTool({ name: 'create_issue', arguments: args })) as ToolResult;
    expect(first.isError).toBeFalsy();
    expect(again.structuredContent?.id).toBe(first.structuredContent?.id);
    expect(await t.app.db.prisma.issue.count({ where: { title: args.title } })).toBe(1);
    await client.close();
    // Every POST answered (the 2025 era's initialized notification: 202); a 2025 client's GET for a stream: 405, stateless.
    const posts = seen.filter((answer) => answer.method === 'POST');
    expect(posts.every((answer) => answer.status === 200 || answer.status === 202)).toBe(true);
    expect(seen.filter((answer) => answer.method !== 'POST').map((answer) => answer.status)).toEqual(
      kind.era === 'modern' ? [] : [405],
    );
  });

  test('a read-only token: read tools answer, a write tool is refused 403 with the step-up challenge', async () => {
    const { tokens } = await obtainTokens(t.app, await t.signIn('olivia@example.com'), t.org('acme').id, 'read');
    const seen: Seen[] = [];
    const client = await kind.connect(url, tokens.access_token!, seen);
    const read = (await client.callTool({ name: 'list_projects', arguments: {} })) as ToolResult;
    expect(read.isError).toBeFalsy();
    const refused = await client
      .callTool({ name: 'create_project', arguments: { name: 'Never', key: 'NVR' } })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Error);
    if (kind.name.startsWith('v2')) expect(refused).toBeInstanceOf(InsufficientScopeError);
    const last = seen.at(-1)!;
    expect(last.status).toBe(403);
    expect(last.challenge).toMatch(/^Bearer error="insufficient_scope", scope="read write", resource_metadata="/);
    expect(await t.app.db.prisma.project.count({ where: { key: 'NVR' } })).toBe(0);
    await client.close();
  });
});

test('a 2026-07-28 client and a 2025-11-25 client of the same user draw from the same rate-limit bucket', async () => {
  const seen: Seen[] = [];
  const token = t.user('mark').token;
  const modern = await KINDS[0]!.connect(url, token, seen);
  const legacy = await KINDS[3]!.connect(url, token, seen);
  const remaining = async (client: McpClient) => {
    await client.callTool({ name: 'who_am_i', arguments: {} });
    return Number(seen.at(-1)!.remaining);
  };
  const a = await remaining(modern);
  const b = await remaining(legacy);
  const c = await remaining(modern);
  expect(b).toBe(a - 1);
  expect(c).toBe(b - 1);
  await modern.close();
  await legacy.close();
});

test('2026-07-28 answers: server/discover offers the tools and instructions; tools/list may be cached, privately', async () => {
  const post = async (method: string) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.user('mark').token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method,
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { result: Record<string, unknown> }).result;
  };
  const discovered = await post('server/discover');
  expect(discovered).toMatchObject({
    supportedVersions: ['2026-07-28'],
    capabilities: { tools: {} },
    resultType: 'complete',
  });
  expect(discovered.instructions).toContain('organizations > projects > issues');
  const listed = await post('tools/list');
  expect(listed).toMatchObject({ ttlMs: 300_000, cacheScope: 'private', resultType: 'complete' });
});
