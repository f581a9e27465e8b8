/**
 * The `query` of a prismaField whose result is an errors-plugin union: when the client selects
 * only `__typename` or the error members, Pothos passes `select: {}`, which Prisma refuses
 * ("must not be empty"). Selecting the id instead keeps the write, and its result, valid.
 */
export function nonEmpty<Q extends { select?: object }>(query: Q): Q {
  if (query.select && Object.keys(query.select).length === 0) return { ...query, select: { id: true } };
  return query;
}
