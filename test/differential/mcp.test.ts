import { CALLERS, describeCorpus, send, type Caller, type Recorded, type World } from './record.js';

/**
 * The MCP corpus: JSON-RPC POSTs to /api/mcp as a client sends them (initialize, tools/list for
 * every caller and scope, a call of every tool with its success and typical errors: invalid
 * arguments, not found, forbidden, insufficient scope, idempotency), batches, and messages
 * that are not JSON-RPC; then the same endpoint in protocol 2026-07-28 (server/discover, lists,
 * calls, and headers that disagree with the body). The answers' event-stream or JSON bodies are
 * recorded as sent.
 */

const ACCEPT = { accept: 'application/json, text/event-stream' };
/** The protocol version of clients that send batches (MCP removed them after it). */
const BATCHING = { ...ACCEPT, 'mcp-protocol-version': '2025-03-26' };

const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const MODERN_META = { [VERSION_KEY]: '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

/** The headers a 2026-07-28 client sends with a POST: the version, the method, and the tool or resource it names. */
function modernHeaders(method: string, params: Record<string, unknown>): Record<string, string> {
  const named = params.name ?? params.uri;
  const name: Record<string, string> = typeof named === 'string' ? { 'mcp-name': named } : {};
  return { ...ACCEPT, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...name };
}

interface Step {
  caller: Caller;
  body: unknown;
  headers?: Record<string, string>;
  method?: string;
}

let nextId = 0;
const message = (method: string, params?: unknown) => ({
  jsonrpc: '2.0',
  id: ++nextId,
  method,
  ...(params === undefined ? {} : { params }),
});
const tool = (name: string, args: unknown) => message('tools/call', { name, arguments: args });

function steps(ids: Record<string, string>): Step[] {
  const all: Step[] = [];
  const add = (caller: Caller, body: unknown, headers: Record<string, string> = ACCEPT, method?: string) =>
    all.push({ caller, body, headers, method });
  const initialize = message('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'corpus', version: '1.0.0' },
  });
  for (const caller of CALLERS) {
    add(caller, initialize);
    add(caller, message('tools/list'));
    add(caller, tool('who_am_i', {}));
  }
  add('member', { jsonrpc: '2.0', method: 'notifications/initialized' });
  add('member', message('ping'));

  // Reads.
  for (const caller of ['member', 'viewer', 'globex', 'oauthRead'] as Caller[]) {
    add(caller, tool('list_my_orgs', {}));
    add(caller, tool('list_projects', {}));
    add(caller, tool('get_project', { id: ids.web }));
    add(caller, tool('list_issues', { limit: 3 }));
    add(caller, tool('get_issue', { id: 'WEB-1' }));
    add(caller, tool('search_people', { q: 'm' }));
    add(caller, tool('palette_search', { q: 'web' }));
  }
  add('member', tool('list_issues', { limit: 2, sort: 'title', direction: 'asc' }));
  add('member', tool('list_issues', { limit: 2, sort: 'title', direction: 'asc', cursor: '<next>' }));
  add('member', tool('list_issues', { limit: 2, sort: 'title', direction: 'asc', cursor: '<next>' }));
  add('member', tool('list_issues', { status: ['Done', 'Todo'], priority: ['urgent', 'high'] }));
  add('member', tool('list_issues', { project_id: ids.web, assignee_id: ids.olivia, q: 'set' }));
  add('member', tool('list_issues', { limit: 0, sort: 'colour', status: ['Someday'] }));
  add('member', tool('list_issues', { cursor: 'garbage' }));
  add('member', tool('get_issue', { id: 'RES-1' }));
  add('member', tool('get_issue', {}));
  add('member', tool('get_issue', { id: 'nonsense' }));
  add('member', tool('get_project', { id: ids.res }));
  add('member', tool('get_project', { id: 'not-a-uuid' }));
  add('member', tool('who_am_i', { verbose: true }));
  add('member', tool('no_such_tool', {}));
  add('member', message('tools/call', { name: 'who_am_i' }));
  add('member', message('tools/call', {}));
  add('member', message('resources/list'));
  add('member', message('prompts/list'));
  add('member', message('no/such/method'));

  // Writes: success, invalid arguments, not found, forbidden, insufficient scope, idempotency.
  for (const caller of CALLERS)
    add(caller, tool('create_issue', { project_id: ids.web, title: `MCP issue by ${caller}`, priority: 'high' }));
  add('member', tool('create_issue', { project_id: 'no pe', title: '', priority: 'someday', colour: 'red' }));
  add('member', tool('create_issue', { project_id: ids.res, title: 'Other org' }));
  add('member', tool('create_issue', { project_id: ids.web, title: 'Outsider', assignee_id: ids.bella }));
  add('member', tool('create_issue', { project_id: ids.web, title: 'Once', idempotency_key: 'corpus-once' }));
  add('member', tool('create_issue', { project_id: ids.web, title: 'Once', idempotency_key: 'corpus-once' }));
  add('member', tool('create_issue', { project_id: ids.web, title: 'Twice', idempotency_key: 'corpus-once' }));
  for (const caller of ['member', 'viewer', 'oauthRead', 'oauthWrite', 'globex'] as Caller[])
    add(caller, tool('update_issue', { id: 'WEB-1', status: 'Done', description: null }));
  add('member', tool('update_issue', { id: 'WEB-2', title: '', priority: 'nope' }));
  add('member', tool('update_issue', { id: 'WEB-2', assignee_id: ids.olivia, title: 'Renamed by MCP' }));
  add('member', tool('delete_issue', { id: 'WEB-3' }));
  add('manager', tool('delete_issue', { id: 'WEB-3' }));
  add('manager', tool('delete_issue', { id: 'WEB-3' }));
  add('manager', tool('create_project', { name: 'Agents', key: 'AGT' }));
  add('manager', tool('create_project', { name: 'Dup', key: 'WEB' }));
  add('manager', tool('create_project', { name: '', key: '1' }));
  add('viewer', tool('create_project', { name: 'No', key: 'NO' }));
  add('oauthRead', tool('create_project', { name: 'No', key: 'NO' }));
  add('manager', tool('update_project', { id: ids.mob, name: 'Mobile', key: 'APP' }));
  add('manager', tool('update_project', { id: ids.mob, key: 'WEB' }));
  add('manager', tool('update_project', { id: ids.res, name: 'Theirs' }));
  add('manager', tool('create_issue', { project_id: 'AGT', title: 'In the new project' }));
  add('manager', tool('delete_project', { id: 'AGT' }));
  add('manager', tool('delete_project', { id: 'AGT', force: true }));
  add('manager', tool('delete_project', { id: 'AGT' }));
  add('member', tool('list_issues', { sort: 'created_at', limit: 5 }));
  for (const caller of ['member', 'viewer', 'oauthRead', 'globex'] as Caller[])
    add(caller, tool('create_comment', { id: 'WEB-2', body: `MCP comment by ${caller}` }));
  add('member', tool('create_comment', { id: 'WEB-2', body: '', author_id: ids.olivia }));
  add('viewer', tool('list_comments', { id: 'WEB-2', limit: 2 }));
  add('globex', tool('list_comments', { id: 'WEB-2' }));
  add('member', tool('update_comment', { id: 'WEB-2', comment_id: 'not-a-uuid', body: 'x' }));
  add('member', tool('delete_comment', { id: 'RES-1', comment_id: ids.web1 }));

  // Batches (protocol 2025-03-26), and the same batch in a protocol without them.
  const batch = [
    tool('who_am_i', {}),
    tool('get_issue', { id: 'WEB-2' }),
    tool('get_issue', { id: 'RES-1' }),
    { jsonrpc: '2.0', method: 'notifications/initialized' },
  ];
  add('member', batch, BATCHING);
  add('member', batch);
  add(
    'member',
    [
      tool('create_issue', { project_id: ids.web, title: 'Batched' }),
      tool('update_issue', { id: 'WEB-2', status: 'Todo' }),
    ],
    BATCHING,
  );
  add('member', [], BATCHING);
  add('member', [1, 2], BATCHING);
  add(
    'member',
    Array.from({ length: 21 }, () => message('ping')),
    BATCHING,
  );

  // What is not JSON-RPC, or not sent as a client must.
  add('member', '{"jsonrpc": "2.0", "id": 1, "method": ');
  add('member', { jsonrpc: '1.0', id: 1, method: 'ping' });
  add('member', { id: 1, method: 'ping' });
  add('member', { jsonrpc: '2.0', id: 1 });
  add('member', 'null');
  add('member', '7');
  add('member', message('ping'), { accept: 'application/json' });
  add('member', message('ping'), { accept: 'text/html' });
  add('member', message('ping'), { ...ACCEPT, 'content-type': 'text/plain' });
  add('member', message('ping'), { ...ACCEPT, 'mcp-protocol-version': '1999-01-01' });
  add('member', undefined, ACCEPT, 'GET');
  add('member', undefined, ACCEPT, 'DELETE');
  add('member', message('ping'), ACCEPT, 'PUT');

  // Protocol 2026-07-28: no initialize; each request names its version in `_meta` and its method (and tool) in headers.
  const modern = (caller: Caller, method: string, params: Record<string, unknown> = {}, headers = {}) =>
    add(caller, message(method, { ...params, _meta: MODERN_META }), { ...modernHeaders(method, params), ...headers });
  modern('member', 'server/discover');
  for (const caller of CALLERS) modern(caller, 'tools/list');
  modern('member', 'tools/call', { name: 'who_am_i', arguments: {} });
  modern('member', 'tools/call', { name: 'get_issue', arguments: { id: 'WEB-1' } });
  modern('member', 'tools/call', { name: 'get_issue', arguments: { id: 'RES-1' } });
  modern('member', 'tools/call', {
    name: 'create_issue',
    arguments: { project_id: ids.web, title: '', priority: 'x' },
  });
  const once = { project_id: ids.web, title: 'Modern once', idempotency_key: 'corpus-modern-once' };
  modern('member', 'tools/call', { name: 'create_issue', arguments: once });
  modern('member', 'tools/call', { name: 'create_issue', arguments: once });
  modern('oauthRead', 'tools/call', { name: 'update_issue', arguments: { id: 'WEB-1', status: 'Todo' } });
  modern('viewer', 'tools/call', { name: 'delete_issue', arguments: { id: 'WEB-1' } });
  modern('member', 'tools/call', { name: 'no_such_tool', arguments: {} });
  modern('member', 'tools/call', { name: 'who_am_i', arguments: {}, requestState: 'forged' });
  modern('member', 'resources/read', { uri: 'workmgmt://nothing' });
  modern('member', 'ping');
  // Headers that disagree with the body, or are missing; versions this server does not speak.
  modern('member', 'tools/call', { name: 'who_am_i', arguments: {} }, { 'mcp-method': 'tools/list' });
  modern('member', 'tools/call', { name: 'who_am_i', arguments: {} }, { 'mcp-name': 'get_issue' });
  modern('member', 'tools/list', {}, { 'mcp-protocol-version': '2025-11-25' });
  add('member', message('tools/list', { _meta: { ...MODERN_META, [VERSION_KEY]: '2099-01-01' } }), {
    ...ACCEPT,
    'mcp-protocol-version': '2099-01-01',
    'mcp-method': 'tools/list',
  });
  add('member', message('tools/list'), { ...ACCEPT, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' });
  add('member', [message('ping', { _meta: MODERN_META })], { ...ACCEPT, 'mcp-protocol-version': '2026-07-28' });

  // The bulk tool, last, so that every answer above stays as it was.
  for (const caller of CALLERS) add(caller, tool('bulk_issues', { ids: ['WEB-2'], change: { priority: 'low' } }));
  add('member', tool('bulk_issues', { issues: [{ project_id: ids.web, title: 'MCP bulk' }, { project_id: ids.res }] }));
  add('member', tool('bulk_issues', { ids: ['RES-1'], change: { status: 'Todo' } }));
  return all;
}

async function run(world: World): Promise<Recorded[]> {
  nextId = 0;
  const out: Recorded[] = [];
  let next = '';
  for (const step of steps(world.ids)) {
    const body =
      step.body && typeof step.body === 'object'
        ? JSON.parse(JSON.stringify(step.body).replace('"<next>"', JSON.stringify(next)))
        : step.body;
    const { parsed, recorded } = await send(world, step.caller, step.method ?? 'POST', '/api/mcp', body, step.headers);
    out.push(recorded);
    // list_issues' next page, from a JSON answer or an event stream's data line.
    const text = JSON.stringify(parsed);
    const cursor = /\\?"next_cursor\\?":\s*\\?"([^"\\]+)/.exec(text);
    if (cursor) next = cursor[1]!;
  }
  return out;
}

describeCorpus('mcp', run);
