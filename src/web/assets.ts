import { readFileSync } from 'node:fs';
import { Response } from '../http/fetch-api.js';

const TYPES: Record<string, string> = {
  'app.css': 'text/css; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};
const files = new Map(
  Object.keys(TYPES).map((name) => [name, readFileSync(new URL(`./assets/${name}`, import.meta.url))]),
);

/** GET /assets/<name>: the pages' stylesheet and script, read once at start. */
export function asset(name: string): Response | null {
  const body = files.get(name);
  if (!body) return null;
  return new Response(body, { headers: { 'content-type': TYPES[name]!, 'cache-control': 'public, max-age=3600' } });
}
