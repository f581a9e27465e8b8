import type { Operations } from './generated/sdk.gen.js';

/** The operations that answer one page of a list (an array, with `Link: rel="next"` when more follow). */
export type ListOperation = {
  [K in keyof Operations]: Operations[K] extends (options: never) => Promise<{ data: readonly unknown[] }> ? K : never;
}[keyof Operations];

/** What one element of a list operation's page is (`Issue` for `listIssues`). */
export type ListItem<K extends ListOperation> = Operations[K] extends (
  options: never,
) => Promise<{ data: readonly (infer T)[] }>
  ? T
  : never;

/** The options a list operation takes (its path, query and headers). */
export type ListOptions<K extends ListOperation> = Parameters<Operations[K]>[0];

/** The target of the `Link` header's `rel="next"` (RFC 8288), or null on the last page. */
export function nextLink(link: string | null): string | null {
  if (!link) return null;
  for (const part of link.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (match && /;\s*rel="?(?:[^";]*\s)?next(?:\s[^";]*)?"?\s*(?:;|$)/i.test(match[2]!)) return match[1]!;
  }
  return null;
}

/** The query of a next link, as the generated operations take it (a repeated name as a list). */
function queryOf(target: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of new URL(target).searchParams) {
    const seen = query[name];
    query[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return query;
}

type PageCall<T> = (options: unknown) => Promise<{ data: T[]; response: Response }>;

/**
 * Every page of a list: the first with `options`, then each that `Link: rel="next"` names (the
 * service's cursor and the query it was given), until a page has no next link.
 */
export async function* followPages<T>(call: PageCall<T>, options: { query?: object } | undefined): AsyncGenerator<T[]> {
  let current = options;
  for (;;) {
    const { data, response } = await call(current);
    yield data;
    const next = nextLink(response.headers.get('link'));
    if (next === null) return;
    current = { ...current, query: queryOf(next) };
  }
}
