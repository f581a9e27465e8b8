import { z } from 'zod';

export const SEARCH_TEXT_MAX = 100;

/** The `q` of searches and of the issue filter: trimmed, 1 to 100 characters. */
export const searchText = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(SEARCH_TEXT_MAX, `must be at most ${SEARCH_TEXT_MAX} characters`);

export type TextMatch = 'equals' | 'startsWith' | 'contains';

/**
 * A case-insensitive Prisma string filter. Prisma sends the text into ILIKE as it is, so
 * `%` and `_` would be wildcards (q=% would match everything); they are escaped to match
 * themselves.
 */
export function insensitive(match: TextMatch, text: string) {
  return { [match]: text.replace(/[\\%_]/g, '\\$&'), mode: 'insensitive' as const };
}
