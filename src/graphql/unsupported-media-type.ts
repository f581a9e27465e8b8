import type { Plugin } from 'graphql-yoga';
import { problemResponse, problems } from '../http/problem.js';

/**
 * A POST that none of yoga's request parsers accepts gets yoga's bare 415 (no body, no
 * content type). This answers it as the rest of /api answers a request refused before any
 * GraphQL document exists (401, 413, 429): problem+json, code `unsupported_media_type`.
 * Listed among the user plugins, which run after yoga's own parsers have had their say.
 */
export function useUnsupportedMediaTypeProblem(): Plugin {
  return {
    onRequestParse({ request, requestParser, endResponse }) {
      if (request.method === 'POST' && requestParser === undefined)
        endResponse(problemResponse(problems.unsupportedMediaType()));
    },
  };
}
