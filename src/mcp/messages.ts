import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Response } from '../http/fetch-api.js';
import { json } from '../http/json.js';

/** JSON-RPC 2.0 as the MCP endpoint answers it outside the SDK (refusals before a message runs). */
export type JsonRpcId = string | number | null;
export interface JsonRpcError {
  jsonrpc: '2.0';
  id: JsonRpcId;
  error: { code: number; message: string; data?: ErrorData };
}

type ErrorData = Record<string, unknown>;

export function jsonRpcError(id: JsonRpcId, code: number, message: string, data?: ErrorData): JsonRpcError {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data ? { data } : {}) } };
}

export function jsonRpcResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return json(body, { status, headers });
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What is wrong with a request's params, as JSON-RPC's "invalid params" (-32602): MCP's params
 * are an object, and a tools/call names its tool and passes its arguments as an object. The SDK
 * answers these as internal errors (-32603, with a dump of its schema's complaints), which tells
 * the client the fault is ours. Null when the params are fine, or for a notification (no `id`),
 * which gets no answer.
 */
export function invalidParams(message: unknown): JsonRpcError | null {
  if (!isRecord(message) || !('id' in message)) return null;
  const problem = paramsProblem(message);
  if (problem === null) return null;
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
  return jsonRpcError(id, ProtocolErrorCode.InvalidParams, `Invalid params: ${problem}`);
}

function paramsProblem({ method, params }: Record<string, unknown>): string | null {
  if (params !== undefined && !isRecord(params)) return 'params must be an object.';
  if (method !== 'tools/call') return null;
  if (!isRecord(params) || typeof params.name !== 'string') {
    return 'tools/call needs params.name, the name of a tool (tools/list names them).';
  }
  if (params.arguments !== undefined && !isRecord(params.arguments)) {
    return "arguments must be an object of the tool's named arguments.";
  }
  return null;
}
