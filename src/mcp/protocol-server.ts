import { ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import type { Context } from '../context.js';
import type { Logger } from '../logger.js';
import { requestLogger } from '../ops/request-scope.js';
import type { ToolSet } from './tool-selection.js';
import { callTool } from './tools.js';

const SERVER_INFO = { name: 'workmgmt', version: '1.0.0' };

const INSTRUCTIONS =
  'Work management: organizations > projects > issues. Every tool acts in the one organization your credential is bound to. ' +
  'Issues are named by id or key (WEB-12). list_issues pages with next_cursor. Errors come back as results with a problem document naming each invalid argument.';

/**
 * How long a client may reuse a tools/list or server/discover answer (protocol 2026-07-28,
 * `ttlMs`), and only for the credential it asked with (`cacheScope: private`): the tools listed
 * depend on the caller's scopes and the tool selection it sent.
 */
const LIST_CACHE = { ttlMs: 5 * 60_000, cacheScope: 'private' } as const;

/**
 * A protocol server (the SDK's low-level `Server`: we own the tool list and the dispatch) for one
 * request, serving the tools it selected (src/mcp/tool-selection.ts), bound to that request's context: its principal, org and rate limits are the REST
 * request's, and a fresh instance per request keeps nothing between requests.
 */
export function protocolServer(tools: ToolSet, every: ToolSet, ctx: Context, request: Request, logger: Logger): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: INSTRUCTIONS,
    cacheHints: { 'tools/list': LIST_CACHE, 'server/discover': LIST_CACHE },
    // We never ask for input mid-call, so no requestState of ours exists: one a client echoes is refused, unread.
    requestState: {
      verify: () => {
        throw new Error('this server issues no requestState');
      },
    },
  });
  server.setRequestHandler('tools/list', () => ({ tools: tools.listed }));
  server.setRequestHandler('tools/call', async (call) => {
    const { name } = call.params;
    const tool = tools.byName.get(name);
    if (!tool && every.byName.has(name))
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `The tool ${name} is not among this connection's tools (its toolsets or read-only mode leave it out). tools/list names them.`,
      );
    if (!tool)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No tool named ${name}. tools/list names them.`);
    return callTool(tool, ctx, call.params.arguments ?? {}, request);
  });
  server.onerror = (error) => requestLogger(logger, ctx.scope).warn({ err: error }, 'MCP protocol error');
  return server;
}
