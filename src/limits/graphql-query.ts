/**
 * Limits on the shape of a query, checked before it runs. The deepest query the API needs
 * (memberships > organization > projects > issues > edges > node > assignee > field) is 8 levels.
 * `maxCost` is the cost of src/graphql/query-bounds.ts, which multiplies by list sizes and counts
 * text by its length: at 60,000, a page of 100 issues with their descriptions (50,201) fits, and
 * an answer holds at most about 6 million characters of text. The GraphQL server enforces them;
 * OpenAPI documents them and the idempotency layer bounds a document's tokens as the server does.
 */
export const QUERY_LIMITS = {
  maxDepth: 10,
  maxAliases: 15,
  maxTokens: 2_000,
  maxDirectives: 20,
  maxCost: 60_000,
  /**
   * Over this cost an execution is expensive (its answer may hold a million characters), and one
   * credential may have `expensivePerCredential` of them running at once: the twentieth
   * concurrent 5 MB answer of one caller is refused rather than built.
   */
  expensiveCost: 10_000,
  expensivePerCredential: 2,
};
