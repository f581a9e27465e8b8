import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';
import { obtainTokens } from './support/oauth.js';

// Tool selection (src/mcp/tool-selection.ts): the toolsets and read-only mode a client chooses
// with headers or the URL's parameters, and the tools a read-only credential lists; in both eras.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const READ_TOOLS = [
  'who_am_i',
  'list_my_orgs',
  'list_projects',
  'get_project',
  'list_issues',
  'get_issue',
  'list_comments',
  'list_labels',
  'search_people',
  'palette_search',
];
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Answer {
  status: number;
  body: {
    result?: { tools?: { name: string; annotations: { readOnlyHint: boolean }; _meta: unknown }[] };
    error?: { code: number; message: string };
  };
}

/** One JSON-RPC request, 2025-style (no `_meta`) or 2026-07-28-style, with the caller's token. */
async function rpc(
  method: string,
  params: Record<string, unknown> = {},
  { headers = {}, query = '', token = t.user('mark').token, modern = false } = {},
): Promise<Answer> {
  const name = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  const era = modern ? { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...name } : {};
  const response = await t.app.fetch(
    new Request(`${ORIGIN}/api/mcp${query}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...era,
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method,
        params: modern ? { ...params, _meta: MODERN_META } : params,
      }),
    }),
  );
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

const names = (answer: Answer) => answer.body.result?.tools?.map((tool) => tool.name);

describe.each([false, true])('2026-07-28 era: %s', (modern) => {
  test('X-MCP-Toolsets lists the tools of the named toolsets, in their fixed order', async () => {
    const issues = await rpc('tools/list', {}, { modern, headers: { 'x-mcp-toolsets': 'issues' } });
    expect(names(issues)).toEqual([
      'list_issues',
      'create_issue',
      'bulk_issues',
      'get_issue',
      'update_issue',
      'delete_issue',
      'list_comments',
      'create_comment',
      'update_comment',
      'delete_comment',
      'list_labels',
      'create_label',
      'update_label',
      'delete_label',
      'add_issue_labels',
      'set_issue_labels',
      'remove_issue_label',
      'palette_search',
    ]);
    const two = await rpc('tools/list', {}, { modern, headers: { 'x-mcp-toolsets': 'account, people' } });
    expect(names(two)).toEqual(['who_am_i', 'list_my_orgs', 'search_people', 'palette_search']);
  });

  test('X-MCP-Readonly: true lists the read tools only', async () => {
    const answer = await rpc('tools/list', {}, { modern, headers: { 'x-mcp-readonly': 'true' } });
    expect(names(answer)).toEqual(READ_TOOLS);
  });

  test('the URL may choose instead (?toolsets=&readonly=), and a header wins over it', async () => {
    const query = '?toolsets=projects&readonly=true';
    expect(names(await rpc('tools/list', {}, { modern, query }))).toEqual([
      'list_projects',
      'get_project',
      'palette_search',
    ]);
    const overridden = await rpc('tools/list', {}, { modern, query, headers: { 'x-mcp-toolsets': 'account' } });
    expect(names(overridden)).toEqual(['who_am_i', 'list_my_orgs']);
  });

  test('a tool the selection leaves out cannot be called, and says why', async () => {
    const answer = await rpc(
      'tools/call',
      { name: 'create_issue', arguments: { project_id: 'WEB', title: 'Hidden' } },
      { modern, headers: { 'x-mcp-readonly': 'true' } },
    );
    expect(answer.body.error?.code).toBe(-32602);
    expect(answer.body.error?.message).toContain('not among this connection');
    expect(await t.app.db.prisma.issue.count({ where: { title: 'Hidden' } })).toBe(0);
  });

  test('an unknown toolset or a readonly that is no boolean is refused, naming the toolsets', async () => {
    const unknown = await rpc('tools/list', {}, { modern, headers: { 'x-mcp-toolsets': 'issues,wiki' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error?.message).toContain('"wiki": the toolsets are issues, projects, people, account');
    const maybe = await rpc('tools/list', {}, { modern, query: '?readonly=maybe' });
    expect(maybe.status).toBe(400);
    // A hostile selection (thousands of names, each valid) is refused by its length, before it is split.
    const flood = await rpc('tools/list', {}, { modern, headers: { 'x-mcp-toolsets': 'issues,'.repeat(1000) } });
    expect(flood.status).toBe(400);
    expect(flood.body.error?.message).toContain('X-MCP-Toolsets is too long');
    const longest = await rpc(
      'tools/list',
      {},
      { modern, headers: { 'x-mcp-toolsets': 'issues, projects, people, account' } },
    );
    expect(longest.status).toBe(200);
  });

  test('a read-only token lists the read tools; calling a write tool is still the step-up challenge', async () => {
    const { tokens } = await obtainTokens(t.app, await t.signIn('olivia@example.com'), t.org('acme').id, 'read');
    const token = tokens.access_token!;
    expect(names(await rpc('tools/list', {}, { modern, token }))).toEqual(READ_TOOLS);
    // Even when the connection's own selection leaves the tool out.
    const headers = { 'x-mcp-toolsets': 'account' };
    const refused = await rpc(
      'tools/call',
      { name: 'delete_issue', arguments: { id: 'WEB-1' } },
      { modern, token, headers },
    );
    expect(refused.status).toBe(403);
  });
});

test('each tool declares the scope it needs: read for the tools that only read, write for the others', async () => {
  const { body } = await rpc('tools/list');
  for (const tool of body.result!.tools!) {
    const scope = tool.annotations.readOnlyHint ? 'read' : 'write';
    expect(tool._meta, tool.name).toEqual({ securitySchemes: [{ type: 'oauth2', scopes: [scope] }] });
  }
});

test('the v2 client pinned to 2026-07-28, configured with the headers, sees the selection', async () => {
  const client = new Client(
    { name: 'selection', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${ORIGIN}/api/mcp`), {
    requestInit: {
      headers: {
        authorization: `Bearer ${t.user('mark').token}`,
        'x-mcp-toolsets': 'projects',
        'x-mcp-readonly': 'true',
      },
    },
    fetch: (url, init) => t.app.fetch(new Request(url, init)),
  });
  await client.connect(transport);
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(['list_projects', 'get_project', 'palette_search']);
  await client.close();
});
