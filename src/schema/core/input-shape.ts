import { DESCRIPTION_MAX } from '../issues/workflow.js';
import { ValidationError, type FieldError } from './errors.js';
import { MAX_FILTER_VALUES, MAX_FILTERS } from '../issues/filter-limits.js';

/**
 * The size and shape every input value may have (GraphQL variables, REST JSON bodies and query
 * strings, MCP tool arguments), checked as soon as the value is parsed, before any library
 * walks it. Each bound lies well above what any valid input needs, so an input near a limit is
 * still answered by its field's own rule (which says more), and only an input no rule could
 * accept meets these.
 *
 * Without them graphql-js builds each error of a variable from the whole value: 60,000 unknown
 * fields in one filter object cost it minutes and the heap, 200,000 invalid statuses 15 s, all
 * on the event loop every other request waits for.
 */
export const INPUT_LIMITS = {
  /**
   * Levels of objects and lists. The deepest valid input, an IssueFilter nested MAX_FILTER_DEPTH
   * deep through `and` lists down to a `number.in` list, nests 2 x 4 + 1 = 9 levels.
   */
  depth: 32,
  /** Fields of one object. The widest input object, IssueFilter, has 13. */
  fields: 100,
  /** Items of one list. The longest valid lists (filter values, `nodes(ids)`) have 100. */
  items: 10 * MAX_FILTER_VALUES,
  /**
   * Values in all (objects, lists and what they hold). The largest valid input is a filter at
   * every bound: MAX_FILTERS filters, each with three lists of MAX_FILTER_VALUES and its other fields.
   */
  values: MAX_FILTERS * 4 * MAX_FILTER_VALUES,
  /** Characters of one string. The longest valid one is an issue's description. */
  text: 2 * DESCRIPTION_MAX,
  /** Characters of one field name, as many as a problem quotes of one (src/http/problem.ts). */
  name: 256,
} as const;

/**
 * How a width over its limit is worded. Not the count: the scan of a JSON text stops at the
 * first field or item over the limit (src/schema/core/json-shape.ts) rather than reading the rest.
 */
export const WIDTH = {
  fields: `has more than ${INPUT_LIMITS.fields} fields, the limit per object`,
  items: `has more than ${INPUT_LIMITS.items} items, the limit per list`,
} as const;

interface Pending {
  value: unknown;
  /** Levels of objects and lists above it: the root (the variables, the body, the arguments) is at 0, each named input at 1. */
  depth: number;
  parent: Pending | null;
  key: string;
}

/**
 * The first way `input` passes one of INPUT_LIMITS, as a field error naming where (`f.and.3.status`,
 * or `root` for the value itself), or null. Its own stack, no recursion: a value nested
 * 100,000 deep is refused, not a stack overflow. Stops at the first excess, so it reads at most
 * INPUT_LIMITS.values values (and the keys of objects within their bound).
 */
export function inputShapeError(input: unknown, root: string): FieldError | null {
  // Stryker disable next-line StringLiteral: the root's key is never read (pathOf names the root by `root`)
  const stack: Pending[] = [{ value: input, depth: 0, parent: null, key: '' }];
  let values = 0;
  for (let item = stack.pop(); item; item = stack.pop()) {
    if (++values > INPUT_LIMITS.values) {
      return {
        field: root,
        message: `holds more than ${INPUT_LIMITS.values} values in all (objects, lists and what they hold)`,
      };
    }
    const { value, depth } = item;
    if (typeof value === 'string') {
      if (value.length > INPUT_LIMITS.text)
        return at(item, root, `is ${value.length} characters long, over the limit of ${INPUT_LIMITS.text}`);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth > INPUT_LIMITS.depth)
      return at(item, root, `nests deeper than ${INPUT_LIMITS.depth} levels of objects and lists`);
    if (Array.isArray(value)) {
      if (value.length > INPUT_LIMITS.items) return at(item, root, WIDTH.items);
      for (let i = value.length - 1; i >= 0; i--)
        stack.push({ value: value[i] as unknown, depth: depth + 1, parent: item, key: String(i) });
      continue;
    }
    const keys = Object.keys(value);
    if (keys.length > INPUT_LIMITS.fields) return at(item, root, WIDTH.fields);
    const long = keys.find((key) => key.length > INPUT_LIMITS.name);
    if (long !== undefined)
      return at(item, root, `has a field name of ${long.length} characters, over the limit of ${INPUT_LIMITS.name}`);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1, parent: item, key });
    }
  }
  return null;
}

/** Throws a ValidationError naming the first excess of `input` (see inputShapeError). */
export function checkInputShape(input: unknown, root: string): void {
  const error = inputShapeError(input, root);
  if (error) throw new ValidationError([error]);
}

/** The finding at `item`. Not a closure made per value: that cost more than the check on long lists. */
function at(item: Pending, root: string, message: string): FieldError {
  return { field: pathOf(item, root), message };
}

/** `a.b.0.c` from the root down to `item`; the root's own name when `item` is the root. */
function pathOf(item: Pending, root: string): string {
  const keys: string[] = [];
  // Stryker disable next-line OptionalChaining: `at` is never null here (the loop stops at the root, whose parent is)
  for (let at: Pending | null = item; at?.parent; at = at.parent) keys.push(at.key);
  return keys.length ? keys.reverse().join('.') : root;
}
