import type { Response } from '../http/fetch-api.js';
import { json } from '../http/json.js';
import { errorHeaders } from '../http/problem.js';
import type { AppError } from '../schema/core/errors.js';

const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json';

/**
 * An authentication failure at /api/graphql as the GraphQL-over-HTTP spec has it for clients
 * that accept `application/graphql-response+json`: the same 401 or 403 (and WWW-Authenticate)
 * as the problem+json answer, with a GraphQL response body (`errors`, no `data`: nothing ran).
 * Other clients keep the problem document, which every API error uses.
 */
export function graphqlAuthResponse(request: Request, problem: AppError): Response | null {
  const accept = request.headers.get('accept') ?? '';
  if (!accept.toLowerCase().includes(GRAPHQL_RESPONSE_TYPE)) return null;
  const body = { errors: [{ message: problem.message, extensions: { code: problem.code } }] };
  return json(body, {
    status: problem.status,
    type: `${GRAPHQL_RESPONSE_TYPE}; charset=utf-8`,
    headers: errorHeaders(problem),
  });
}
