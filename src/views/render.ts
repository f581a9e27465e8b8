import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import { Response } from '../http/fetch-api.js';
import { formatDate, formatDay, timeTag } from './time.js';

// Every `<%= %>` is HTML-escaped by Eta; raw output (`<%~ %>`) is used only for the layout's body,
// included templates, and HTML that escapes its own values (it.time, the rendered description).
const eta = new Eta({ views: fileURLToPath(new URL('./templates', import.meta.url)), autoEscape: true, cache: true });

/**
 * The pages' Content-Security-Policy; `formTargets` are extra origins a form may lead to (OAuth
 * redirects). connect-src 'self': the palette's search and the board's drag and drop call this
 * origin, and nothing else.
 */
export function contentSecurityPolicy(formTargets: string[] = []): string {
  return `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'${formTargets.map((t) => ` ${t}`).join('')}; frame-ancestors 'none'; base-uri 'none'`;
}

const SECURITY_HEADERS = {
  'content-security-policy': contentSecurityPolicy(),
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
};

/** A server-rendered page. */
export function page(
  view: string,
  data: Record<string, unknown>,
  init: { status?: number; headers?: Record<string, string> } = {},
): Response {
  const html = eta.render(`./${view}`, {
    date: formatDate,
    day: formatDay,
    time: timeTag,
    user: null,
    orgs: [],
    currentOrg: null,
    ...data,
  });
  return new Response(html, {
    status: init.status ?? 200,
    headers: { 'content-type': 'text/html; charset=utf-8', ...SECURITY_HEADERS, ...init.headers },
  });
}

export function redirect(location: string, headers: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { location, ...headers } });
}
