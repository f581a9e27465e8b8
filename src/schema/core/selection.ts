/**
 * The `query` of a prismaField whose result is an errors-plugin union: when the client selects
 * only `__typename` or the error members, Pothos passes `select: {}`, which Prisma refuses
 * ("must not be empty"). Selecting the id instead keeps the write, and its result, valid.
 */
export function nonEmpty<Q extends { select?: object }>(query: Q): Q {
  if (query.select && Object.keys(query.select).length === 0) return { ...query, select: { id: true } };
  return query;
}

/**
 * Whether `row` already holds everything a Prisma `select` asks for: every selected column,
 * and every selected relation with its own selection (a to-many one as an array of such rows). A resolver that wrote a row by hand
 * (one raw statement) answers with it when it does, and loads the rest only when it does not.
 */
export function selectionCovered(select: Record<string, unknown> | undefined, row: Record<string, unknown>): boolean {
  if (!select) return false;
  return Object.entries(select).every(([field, wanted]) => {
    if (!wanted) return true;
    if (!(field in row)) return false;
    if (wanted === true) return true;
    const nested = (wanted as { select?: Record<string, unknown> }).select;
    const value = row[field];
    if (nested === undefined || value === null || typeof value !== 'object') return false;
    // A to-many relation (an issue's labels): each of its rows, loaded in the order the selection asks.
    if (Array.isArray(value)) return value.every((item: Record<string, unknown>) => selectionCovered(nested, item));
    return selectionCovered(nested, value as Record<string, unknown>);
  });
}
