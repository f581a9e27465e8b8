import { ValidationError } from './errors.js';
import { MAX_FILTER_DEPTH } from './issue-filter.js';

/**
 * How deep (objects and lists) a request's input values may nest. The deepest valid input, an
 * IssueFilter nested MAX_FILTER_DEPTH deep through `and` lists down to a `number.in` list,
 * nests 2 x 4 + 1 = 9 levels; the margin lets the filter's own rules name what is wrong with
 * a filter only somewhat too deep.
 */
export const MAX_INPUT_DEPTH = 32;

/**
 * Refuses input nested deeper than MAX_INPUT_DEPTH before anything walks it: graphql-js coerces
 * variables recursively, so a `not` filter nested 10,000 deep would overflow the stack (a 500)
 * before the filter's own depth rule could run. This walk keeps its own stack.
 */
export function checkInputDepth(values: Readonly<Record<string, unknown>>): void {
  for (const [name, value] of Object.entries(values)) {
    const pending: [unknown, number][] = [[value, 1]];
    for (let item = pending.pop(); item; item = pending.pop()) {
      const [current, depth] = item;
      if (current === null || typeof current !== 'object') continue;
      if (depth > MAX_INPUT_DEPTH) {
        throw new ValidationError([
          {
            field: name,
            message: `nests deeper than ${MAX_INPUT_DEPTH} levels (filters nest at most ${MAX_FILTER_DEPTH} deep)`,
          },
        ]);
      }
      for (const child of Object.values(current)) pending.push([child, depth + 1]);
    }
  }
}
