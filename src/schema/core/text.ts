import { z } from 'zod';

/**
 * Characters a PostgreSQL text column cannot hold as sent: NUL (U+0000), which PostgreSQL
 * refuses (error 22021), and unpaired UTF-16 surrogates, which have no UTF-8 form, so the
 * driver would silently store U+FFFD in their place. In a `u` regex a surrogate pair is one
 * code point, so `\p{Cs}` matches only the unpaired ones.
 */
const UNSTORABLE = /[\0\p{Cs}]/u;

export const UNSTORABLE_TEXT_MESSAGE = 'must not contain NUL (U+0000) or unpaired surrogate characters';

/** Whether `text` can be stored and read back exactly. */
export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/**
 * A string schema for every text that reaches the database (names, titles, descriptions,
 * search terms): refused with a field error, never a 500, when PostgreSQL cannot store it.
 */
export function storableString(params?: Parameters<typeof z.string>[0]) {
  return z.string(params).refine(isStorableText, { error: UNSTORABLE_TEXT_MESSAGE });
}
