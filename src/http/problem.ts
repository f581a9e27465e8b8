import { STATUS_CODES } from 'node:http';
import { errorEntry } from '../schema/core/error-table.js';
import type { AppError } from '../schema/core/errors.js';
import { Response } from './fetch-api.js';

/**
 * The RFC 9457 renderer: every refusal that is not an OAuth endpoint's, a GraphQL result's or
 * a page's is this document (REST, GraphQL before it runs, MCP tool results, the pipeline's
 * steps, health, the server's own refusals). `code` is stable for programs; `detail` is for people.
 */
export function problemBody(error: AppError): Record<string, unknown> {
  const code = error.code.toLowerCase();
  const body: Record<string, unknown> = {
    type: `urn:workmgmt:problem:${code}`,
    title: STATUS_CODES[error.status] ?? 'Error',
    status: error.status,
    detail: error.message,
    code,
  };
  if (error.errors?.length) body.errors = error.errors;
  return body;
}

/** The headers of an answer with `error`: those every answer with its code carries, then its own. */
export function errorHeaders(error: AppError): Record<string, string> {
  return { ...errorEntry(error.code).headers, ...error.headers };
}

export function problemResponse(error: AppError): Response {
  return new Response(JSON.stringify(problemBody(error)), {
    status: error.status,
    headers: { 'content-type': 'application/problem+json', ...errorHeaders(error) },
  });
}
