import type { Config } from '../config.js';
import type { Context } from '../context.js';
import { idempotencyProblems } from '../idempotency/http.js';
import { KEY_MAX_LENGTH, KEY_RULE, KEY_TEXT } from '../idempotency/key.js';
import { fingerprint, idempotent, keyScope } from '../idempotency/run.js';
import { openApiDocument } from '../rest/openapi.js';
import { nextCursor } from '../http/links.js';
import { problemBody, problems } from '../http/problem.js';
import { AppError } from '../schema/core/errors.js';
import { inputShapeError } from '../schema/core/input-shape.js';
import type { OperationKind } from '../schema/core/access.js';
import type { Method, Route, ToolHints, Toolset } from '../rest/route.js';
import { runRoute } from '../rest/router.js';
import { ROUTES } from '../rest/routes/index.js';
import { Response } from '../http/fetch-api.js';
import { requestIds } from '../ops/request-scope.js';

type JsonSchema = Record<string, unknown>;

/** One MCP tool: a REST route declaration seen as a tool (the route's `tool` says it is one). */
export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  /** Absent for routes that answer nothing (204): the result is then a sentence. */
  outputSchema?: JsonSchema & { type: 'object' };
  annotations: ToolHints & { title: string };
  /**
   * The OAuth scope a token needs to call it, said where per-tool authorization is read
   * (`securitySchemes`, as MCP Apps and ChatGPT connectors declare it on a tool).
   */
  _meta: { securitySchemes: [{ type: 'oauth2'; scopes: [OperationKind] }] };
  /** The scope a credential needs to call it: the operation's kind. */
  scope: OperationKind;
  toolsets: readonly Toolset[];
  route: Route;
}

/** What the HTTP method already says about a route (MCP ToolAnnotations); the route may override it. */
function hintsOf(method: Method): ToolHints {
  return {
    readOnlyHint: method === 'get',
    destructiveHint: method === 'delete',
    idempotentHint: method === 'get' || method === 'put' || method === 'delete',
    openWorldHint: false,
  };
}

/**
 * Inlines `#/components/...` references: a tool's schema travels alone, without the OpenAPI
 * document it was cut from. The declarations have no recursive types; `seen` guards anyway.
 */
function inline(value: unknown, document: Record<string, unknown>, seen: string[] = []): unknown {
  if (Array.isArray(value)) return value.map((v) => inline(v, document, seen));
  if (!value || typeof value !== 'object') return value;
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/')) {
    if (seen.includes(ref)) return {};
    const target = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
    return inline(target, document, [...seen, ref]);
  }
  // OpenAPI's `example` is not JSON Schema; MCP clients' validators need not know it.
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'example')
      .map(([key, v]) => [key, inline(v, document, seen)]),
  );
}

interface OpenApiOperation {
  parameters?: {
    name?: string;
    in?: string;
    required?: boolean;
    schema?: JsonSchema;
    description?: string;
    $ref?: string;
  }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
}

/**
 * The tool's arguments: the route's path and query parameters and its JSON body's fields, in one
 * object under their REST names, with the schemas the OpenAPI document gives them (both come
 * from the same zod declarations, so a limit is still written once).
 */
function inputSchemaOf(operation: OpenApiOperation, document: Record<string, unknown>): McpTool['inputSchema'] {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const parameter of operation.parameters ?? []) {
    // Shared parameters (X-Org-Id) are headers of the HTTP surface: a token's organization is fixed.
    if (parameter.$ref || !parameter.name || (parameter.in !== 'path' && parameter.in !== 'query')) continue;
    properties[parameter.name] = inline(
      { ...parameter.schema, description: parameter.description ?? parameter.schema?.description },
      document,
    );
    if (parameter.required) required.push(parameter.name);
  }
  const body = inline(operation.requestBody?.content?.['application/json']?.schema, document) as
    | { properties?: Record<string, unknown>; required?: string[] }
    | undefined;
  Object.assign(properties, body?.properties);
  required.push(...(body?.required ?? []));
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

/**
 * The argument that makes a create safe to retry (what `Idempotency-Key` is over HTTP): tools
 * made from POST routes take it.
 */
const IDEMPOTENCY_ARGUMENT = 'idempotency_key';
const idempotencyProperty = {
  type: 'string',
  minLength: 1,
  maxLength: KEY_MAX_LENGTH,
  pattern: '^[ -~]+$',
  description:
    'Optional. A unique value (a UUID) for this create: a retry with the same key and arguments within 24 hours ' +
    'returns the first result without creating again; the same key with other arguments is an error.',
};

/** MCP structured content is an object: a list comes as `{ items }`, and a paged one adds `next_cursor`. */
function outputSchemaOf(
  route: Route,
  operation: OpenApiOperation,
  document: Record<string, unknown>,
): McpTool['outputSchema'] {
  const schema = inline(
    operation.responses?.[String(route.success.status)]?.content?.['application/json']?.schema,
    document,
  ) as JsonSchema | undefined;
  if (!schema) return undefined;
  if (schema.type !== 'array') return schema as McpTool['outputSchema'];
  const paged = route.success.headers?.includes('Link');
  return {
    type: 'object',
    properties: {
      items: schema,
      ...(paged ? { next_cursor: { type: ['string', 'null'], description: NEXT_CURSOR } } : {}),
    },
    required: paged ? ['items', 'next_cursor'] : ['items'],
  };
}

