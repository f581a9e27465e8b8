/**
 * RFC 8288 `Link: <...>; rel="next"`, the paging header of every list route: written here for the
 * routes, and read back here for the surfaces that run a route and hand its cursor on (the pages,
 * the MCP tools).
 */

/** The next page's link: the same URL on BASE_URL, with the cursor replaced; none without a cursor. */
export function nextLink(url: URL, baseUrl: string, cursor: string | null | undefined): { link?: string } {
  if (!cursor) return {};
  const next = new URL(`${baseUrl}${url.pathname}`);
  for (const [key, value] of url.searchParams) if (key !== 'cursor') next.searchParams.append(key, value);
  next.searchParams.set('cursor', cursor);
  return { link: `<${next.href}>; rel="next"` };
}

/** The `cursor` of a `Link: <...>; rel="next"` header, or null. */
export function nextCursor(link: string | undefined): string | null {
  const target = link && /<([^>]+)>;\s*rel="next"/.exec(link)?.[1];
  return target ? new URL(target).searchParams.get('cursor') : null;
}
