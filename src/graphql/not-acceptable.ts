import type { Plugin } from 'graphql-yoga';
import { problemResponse } from '../http/problem.js';
import { AppError } from '../schema/core/errors.js';

/** Media types yoga's result processors can answer in (GraphQL over HTTP, SSE, incremental delivery). */
const ANSWERABLE =
  /(^|,)\s*(\*\/\*|application\/\*|application\/json|application\/graphql-response\+json|text\/event-stream|multipart\/mixed)\s*(;|,|$)/i;

const notAcceptable = () =>
  new AppError(
    'This endpoint answers in JSON: accept application/graphql-response+json or application/json.',
    'NOT_ACCEPTABLE',
  );

/**
 * Yoga picks a result format from Accept only after executing the operation, and answers a
 * bare 406 (no body) when none fits: a mutation sent with `Accept: text/html` took effect and
 * its client was told it failed. The Accept header is checked here, before anything runs, and
 * refused as the rest of /api refuses requests: problem+json, code `not_acceptable`.
 */
export function useNotAcceptableProblem(): Plugin {
  return {
    onRequestParse({ request, endResponse }) {
      const accept = request.headers.get('accept');
      if (accept !== null && accept.trim() !== '' && !ANSWERABLE.test(accept))
        endResponse(problemResponse(notAcceptable()));
    },
  };
}