const NEXT_CURSOR = 'Pass it as `cursor` (with the same sort and direction) for the next page; null on the last page.';

/** `{ a, b, c }`: the top-level fields of an object schema, as a tool's description names them. */
function fieldsOf(schema: JsonSchema | undefined): string {
  // A union (a palette hit is a project, an issue or a person) names the fields of every variant.
  const variants = ((schema?.oneOf ?? schema?.anyOf) as JsonSchema[] | undefined) ?? [schema ?? {}];
  const names = [
    ...new Set(variants.flatMap((variant) => Object.keys((variant.properties as object | undefined) ?? {}))),
  ];
  return `\`{ ${names.join(', ')} }\``;
}

/**
 * What the tool returns, in words, read from its own output schema (not the REST route's text,
 * which speaks of bare arrays and headers a tool result does not have).
 */
function returnsSentence(route: Route, output: McpTool['outputSchema']): string {
  const what = route.success.description.replace(/\.$/, '');
  const lowered = what.charAt(0).toLowerCase() + what.slice(1);
  if (!output) return 'Returns the text "Done.".';
  const items = (output.properties as Record<string, JsonSchema> | undefined)?.items;
  if (!items || output.properties === undefined || items.type !== 'array')
    return `Returns ${lowered}: ${fieldsOf(output)}.`;
  const bound = typeof items.maxItems === 'number' ? ` (at most ${items.maxItems})` : '';
  const each = fieldsOf(items.items as JsonSchema | undefined);
  if ('next_cursor' in (output.properties as object)) {
    return `Returns \`{ items, next_cursor }\`: ${lowered}${bound} as \`items\`, each ${each}; \`next_cursor\`: ${NEXT_CURSOR.charAt(0).toLowerCase()}${NEXT_CURSOR.slice(1)}`;
  }
  return `Returns \`{ items }\`: ${lowered}${bound}, each ${each}.`;
}

/** The cursor argument of a paged tool: its value comes from the previous result, not from a header. */
function withToolCursor(schema: McpTool['inputSchema'], output: McpTool['outputSchema']): McpTool['inputSchema'] {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (!properties?.cursor || !(output?.properties && 'next_cursor' in (output.properties as object))) return schema;
  const cursor = {
    ...properties.cursor,
    description:
      "Where to continue: the previous result's `next_cursor`. It only fits the sort and direction that made it.",
  };
  return { ...schema, properties: { ...properties, cursor } };
}

function withIdempotency(route: Route, schema: McpTool['inputSchema']): McpTool['inputSchema'] {
  if (route.method !== 'post') return schema;
  return { ...schema, properties: { ...(schema.properties as object), [IDEMPOTENCY_ARGUMENT]: idempotencyProperty } };
}

/**
 * The summary and the route's description, said once: a description that is the summary, or
 * that begins with it ("Command-palette search. Command-palette search of ..."), stands alone.
 */
function leadOf(route: Route): string[] {
  const summary = `${route.summary}.`;
  const described = route.description ?? route.operation?.description;
  if (!described) return [summary];
  const plain = (text: string) => text.replace(/\.$/, '').toLowerCase();
  if (plain(described) === plain(summary) || plain(described).startsWith(plain(route.summary))) return [described];
  return [summary, described];
}

/** Every tool, made from the route declarations and the OpenAPI document generated from them. */
export function buildTools(config: Config): McpTool[] {
  const document = openApiDocument(config, ROUTES) as unknown as Record<string, unknown> & {
    paths: Record<string, Record<string, OpenApiOperation>>;
  };
  return ROUTES.filter((route) => route.tool).map((route) => {
    const tool = route.tool!;
    const operation = document.paths[route.path]![route.method]!;
    const title = tool.title ?? route.summary;
    const outputSchema = outputSchemaOf(route, operation, document);
    const scope = route.operation?.kind ?? 'read';
    return {
      name: tool.name,
      title,
      description: [...leadOf(route), returnsSentence(route, outputSchema), `Needs the \`${scope}\` scope.`].join(' '),
      inputSchema: withToolCursor(withIdempotency(route, inputSchemaOf(operation, document)), outputSchema),
      outputSchema,
      annotations: { title, ...hintsOf(route.method), ...tool.annotations },
      _meta: { securitySchemes: [{ type: 'oauth2', scopes: [scope] }] },
      scope,
      toolsets: tool.toolsets,
      route,
    };
  });
}

/** A JSON argument as the query string would carry it, so the route's own query rules parse it. */
function queryText(value: unknown): string | string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * A problem as an MCP error result: the model reads the text; programs read `code` and `errors`
 * in it, and `request_id` (and `trace_id`), as in a REST problem (src/http/problem.ts).
 */
