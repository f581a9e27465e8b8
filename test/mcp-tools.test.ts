import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';
import { obtainTokens } from './support/oauth.js';
import { TOOL_NAMES } from './support/mcp-tool-names.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** The SDK's own client, its HTTP going through the real stack (app.fetch). */
async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${ORIGIN}/api/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: (url, init) => t.app.fetch(new Request(url, init)),
  });
  await client.connect(transport);
  return client;
}

type Problem = { code: string; status: number; errors?: { field: string; message: string }[] };
const problemOf = (result: object) => {
  const { isError, content } = result as { isError?: boolean; content: { text: string }[] };
  expect(isError).toBe(true);
  return JSON.parse(content[0]!.text) as Problem;
};

describe('tools/list', () => {
  test('every tool, with an input schema, an output schema and the hints its method implies', async () => {
    const client = await connect(t.user('mark').token);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.list_issues!.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(byName.create_issue!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    });
    expect(byName.delete_project!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(byName.update_issue!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(byName.list_issues!.inputSchema.properties).toHaveProperty('cursor');
    expect(byName.list_issues!.inputSchema.properties).toHaveProperty('status');
    expect(byName.create_issue!.inputSchema.required).toEqual(['project_id', 'title']);
    expect(byName.delete_project!.inputSchema.required).toEqual(['id']);
    expect(byName.list_issues!.outputSchema).toMatchObject({ type: 'object', required: ['items', 'next_cursor'] });
    expect(byName.get_issue!.outputSchema).toMatchObject({ type: 'object' });
    expect(byName.delete_issue!.outputSchema).toBeUndefined();
    expect(byName.create_comment!.inputSchema.required).toEqual(['id', 'body']);
    expect(byName.update_comment!.inputSchema.required).toEqual(['id', 'comment_id']);
    expect(byName.list_comments!.outputSchema).toMatchObject({ type: 'object', required: ['items', 'next_cursor'] });
    // Every schema is self-contained (no references into the OpenAPI document).
    expect(JSON.stringify(tools)).not.toContain('$ref');
    await client.close();
  });
});

describe('tool descriptions say what the tool returns', () => {
  /** The field names a description promises after "Returns", in its first `{ ... }`. */
  const promised = (description: string) => /Returns [^`]*`\{ ([^}]*) \}`/.exec(description)?.[1]?.split(', ');

  test('list_issues promises { items, next_cursor }, which is what it returns, and no REST header or bare array', async () => {
    const client = await connect(t.user('mark').token);
    const { tools } = await client.listTools();
    const listIssues = tools.find((tool) => tool.name === 'list_issues')!;
    expect(listIssues.description).toContain('Returns `{ items, next_cursor }`');
    expect(listIssues.description).not.toMatch(/bare array|Link/);
    expect((listIssues.inputSchema.properties!.cursor as { description: string }).description).toContain(
      '`next_cursor`',
    );
    const first = (await client.callTool({ name: 'list_issues', arguments: { limit: 2 } })).structuredContent as {
      items: { key: string }[];
      next_cursor: string;
    };
    expect(Object.keys(first).sort()).toEqual(['items', 'next_cursor']);
    expect(Object.keys(first.items[0]!)).toEqual(
      promised(listIssues.description!.split('each ')[1]!.replace(/^/, 'Returns ')),
    );
    const second = (await client.callTool({ name: 'list_issues', arguments: { limit: 2, cursor: first.next_cursor } }))
      .structuredContent as { items: { key: string }[] };
    expect(second.items.map((i) => i.key)).not.toContain(first.items[0]!.key);
    await client.close();
  });

  test("each read tool's result has exactly the top-level fields its description promises; no description says a sentence twice", async () => {
    const client = await connect(t.user('olivia').token);
    const { tools } = await client.listTools();
    const calls: Record<string, Record<string, unknown>> = {
      who_am_i: {},
      list_my_orgs: {},
      list_projects: {},
      get_project: { id: 'WEB' },
      get_issue: { id: 'WEB-1' },
      search_people: { q: 'o' },
      palette_search: { q: 'web' },
    };
    for (const [name, args] of Object.entries(calls)) {
      const tool = tools.find((candidate) => candidate.name === name)!;
      const result = (await client.callTool({ name, arguments: args })).structuredContent!;
      expect(Object.keys(result), name).toEqual(promised(tool.description!));
    }
    for (const tool of tools) {
      const sentences = tool
        .description!.split(/(?<=\.) /)
        .map((sentence) => sentence.toLowerCase().replace(/\.$/, ''));
      expect(
        sentences.filter((sentence, i) =>
          sentences.some((other, j) => j !== i && (other === sentence || other.startsWith(`${sentence} `))),
        ),
        tool.name,
      ).toEqual([]);
      expect(tool.description, tool.name).not.toMatch(/bare array|`Link` header/);
    }
    const palette = tools.find((tool) => tool.name === 'palette_search')!;
    expect(palette.description).toMatch(/^Command-palette search of the caller's organization/);
    await client.close();
  });
});

describe('calling tools', () => {
  test('read tools answer structured content the client validates against the output schema', async () => {
    const mark = t.user('mark');
    const client = await connect(mark.token);
    const me = await client.callTool({ name: 'who_am_i', arguments: {} });
    expect(me.isError).toBeFalsy();
    expect(me.structuredContent).toMatchObject({ id: mark.id, username: 'mark' });
    expect(JSON.parse((me.content as { text: string }[])[0]!.text)).toEqual(me.structuredContent);
    const orgs = await client.callTool({ name: 'list_my_orgs', arguments: {} });
    expect((orgs.structuredContent as { count: number }).count).toBe(1);
    const people = await client.callTool({ name: 'search_people', arguments: { q: 'oli' } });
    expect((people.structuredContent as { items: { username: string }[] }).items.map((p) => p.username)).toContain(
      'olivia',
    );
    await client.close();
  });

  test('list_issues: filters, sort and cursors as the REST list', async () => {
    const client = await connect(t.user('mark').token);
    const first = await client.callTool({
      name: 'list_issues',
      arguments: { limit: 2, sort: 'title', direction: 'asc' },
    });
    const page1 = first.structuredContent as { items: { title: string; id: string }[]; next_cursor: string | null };
    expect(page1.items).toHaveLength(2);
    expect(page1.next_cursor).toEqual(expect.any(String));
    const second = await client.callTool({
      name: 'list_issues',
      arguments: { limit: 2, sort: 'title', direction: 'asc', cursor: page1.next_cursor },
    });
    const page2 = second.structuredContent as typeof page1;
    const rest = await (
      await t.call('GET', '/api/issues?limit=4&sort=title&direction=asc', { token: t.user('mark').token })
    ).json();
    expect([...page1.items, ...page2.items].map((i) => i.id)).toEqual((rest as { id: string }[]).map((i) => i.id));
    const filtered = await client.callTool({
      name: 'list_issues',
      arguments: { status: ['Done', 'Todo'], priority: ['urgent'] },
    });
    const items = (filtered.structuredContent as typeof page1).items as unknown as {
      status: string;
      priority: string;
    }[];
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((i) => ['Done', 'Todo'].includes(i.status) && i.priority === 'urgent')).toBe(true);
    await client.close();
  });

  test('write tools: create, update, delete, with the role the REST route needs', async () => {
    const client = await connect(t.user('maya').token);
    const created = await client.callTool({ name: 'create_project', arguments: { name: 'Agents', key: 'AGT' } });
    const project = created.structuredContent as { id: string; key: string };
    expect(project.key).toBe('AGT');
    const issue = (
      await client.callTool({
        name: 'create_issue',
        arguments: { project_id: project.id, title: 'From a tool', priority: 'high' },
      })
    ).structuredContent as {
      id: string;
      key: string;
    };
    expect(issue.key).toBe('AGT-1');
    const changed = await client.callTool({
      name: 'update_issue',
      arguments: { id: issue.key, status: 'Done', description: null },
    });
    expect(changed.structuredContent).toMatchObject({ id: issue.id, status: 'Done', description: null });
    expect(
      (await t.call('GET', `/api/issues/${issue.id}`, { token: t.user('maya').token }).then((r) => r.json())) as object,
    ).toMatchObject({ status: 'Done' });
    const refused = problemOf(await client.callTool({ name: 'delete_project', arguments: { id: project.id } }));
    expect(refused).toMatchObject({ status: 409, code: 'conflict' });
    const deleted = await client.callTool({ name: 'delete_project', arguments: { id: project.id, force: true } });
    expect(deleted.isError).toBeFalsy();
    expect((await t.call('GET', `/api/projects/${project.id}`, { token: t.user('maya').token })).status).toBe(404);
    await client.close();

    const viewer = await connect(t.user('victor').token);
    const forbidden = problemOf(
      await viewer.callTool({ name: 'create_project', arguments: { name: 'No', key: 'NO' } }),
    );
    expect(forbidden).toMatchObject({ status: 403, code: 'forbidden' });
    await viewer.close();
  });

  test('invalid arguments: an error result naming every invalid field, never a crash', async () => {
    const client = await connect(t.user('maya').token);
    const bad = problemOf(
      await client.callTool({
        name: 'create_issue',
        arguments: { project_id: 'no pe', title: '', priority: 'someday', colour: 'red' },
      }),
    );
    expect(bad.code).toBe('validation_failed');
    expect(bad.errors!.map((e) => e.field).sort()).toEqual(['colour', 'priority', 'project_id', 'title']);
    const list = problemOf(
      await client.callTool({ name: 'list_issues', arguments: { limit: 0, sort: 'colour', status: ['Someday'] } }),
    );
    expect(list.errors!.map((e) => e.field).sort()).toEqual(['limit', 'sort', 'status']);
    const extra = problemOf(await client.callTool({ name: 'who_am_i', arguments: { verbose: true } }));
    expect(extra.errors).toEqual([{ field: 'verbose', message: 'unknown argument' }]);
    const missing = problemOf(await client.callTool({ name: 'get_issue', arguments: {} }));
    expect(missing.errors!.map((e) => e.field)).toEqual(['id']);
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(
      /No tool named no_such_tool/,
    );
    await client.close();
  });

  test("another organization's rows are 404 results, exactly like missing ones", async () => {
    const bella = await connect(t.user('bella', 'globex').token);
    const acmeIssue = await t.app.db.prisma.issue.findFirstOrThrow({ where: { orgId: t.org('acme').id } });
    expect(problemOf(await bella.callTool({ name: 'get_issue', arguments: { id: acmeIssue.id } }))).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    expect(problemOf(await bella.callTool({ name: 'delete_issue', arguments: { id: acmeIssue.id } }))).toMatchObject({
      status: 404,
    });
    await bella.close();
  });
});

describe('rate limits', () => {
  test("tool calls draw from the same bucket as the caller's REST calls", async () => {
    const token = t.user('adam').token;
    const remaining = (response: Response) => Number(response.headers.get('x-ratelimit-remaining'));
    const before = remaining(await t.call('GET', '/api/me', { token }));
    const mcp = await t.call('POST', '/api/mcp', {
      token,
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'who_am_i', arguments: {} } },
    });
    expect(mcp.status).toBe(200);
    expect(remaining(mcp)).toBe(before - 1);
    expect(remaining(await t.call('GET', '/api/me', { token }))).toBe(before - 2);
  });
});

describe('scopes and challenges', () => {
  test('a read-only OAuth token: read tools work, write tools are refused 403 insufficient_scope with a step-up challenge', async () => {
    const { tokens } = await obtainTokens(t.app, await t.signIn('olivia@example.com'), t.org('acme').id, 'read');
    const client = await connect(tokens.access_token!);
    expect((await client.callTool({ name: 'list_projects', arguments: {} })).isError).toBeFalsy();
    const error = await client
      .callTool({ name: 'create_project', arguments: { name: 'X', key: 'XX' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(403);
    expect(String(error)).toContain('insufficient_scope');
    await client.close();

    const raw = await t.app.fetch(
      new Request(`${ORIGIN}/api/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tokens.access_token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'delete_issue', arguments: { id: 'WEB-1' } },
        }),
      }),
    );
    expect(raw.status).toBe(403);
    expect(raw.headers.get('www-authenticate')).toMatch(
      /^Bearer error="insufficient_scope", scope="read write", resource_metadata="http:\/\/localhost:4000\/\.well-known\/oauth-protected-resource\/api"/,
    );
    expect(await t.app.db.prisma.project.count({ where: { key: 'XX' } })).toBe(0);
  });

  test('no credential: 401 with the RFC 9728 challenge (resource_metadata and scope)', async () => {
    const response = await t.app.fetch(
      new Request(`${ORIGIN}/api/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{}',
      }),
    );
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="http://localhost:4000/api", resource_metadata="http://localhost:4000/.well-known/oauth-protected-resource/api", scope="read write"',
    );
  });

  test('stateless: GET and DELETE are 405, and no session id is handed out', async () => {
    const token = t.user('mark').token;
    for (const method of ['GET', 'DELETE']) {
      const response = await t.call(method, '/api/mcp', { token, headers: { accept: 'text/event-stream' } });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
    const init = await t.call('POST', '/api/mcp', {
      token,
      headers: { accept: 'application/json, text/event-stream' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      },
    });
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toBeNull();
    expect(init.headers.get('x-ratelimit-limit')).toBe('600');
  });
});

describe('retries of a create (idempotency_key)', () => {
  test('the same key and arguments return the first result without a second issue; other arguments are refused', async () => {
    const client = await connect(t.user('mark').token);
    const project = (
      (await client.callTool({ name: 'list_projects', arguments: {} })).structuredContent as { items: { id: string }[] }
    ).items[0]!;
    const key = crypto.randomUUID();
    const args = { project_id: project.id, title: 'Created once, however often it is retried', idempotency_key: key };
    const first = (await client.callTool({ name: 'create_issue', arguments: args })).structuredContent as {
      id: string;
    };
    // The same arguments in another order are the same request.
    const retry = (
      await client.callTool({
        name: 'create_issue',
        arguments: { idempotency_key: key, title: args.title, project_id: project.id },
      })
    ).structuredContent as { id: string };
    expect(retry.id).toBe(first.id);
    expect(await t.app.db.prisma.issue.count({ where: { title: args.title } })).toBe(1);
    // The create's transaction marked the key: a retry after a crash can tell it ran (src/idempotency/claim.ts).
    expect(await t.app.db.prisma.idempotencyKey.findFirst({ where: { key } })).toMatchObject({
      committedAt: expect.any(Date),
      opaque: false,
    });

    const reused = problemOf(
      await client.callTool({ name: 'create_issue', arguments: { ...args, title: 'Another issue' } }),
    );
    expect(reused.code).toBe('idempotency_key_reused');
    expect(await t.app.db.prisma.issue.count({ where: { title: 'Another issue' } })).toBe(0);

    // Keys are per user: another member's same key is a new request.
    const other = await connect(t.user('olivia').token);
    const theirs = (await other.callTool({ name: 'create_issue', arguments: args })).structuredContent as {
      id: string;
    };
    expect(theirs.id).not.toBe(first.id);

    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'create_issue')!.inputSchema.properties).toHaveProperty(
      'idempotency_key',
    );
    expect(tools.find((tool) => tool.name === 'update_issue')!.inputSchema.properties).not.toHaveProperty(
      'idempotency_key',
    );
  });

  test('a key that is not printable ASCII is an error result, and nothing is created', async () => {
    const client = await connect(t.user('mark').token);
    const project = (
      (await client.callTool({ name: 'list_projects', arguments: {} })).structuredContent as { items: { id: string }[] }
    ).items[0]!;
    for (const key of ['nul\u0000inside', 'caf\u00e9', '']) {
      const refused = problemOf(
        await client.callTool({
          name: 'create_issue',
          arguments: { project_id: project.id, title: 'Unkeyable', idempotency_key: key },
        }),
      );
      expect(refused.errors).toEqual([
        { field: 'idempotency_key', message: 'must be 1 to 255 printable ASCII characters' },
      ]);
    }
    expect(await t.app.db.prisma.issue.count({ where: { title: 'Unkeyable' } })).toBe(0);
  });
});

describe('malformed calls', () => {
  test('arguments that are not an object: JSON-RPC invalid params (-32602), not an internal error', async () => {
    for (const args of [[1, 2], 'text', 42, null]) {
      const response = await t.call('POST', '/api/mcp', {
        token: t.user('mark').token,
        headers: { accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'list_projects', arguments: args } },
      });
      expect(response.status).toBe(200);
      const message = (await response.json()) as { id: number; error: { code: number } };
      expect(message).toMatchObject({ id: 7, error: { code: -32602 } });
    }
  });
});
