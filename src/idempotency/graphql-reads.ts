import { getOperationAST, parse } from 'graphql';
import { QUERY_LIMITS } from '../limits/graphql-query.js';

/**
 * Whether a GraphQL POST body surely runs a query (a read, safe to repeat), so that its
 * Idempotency-Key has nothing to protect and its answer is not kept. Deny by default: anything
 * else (a mutation, a document that does not parse or names no single operation, a trusted
 * document sent by its hash alone) is handled as a write, within the answer cap and the quota.
 * The operation is picked as yoga picks it: by `operationName`, or the document's only one.
 */
export function isGraphqlQuery(body: Uint8Array): boolean {
  let params: unknown;
  try {
    params = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    return false;
  }
  // Stryker disable next-line ConditionalExpression: a truthy primitive destructures to no query, refused next
  if (!params || typeof params !== 'object' || Array.isArray(params)) return false;
  const { query, operationName } = params as { query?: unknown; operationName?: unknown };
  // Stryker disable next-line ConditionalExpression,LogicalOperator: parse and getOperationAST refuse these too
  if (typeof query !== 'string' || (operationName != null && typeof operationName !== 'string')) return false;
  try {
    // Bounded as yoga bounds it (graphql-armor's token limit), before the document is walked.
    const operation = getOperationAST(parse(query, { maxTokens: QUERY_LIMITS.maxTokens }), operationName ?? undefined);
    // Stryker disable next-line OptionalChaining: a null operation's TypeError is caught below as false
    return operation?.operation === 'query';
  } catch {
    return false;
  }
}
