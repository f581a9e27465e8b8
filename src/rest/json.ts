import { Response } from '../http/fetch-api.js';

/** A JSON response; the REST surface answers nothing else on success. */
export function json(body: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return new Response(JSON.stringify(body), {
    status: init.status ?? 200,
    headers: { 'content-type': 'application/json; charset=utf-8', ...init.headers },
  });
}

/** 204: done, nothing to say. */
export function noContent(): Response {
  return new Response(null, { status: 204 });
}
