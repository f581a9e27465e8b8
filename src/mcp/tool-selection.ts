import type { Principal } from '../auth/principal.js';
import { TOOLSETS, type Toolset } from '../rest/route.js';
import { hasScope } from '../schema/core/access.js';
import type { McpTool } from './tools.js';

/**
 * Which tools a connection sees. Agents do better with fewer tools, so a client may choose, per
 * request (the endpoint keeps nothing between requests), as GitHub's MCP server lets it:
 * - `X-MCP-Toolsets: issues,projects` (or `?toolsets=issues,projects` on the URL, for clients
 *   that only take a URL): the tools of the named toolsets (src/rest/route.ts, TOOLSETS);
 * - `X-MCP-Readonly: true` (or `?readonly=true`): the tools that need only the `read` scope.
 * A header wins over the URL's parameter. And the credential chooses too: one without the `write`
 * scope (a `read` OAuth token) lists only read tools. A selection narrows what is listed and
 * callable; it never widens what the credential may do.
 */
export interface Selection {
  /** Null: every toolset. */
  toolsets: ReadonlySet<Toolset> | null;
  readonly: boolean;
}

/** The tools one request may see and call, and what tools/list answers with. */
export interface ToolSet {
  listed: Omit<McpTool, 'route' | 'scope' | 'toolsets'>[];
  byName: ReadonlyMap<string, McpTool>;
}

const TOOLSETS_HEADER = 'X-MCP-Toolsets';
const READONLY_HEADER = 'X-MCP-Readonly';

/** The longest selection text read: every toolset named, with room for spaces. */
const MAX_SELECTION_LENGTH = 200;

/** The selection a request makes, or why it cannot be read (an unknown toolset, a readonly that is no boolean). */
export function selectionOf(request: Request, url: URL): Selection | string {
  const toolsets = request.headers.get(TOOLSETS_HEADER) ?? url.searchParams.get('toolsets');
  const readonly = request.headers.get(READONLY_HEADER) ?? url.searchParams.get('readonly');
  if ((toolsets?.length ?? 0) > MAX_SELECTION_LENGTH) return `${TOOLSETS_HEADER} is too long.`;
  const named = toolsets === null ? null : toolsets.split(',').map((name) => name.trim().toLowerCase());
  const unknown = named?.filter((name) => !(TOOLSETS as readonly string[]).includes(name)) ?? [];
  if (unknown.length)
    return `${TOOLSETS_HEADER} (or toolsets) names ${unknown.map((n) => JSON.stringify(n.slice(0, 40))).join(', ')}: the toolsets are ${TOOLSETS.join(', ')}.`;
  const flag = readonly?.trim().toLowerCase();
  if (flag !== undefined && flag !== 'true' && flag !== 'false')
    return `${READONLY_HEADER} (or readonly) is true or false.`;
  return { toolsets: named && new Set(named as Toolset[]), readonly: flag === 'true' };
}

/** Builds the tool sets of each selection once (there are few: toolsets x read-only), from every tool. */
export function toolSelector(all: () => McpTool[]) {
  const made = new Map<string, ToolSet>();
  return (selection: Selection, principal: Principal): ToolSet => {
    const readOnly = selection.readonly || !hasScope(principal, 'write');
    const toolsets = selection.toolsets && TOOLSETS.filter((name) => selection.toolsets!.has(name));
    const key = `${readOnly}:${toolsets?.join(',') ?? '*'}`;
    let set = made.get(key);
    if (!set) {
      const shown = all().filter(
        (tool) =>
          (!readOnly || tool.scope === 'read') && (!toolsets || tool.toolsets.some((name) => toolsets.includes(name))),
      );
      set = toolSetOf(shown);
      made.set(key, set);
    }
    return set;
  };
}

export function toolSetOf(tools: McpTool[]): ToolSet {
  return {
    byName: new Map(tools.map((tool) => [tool.name, tool])),
    listed: tools.map(({ route: _route, scope: _scope, toolsets: _toolsets, ...tool }) => tool),
  };
}
