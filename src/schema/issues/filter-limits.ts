/** How deep and/or/not may nest, and how many branches one level may have. */
export const MAX_FILTER_DEPTH = 4;
export const MAX_FILTER_BRANCHES = 10;
/**
 * How many filters one filter may hold in all (itself and every nested one), and how many values
 * one list (`status`, `priority`, `number.in`) may have. Every value is a bind parameter, and
 * PostgreSQL takes at most 65,535 in a statement: these bounds keep a filter far under that.
 */
export const MAX_FILTERS = 50;
export const MAX_FILTER_VALUES = 100;
