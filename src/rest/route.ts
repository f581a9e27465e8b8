import type { z } from 'zod';
import type { Context } from '../context.js';
import type { Operation } from '../schema/core/operation.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Response headers a route may set, each documented once (src/rest/openapi-protocol.ts). */
type RouteHeader = 'Location' | 'Link';

export interface RouteInput {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
  /** The request's URL (for links to the next page). */
  url: URL;
  request: Request;
}

/**
 * MCP tool hints (the MCP spec's ToolAnnotations). Defaults come from the HTTP method
 * (src/mcp/tools.ts): GET reads, PUT and DELETE are idempotent, DELETE destroys.
 */
export interface ToolHints {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** The groups of MCP tools a client may choose among (src/mcp/tool-selection.ts). */
export const TOOLSETS = ['issues', 'projects', 'people', 'account'] as const;
export type Toolset = (typeof TOOLSETS)[number];

/** The route as an MCP tool at /api/mcp: a route without one is not a tool. */
interface RouteTool {
  /** snake_case, stable: clients and prompts refer to it. */
  name: string;
  /** The toolsets that list it: a client that chooses toolsets sees the tools of those it names. */
  toolsets: readonly Toolset[];
  /** A short title for people; defaults to the route's summary. */
  title?: string;
  /** Overrides of the hints the method implies. */
  annotations?: ToolHints;
}

export interface RouteResult {
  /** JSON; undefined: 204 (or the route's empty success). */
  body?: unknown;
  headers?: Partial<Record<Lowercase<RouteHeader>, string>>;
}

/**
 * A REST route, declared once: the router, the OpenAPI document and the MCP tool list
 * (src/mcp/tools.ts) are made from these declarations. The schemas speak the spec's snake_case and are
 * built from the operation's own field rules, so a limit is written once. The operation
 * decides who may call it and what it does; the route only maps HTTP onto it.
 */
export interface Route {
  method: Method;
  /** OpenAPI style, under /api: `/issues/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  /** For people; defaults to the operation's description. */
  description?: string;
  tag: string;
  /** The operation behind the route: its access and rate limit are the route's. Absent only for public documents, which need no credential. */
  operation?: Operation<z.ZodType, unknown, never>;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodObject;
  /** Media types the body may come as (default application/json). */
  bodyTypes?: string[];
  success: {
    status: 200 | 201 | 204;
    description: string;
    schema?: z.ZodType;
    headers?: RouteHeader[];
    /** Named examples of the success body. */
    examples?: Record<string, unknown>;
  };
  /** Error statuses beyond those every route can give, with what they mean here. */
  errors?: Partial<Record<404 | 409, string>>;
  /** Also an MCP tool under this name (src/mcp). */
  tool?: RouteTool;
  /** REST names of the operation's input fields where they are not its snake_case (`first` -> `limit`). */
  names?: Record<string, string>;
  /** Maps the validated input onto the operation; a document that is not JSON returns its own Response. */
  handle(ctx: Context, input: RouteInput): Promise<RouteResult | Response>;
}

/** Declares a route (an identity function, for type checking and grep). */
export const route = (declaration: Route): Route => declaration;