function errorResult(problem: AppError, ctx: Pick<Context, 'scope'>): ToolResult {
  const body = ctx.scope ? { ...problemBody(problem), ...requestIds(ctx.scope) } : problemBody(problem);
  return { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
}

/**
 * Calls a tool: its arguments bounded in size and shape as a REST body is, then split into the
 * route's path, query and body parts, then the route runs exactly as over REST (admission,
 * every invalid field at once, the operation).
 * Expected failures are error results naming what went wrong; anything else propagates.
 */
export async function callTool(
  tool: McpTool,
  ctx: Context,
  input: Record<string, unknown>,
  request: Request,
): Promise<ToolResult> {
  // Before the arguments are copied, fingerprinted or split (src/schema/core/input-shape.ts).
  const excess = inputShapeError(input, 'arguments');
  if (excess) return errorResult(problems.validation([excess]), ctx);
  const { [IDEMPOTENCY_ARGUMENT]: key, ...args } = input;
  if (tool.route.method !== 'post' || key === undefined) return runTool(tool, ctx, input, request);
  if (typeof key !== 'string' || !KEY_TEXT.test(key)) {
    return errorResult(
      new AppError(`${IDEMPOTENCY_ARGUMENT}: ${KEY_RULE}`, 'VALIDATION_FAILED', {
        errors: [{ field: IDEMPOTENCY_ARGUMENT, message: KEY_RULE }],
      }),
      ctx,
    );
  }
  const scope = keyScope(ctx.principal, key);
  if (!scope) return runTool(tool, ctx, args, request);
  // Sorted keys: the same arguments in another order are the same request.
  const print = fingerprint('mcp', tool.name, JSON.stringify(args, Object.keys(args).sort()));
  const outcome = await idempotent(
    ctx.prisma,
    scope,
    print,
    async (claim) => {
      // The tool's writes mark the claim, or make it opaque (src/idempotency/claim.ts).
      const result = await runTool(tool, { ...ctx, prisma: claim.guarded, idempotency: claim }, args, request);
      return { status: result.isError ? problemStatus(result) : 200, headers: {}, body: JSON.stringify(result) };
    },
    // As over HTTP: a rate limit or a server error is worth retrying, so it is not kept.
    (response) => response.status < 500 && response.status !== 429,
  );
  switch (outcome.kind) {
    case 'fresh':
    case 'replay':
      return JSON.parse(outcome.response.body) as ToolResult;
    case 'mismatch':
      return errorResult(idempotencyProblems.mismatch(), ctx);
    case 'in_progress':
      return errorResult(idempotencyProblems.inProgress(), ctx);
    case 'applied':
      return errorResult(idempotencyProblems.applied(), ctx);
    case 'unknown':
      return errorResult(idempotencyProblems.unknown(), ctx);
    case 'answer_too_large':
      return errorResult(idempotencyProblems.answerTooLarge(outcome.status), ctx);
    case 'quota_exceeded':
      return errorResult(idempotencyProblems.quotaExceeded(outcome.retryAfterSeconds), ctx);
  }
}

/** The status of the problem an error result carries (errorResult writes its body as the text). */
function problemStatus(result: ToolResult): number {
  try {
    return (JSON.parse(result.content[0]?.text ?? '{}') as { status?: number }).status ?? 400;
  } catch {
    return 400;
  }
}

async function runTool(
  tool: McpTool,
  ctx: Context,
  args: Record<string, unknown>,
  request: Request,
): Promise<ToolResult> {
  const { route } = tool;
  const params: Record<string, string> = {};
  const query: Record<string, string | string[]> = {};
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    if (route.params && Object.hasOwn(route.params.shape, name))
      params[name] = typeof value === 'string' ? value : JSON.stringify(value);
    else if (route.query && Object.hasOwn(route.query.shape, name)) {
      const text = queryText(value);
      if (text !== undefined) query[name] = text;
    } else body[name] = value;
  }
  // Without a body, leftover arguments have nowhere to go: named, rather than silently ignored.
  const unknown = route.body ? [] : Object.keys(body);
  if (unknown.length)
    return errorResult(
      new AppError(unknown.map((n) => `${n}: unknown argument`).join('; '), 'VALIDATION_FAILED', {
        errors: unknown.map((field) => ({ field, message: 'unknown argument' })),
      }),
      ctx,
    );
  const url = new URL(`${ctx.config.baseUrl}/api${route.path}`);
  try {
    const result = await runRoute(route, ctx, { params: () => params, query, body: async () => body }, url, request);
    if (result instanceof Response)
      throw new Error(`route ${route.operationId} answered a document, which a tool cannot carry`);
    if (route.success.status === 204) return { content: [{ type: 'text', text: 'Done.' }] };
    const structuredContent = Array.isArray(result.body)
      ? {
          items: result.body,
          ...(route.success.headers?.includes('Link') ? { next_cursor: nextCursor(result.headers?.link) } : {}),
        }
      : (result.body as Record<string, unknown>);
    return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
  } catch (error) {
    if (error instanceof AppError) return errorResult(error, ctx);
    throw error;
  }
}
