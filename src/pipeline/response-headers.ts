import { sessionCookie } from '../auth/session.js';
import type { Config } from '../config.js';
import { applyRateLimitHeaders } from '../limits/limiter.js';
import type { Exchange } from './exchange.js';

/** What every response carries: the rate-limit fields, a refreshed session cookie, and safe defaults. */
export function responseHeaders(config: Config, exchange: Exchange, response: Response): Response {
  applyRateLimitHeaders(response, [...exchange.decisions, ...exchange.ctx.rateLimits]);
  const { principal } = exchange.ctx;
  const refreshed = principal.kind === 'user' ? principal.sessionRefreshedUntil : null;
  if (refreshed && exchange.credentials.sessionToken && !response.headers.has('set-cookie')) {
    response.headers.append('set-cookie', sessionCookie(config, exchange.credentials.sessionToken, refreshed));
  }
  response.headers.set('x-content-type-options', 'nosniff');
  if (!response.headers.has('cache-control')) response.headers.set('cache-control', 'no-store');
  return response;
}
