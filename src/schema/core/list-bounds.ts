import { z } from 'zod';
import type { Context } from '../../context.js';
import { validate } from './validate.js';

/**
 * Every list the schema returns has a bound, and a query's cost (src/graphql/query-bounds.ts)
 * counts each list by it, multiplied down the nesting. Without bounds, lists that lead back to
 * each other (Organization.projects > Project.organization > ...) let one small query ask for
 * projects^4 objects.
 *
 * The lists without a `first` argument hold few items by nature (searches stop at 20, `nodes`
 * takes at most 100 ids); the others take `first`, default and maximum their bound, so that
 * a client can ask for less, and pay less.
 */
export const LIST_BOUNDS = {
  /** Query.memberships: the viewer's organizations, oldest first. */
  memberships: 100,
  /** Query.projects: the organization's projects, by key. */
  projects: 1_000,
  /** Organization.projects: nested under every membership, so kept lower than the top-level list. */
  organizationProjects: 100,
  /** Query.apiKeys: newest first. */
  apiKeys: 100,
} as const;

/**
 * The cost multiplier of a list field that declares no bound. It is more than any query may
 * cost, so such a list cannot be selected into until its bound is declared here (a test checks
 * that every list field has one).
 */
export const UNDECLARED_LIST_MULTIPLIER = 1_000_000;

/** The cost of one field: a scalar of up to TEXT_PER_COST characters. */
export const FIELD_COST = 1;

/**
 * Characters of text that cost as much as one field, so that a query's cost bounds its answer's
 * size too: at the GraphQL cost limit, an answer holds at most maxCost x 100 characters of text.
 */
export const TEXT_PER_COST = 100;

/**
 * The cost of a text field, from the most characters it may hold (the constant its input is
 * validated with): an issue's description of up to 50,000 characters costs 500, a title of 255
 * costs 3, a name of 100 costs 1.
 */
export function textCost(maxLength: number): number {
  return Math.max(FIELD_COST, Math.ceil(maxLength / TEXT_PER_COST));
}

/** Options of the `first` argument of a bounded list: at most `max`, which is also the default. */
export function firstArg(max: number) {
  return { required: false, defaultValue: max, description: `How many, 1 to ${max} (default ${max}).` } as const;
}

/** The `first` input of an operation listing at most `max` items: 1 to `max`; absent or null: `max`. */
export function firstInput(max: number) {
  const range = `must be between 1 and ${max}`;
  return z.number().int(range).min(1, range).max(max, range).nullish();
}

/** The `{ first }` schema of each bound, built once: a zod schema costs more to build than to run. */
const firstSchemas = new Map<number, z.ZodType<{ first?: number | null | undefined }>>();

/** The number of items a list returns: `first`, 1 to `max` (absent or null: `max`), or a ValidationError on `first`. */
export function listSize(first: number | null | undefined, max: number): number {
  let schema = firstSchemas.get(max);
  if (!schema) {
    schema = z.object({ first: firstInput(max) });
    firstSchemas.set(max, schema);
  }
  return validate(schema, { first }).first ?? max;
}

/** The cost of a list of `first` items, at most `max`. */
export function boundedList(max: number) {
  return (args: { first?: number | null }) => ({ field: FIELD_COST, multiplier: listSize(args.first, max) });
}

/** The cost of a list that never holds more than `size` items (a search's results, a fixed enumeration). */
export function fixedList(size: number) {
  return { field: FIELD_COST, multiplier: size };
}

/** The cost of a Relay connection page: `first` or `last`, else the default size, at most the maximum. */
export function connectionPage(defaultSize: number, maxSize: number) {
  return (args: { first?: number | null; last?: number | null }) => ({
    field: FIELD_COST,
    multiplier: Math.min(Math.max(args.first ?? args.last ?? defaultSize, 0), maxSize),
  });
}

/** A credential bound to one organization (API key, OAuth token) has exactly one membership to list. */
export function membershipsCost(args: { first?: number | null }, ctx: Context) {
  return {
    field: FIELD_COST,
    multiplier: costScope(ctx) === 'one-org' ? 1 : listSize(args.first, LIST_BOUNDS.memberships),
  };
}

/**
 * All that a cost in this file reads of the context: src/graphql/query-bounds.ts keeps the
 * verdict on a document without variables per value of it. A cost that reads more of the
 * context must say so here.
 */
export function costScope(ctx: Context): 'one-org' | 'any' {
  return ctx.principal.kind === 'user' && ctx.principal.orgBound ? 'one-org' : 'any';
}
