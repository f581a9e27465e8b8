import {
  createMcpHandler,
  isLegacyRequest,
  ProtocolErrorCode,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { resourceMetadataUrl } from '../auth/oauth/metadata.js';
import { hasScope } from '../schema/core/access.js';
import type { Config } from '../config.js';
import type { Context } from '../context.js';
import type { Logger } from '../logger.js';
import { answerBatch, BATCHES_RUNNING_PER_CREDENTIAL } from './batch.js';
import { InFlight } from '../limits/in-flight.js';
import { invalidParams, isRecord, jsonRpcError, jsonRpcResponse } from './messages.js';
import { problemBody, problems } from '../http/problem.js';
import { jsonShapeError, type InputAt } from '../schema/core/json-shape.js';
import { requestUrl } from '../http/request-url.js';
import { protocolServer } from './protocol-server.js';
import { selectionOf, toolSelector, toolSetOf, type ToolSet } from './tool-selection.js';
import { buildTools, type McpTool } from './tools.js';
import type { Response } from '../http/fetch-api.js';
import { requestIds } from '../ops/request-scope.js';

/** Where a tool call's arguments sit in a POSTed message, and in each message of a batch. */
const ARGUMENTS_IN_MESSAGE: InputAt = { root: 'arguments', path: ['params', 'arguments'] };
const ARGUMENTS_IN_BATCH: InputAt = { root: 'arguments', path: ['*', 'params', 'arguments'] };

type Message = Record<string, unknown>;

/** JSON-RPC messages of a POST body (one, or a batch), when they parse. */
function messagesOf(body: unknown): Message[] {
  const list = Array.isArray(body) ? body : [body];
  return list.filter(isRecord);
}

/**
 * The MCP server at /api/mcp (Streamable HTTP, stateless), in both protocol eras: a 2026-07-28
 * request (its `_meta` names the version) goes to the SDK's per-request handler; a 2025-era one
 * (initialize, then messages without `_meta`) to a stateless Streamable HTTP transport answering
 * in JSON, as the SDK's documentation routes a kept legacy deployment (`isLegacyRequest`).
 * Every message gets a fresh protocol server bound to the request's context, so any instance
 * answers any request and the principal, org and rate limits are exactly those of the REST
 * request it is. Authentication happened before (src/pipeline/dispatch.ts), as for every /api path.
 */
export function createMcpEndpoint(config: Config, logger: Logger) {
  // Made on the first MCP request, not at start: generating the OpenAPI document is not free, and most apps never serve MCP.
  let made: McpTool[] | undefined;
  const allTools = () => {
    made ??= buildTools(config);
    return made;
  };
  let every: ToolSet | undefined;
  const everyTool = () => {
    every ??= toolSetOf(allTools());
    return every;
  };
  const select = toolSelector(allTools);

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

  // The SDK calls the factory with the request it serves; the protocol server for it is made here, from its context.
  const serverFor = new WeakMap<Request, () => Server>();
  const modern = createMcpHandler(
    ({ requestInfo }) => {
      const make = requestInfo && serverFor.get(requestInfo);
      if (!make) throw new Error('an MCP request reached the protocol handler without its context');
      return make();
    },
    {
      legacy: 'reject',
      // The default response mode answers in JSON unless a handler sends a message before its result, which ours never do.
      onerror: (error) => logger.warn({ err: error }, 'MCP request refused or failed'),
    },
  );

  /** A 2025-era message: a stateless Streamable HTTP transport, JSON answers, a fresh server for it. */
  async function answerLegacy(request: Request, message: unknown, server: Server): Promise<Response> {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, message === undefined ? undefined : { parsedBody: message });
    } finally {
      // With JSON responses the answer is complete once handleRequest returns.
      await server.close();
    }
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
          jsonRpcError(null, ProtocolErrorCode.InvalidParams, `Invalid params: ${problem.message}`, {
            ...problemBody(problem),
            ...(ctx.scope ? requestIds(ctx.scope) : {}),
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
      // A write tool anywhere in the POST without its scope: the step-up challenge, before anything runs,
      // whether or not the read-only credential lists the tool.
      for (const message of messagesOf(body)) {
        const name = message.method === 'tools/call' && isRecord(message.params) ? message.params.name : undefined;
        const tool = typeof name === 'string' ? everyTool().byName.get(name) : undefined;
        const refused = tool && insufficientScope(ctx, tool);
        if (refused) return refused;
      }
      const selection = selectionOf(request, requestUrl(request));
      if (typeof selection === 'string')
        return jsonRpcResponse(
          jsonRpcError(null, ProtocolErrorCode.InvalidRequest, `Invalid Request: ${selection}`),
          400,
        );
      const visible = select(selection, ctx.principal);
      const server = () => protocolServer(visible, everyTool(), ctx, request, logger);
      const answerOne = async (message: unknown) => {
        const invalid = invalidParams(message);
        if (invalid) return jsonRpcResponse(invalid);
        if (message === undefined || (await isLegacyRequest(request, message)))
          return answerLegacy(request, message, server());
        serverFor.set(request, server);
        return modern.fetch(request, { parsedBody: message });
      };
      return Array.isArray(body) ? answerBatch(body, request, ctx, answerOne, batchesRunning) : answerOne(body);
    },
  };
}
