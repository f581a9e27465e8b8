import { isDeepStrictEqual } from 'node:util';
import type { TestApp } from './app.js';

/**
 * Machinery of the isolation matrix (test/isolation-matrix.test.ts): who calls, how a call is
 * sent, and how a GraphQL answer is read as one outcome. The rules themselves live in the
 * test's tables.
 */

/** The columns of the matrix, in this order. PATs, the OAuth token and the session all act in org A (acme). */
export const CALLERS = ['anonymous', 'viewer', 'member', 'manager', 'admin', 'owner', 'oauth', 'session'] as const;
export type Caller = (typeof CALLERS)[number];
export type PatCaller = Exclude<Caller, 'anonymous' | 'oauth' | 'session'>;
export type PerCaller<T> = readonly [T, T, T, T, T, T, T, T];

export interface Req {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Answer {
  status: number;
  text: string;
  json: any;
  headers: Headers;
}

/** Sends one request through the real stack and reads the whole answer once. */
export async function sendRaw(t: TestApp, req: Req, credentials: Record<string, string>): Promise<Answer> {
  // One X-Request-Id for all: problem bodies echo it (request_id), and answers are compared whole.
  const headers = { 'x-request-id': 'isolation-matrix', ...credentials, ...(req.headers ?? {}) };
  const response = await t.call(req.method, req.path, { body: req.body, headers });
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON (a 204 has no body): `text` has it.
  }
  return { status: response.status, text, json, headers: response.headers };
}

export const get = (path: string): Req => ({ method: 'GET', path });
export const gql = (query: string, variables?: Record<string, unknown>): Req => ({
  method: 'POST',
  path: '/api/graphql',
  body: variables ? { query, variables } : { query },
});

/** The selection of a mutation's result union: its type, any typed error, and the success data. */
export const result = (success: string, data = '') =>
  `__typename ... on Error { code message } ... on ${success} { data ${data} }`;

/**
 * A GraphQL answer as one outcome: the HTTP status when it is not 200 (401 for anonymous callers,
 * refused before GraphQL runs); else the code of the first error (FORBIDDEN from authScopes,
 * NOT_FOUND from a query); else, for a mutation's result union, 'ok' for its success member or the
 * typed error's code (NOT_FOUND, CONFLICT...); else 'ok'.
 */
export function gqlOutcome(answer: Answer, field: string): number | string {
  if (answer.status !== 200) return answer.status;
  const code = answer.json?.errors?.[0]?.extensions?.code;
  if (typeof code === 'string') return code;
  const value = answer.json?.data?.[field];
  if (value && typeof value === 'object' && !Array.isArray(value) && typeof value.__typename === 'string') {
    // A result union's error member carries a code; anything else (a Success, or a plain object
    // such as node's Issue) is data.
    return typeof value.code === 'string' ? value.code : 'ok';
  }
  return 'ok';
}

/** Whether two answers are the same to a client (status and body; headers such as rate limits differ). */
export function sameAnswer(a: Answer, b: Answer): boolean {
  return a.status === b.status && isDeepStrictEqual(a.json, b.json);
}

/** Every `organization { id }` anywhere in a GraphQL result. */
export function organizationIds(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) organizationIds(item, found);
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'organization' && inner && typeof inner === 'object' && 'id' in inner)
        found.add(String((inner as { id: unknown }).id));
      organizationIds(inner, found);
    }
  }
  return found;
}
