import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { resourceMetadataUrl } from '../auth/oauth/metadata.js';
import { hasScope } from '../schema/core/access.js';
import type { Config } from '../config.js';
import type { Context } from '../context.js';
import type { Logger } from '../logger.js';
import { requestLogger } from '../ops/request-scope.js';
import { answerBatch, BATCHES_RUNNING_PER_CREDENTIAL } from './batch.js';
import { InFlight } from '../limits/in-flight.js';
import { invalidParams, isRecord, jsonRpcError, jsonRpcResponse } from './messages.js';
import { problemBody, problems } from '../http/problem.js';
import { jsonShapeError, type InputAt } from '../schema/core/json-shape.js';
import { callTool, buildTools, type McpTool } from './tools.js';
import type { Response } from '../http/fetch-api.js';

/** Where a tool call's arguments sit in a POSTed message, and in each message of a batch. */
const ARGUMENTS_IN_MESSAGE: InputAt = { root: 'arguments', path: ['params', 'arguments'] };
const ARGUMENTS_IN_BATCH: InputAt = { root: 'arguments', path: ['*', 'params', 'arguments'] };

const SERVER_INFO = { name: 'workmgmt', version: '1.0.0' };

const INSTRUCTIONS =
  'Work management: organizations > projects > issues. Every tool acts in the one organization your credential is bound to. ' +
  'Issues are named by id or key (WEB-12). list_issues pages with next_cursor. Errors come back as results with a problem document naming each invalid argument.';

type Message = Record<string, unknown>;

/** JSON-RPC messages of a POST body (one, or a batch), when they parse. */
function messagesOf(body: unknown): Message[] {
  const list = Array.isArray(body) ? body : [body];
  return list.filter(isRecord);
}

/**
 * The MCP server at /api/mcp (Streamable HTTP, stateless): every POST gets a fresh SDK server
 * and transport bound to the request's context, so any instance answers any request and the
 * principal, org and rate limits are exactly those of the REST request it is. Authentication
 * happened before (src/pipeline/dispatch.ts), as for every /api path.
 */
export function createMcpEndpoint(config: Config, logger: Logger) {
  // Made on the first MCP request, not at start: generating the OpenAPI document is not free, and most apps never serve MCP.
  let made: { byName: Map<string, McpTool>; listed: Omit<McpTool, 'route'>[] } | undefined;
  const tools = () => {
    if (!made) {
      const all = buildTools(config);
      made = {
        byName: new Map(all.map((tool) => [tool.name, tool])),
        listed: all.map(({ route: _route, ...tool }) => tool),
      };
    }
    return made;
  };

  /** The step-up challenge (MCP authorization, "scope challenge handling"; RFC 6750 §3.1): 403 before any tool runs. */
  function insufficientScope(ctx: Context, tool: McpTool): Response | null {
    const kind = tool.route.operation?.kind;
    if (!kind || hasScope(ctx.principal, kind)) return null;
    const held = ctx.principal.kind === 'user' ? (ctx.principal.scopes ?? []) : [];
    const scope = [...new Set([...held, kind])].join(' ');
    const challenge = `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${resourceMetadataUrl(config)}", error_description="The tool ${tool.name} needs the ${kind} scope."`;
    const body = {
      jsonrpc: '2.0',
      error: { code: -32001, message: `insufficient_scope: the tool ${tool.name} needs the "${kind}" scope.` },
      id: null,
    };
    return jsonRpcResponse(body, 403, { 'www-authenticate': challenge });
  }

  function serverFor(ctx: Context, request: Request): Server {
    const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools().listed }));
    server.setRequestHandler(CallToolRequestSchema, async (call) => {
      const tool = tools().byName.get(call.params.name);
      if (!tool)
        throw new McpError(ErrorCode.InvalidParams, `No tool named ${call.params.name}. tools/list names them.`);
      return callTool(tool, ctx, call.params.arguments ?? {}, request);
    });
    server.onerror = (error) => requestLogger(logger, ctx.scope).warn({ err: error }, 'MCP protocol error');
    return server;
  }

  const batchesRunning = new InFlight(BATCHES_RUNNING_PER_CREDENTIAL);
  return {
    async fetch(request: Request, ctx: Context): Promise<Response> {
      // Stateless: no server-initiated stream to GET and no session to DELETE (Streamable HTTP allows 405 for both).
      if (request.method !== 'POST') {
        return jsonRpcResponse(
          { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: POST JSON-RPC messages.' }, id: null },
          405,
          { allow: 'POST' },
        );
      }
      const text = await request.clone().text();
      // Each tool call's arguments, checked on the text before JSON.parse builds them
      // (src/schema/core/json-shape.ts). No message id is known yet: the answer is the POST's, a 400
      // with id null, as the transport answers a body it cannot parse.
      const excess = jsonShapeError(text, /^\s*\[/.test(text) ? ARGUMENTS_IN_BATCH : ARGUMENTS_IN_MESSAGE);
      if (excess) {
        const problem = problems.validation([excess]);
        return jsonRpcResponse(
          jsonRpcError(null, ErrorCode.InvalidParams, `Invalid params: ${problem.message}`, {
            ...problemBody(problem),
            ...(ctx.scope ? { request_id: ctx.scope.id } : {}),
          }),
          400,
        );
      }
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined; // the transport answers the parse error in JSON-RPC's words
      }
      // A write tool anywhere in the POST without its scope: the step-up challenge, before anything runs.
      for (const message of messagesOf(body)) {
        const name = message.method === 'tools/call' && isRecord(message.params) ? message.params.name : undefined;
        const tool = typeof name === 'string' ? tools().byName.get(name) : undefined;
        const refused = tool && insufficientScope(ctx, tool);
        if (refused) return refused;
      }
      const answerOne = async (message: unknown) => {
        const invalid = invalidParams(message);
        if (invalid) return jsonRpcResponse(invalid);
        const transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        const server = serverFor(ctx, request);
        await server.connect(transport);
        try {
          return await transport.handleRequest(request, message === undefined ? undefined : { parsedBody: message });
        } finally {
          // With JSON responses the answer is complete once handleRequest returns.
          await server.close();
        }
      };
      return Array.isArray(body) ? answerBatch(body, request, ctx, answerOne, batchesRunning) : answerOne(body);
    },
  };
}
