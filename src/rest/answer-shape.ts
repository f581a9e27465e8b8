import { z } from 'zod';
import type { Route } from './route.js';

/**
 * How a route's answer is shaped over HTTP, in words, derived from its success declaration: the
 * REST surface's own sentence (OpenAPI), which the MCP tools do not copy (their results are
 * objects: src/mcp/tools.ts says what they return from their own output schema).
 */
export function restAnswerSentence(route: Route): string | undefined {
  if (!(route.success.schema instanceof z.ZodArray)) return undefined;
  return route.success.headers?.includes('Link')
    ? 'A bare array, one page; the next page is in the `Link` header.'
    : 'A bare array, not paged.';
}
