import { z } from 'zod';
import { storableString } from './text.js';

const SEARCH_TEXT_MAX = 100;

/** The `q` of searches and of the issue filter: trimmed, 1 to 100 characters. */
export const searchText = storableString()
  .trim()
  .min(1, 'must not be empty')
  .max(SEARCH_TEXT_MAX, `must be at most ${SEARCH_TEXT_MAX} characters`);

/** The arguments of the searches (searchPeople, paletteSearch). */
export const SearchArgs = z.strictObject({ q: searchText });

export type TextMatch = 'equals' | 'startsWith' | 'contains';

/**
 * A case-insensitive Prisma string filter. Prisma sends the text into ILIKE as it is, so
 * `%` and `_` would be wildcards (q=% would match everything); they are escaped to match
 * themselves.
 */
export function insensitive(match: TextMatch, text: string) {
  return { [match]: escapeLike(text), mode: 'insensitive' as const };
}

/** `text` with LIKE's wildcards (`%`, `_`) and its escape character (a backslash) escaped to match themselves. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

/** How well `text` matches `q`: 0 exactly, 1 as a prefix, 2 inside, 3 not at all (case-insensitive). */
export function matchTier(q: string, text: string | null | undefined): number {
  if (!text) return 3;
  const a = text.toLowerCase();
  const b = q.toLowerCase();
  if (a === b) return 0;
  if (a.startsWith(b)) return 1;
  return a.includes(b) ? 2 : 3;
}

/** Results past this many are left off a search. */
export const SEARCH_LIMIT = 20;

/**
 * The best `limit` rows by (match tier, then the label order of `find`): exact matches,
 * then prefixes, then substrings. Each tier is its own query, so a thousand substring
 * matches cannot crowd out an exact one.
 */
export async function findRanked<T>(
  find: (match: TextMatch) => Promise<T[]>,
  tier: (row: T) => number,
  key: (row: T) => string,
  limit = SEARCH_LIMIT,
): Promise<{ row: T; tier: number }[]> {
  const tiers = await Promise.all((['equals', 'startsWith', 'contains'] as const).map(find));
  const seen = new Map<string, T>();
  for (const row of tiers.flat()) if (!seen.has(key(row))) seen.set(key(row), row);
  return [...seen.values()]
    .map((row, order) => ({ row, tier: tier(row), order }))
    .sort((a, b) => a.tier - b.tier || a.order - b.order)
    .slice(0, limit)
    .map(({ row, tier }) => ({ row, tier }));
}
