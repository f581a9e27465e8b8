import { sessionCookie } from '../auth/session.js';
import { applyRateLimitHeaders } from '../limits/limiter.js';
import type { Step } from './pipeline.js';

/** What every response carries: the rate-limit fields, a refreshed session cookie, and safe defaults. */
export const responseHeaders: Step = async (context, next) => {
  const response = await next();
  applyRateLimitHeaders(response, [...context.decisions, ...context.operationDecisions]);
  const { principal, credentials } = context;
  const refreshed = principal.kind === 'user' ? principal.sessionRefreshedUntil : null;
  if (refreshed && credentials.sessionToken && !response.headers.has('set-cookie')) {
    response.headers.append('set-cookie', sessionCookie(context.services.config, credentials.sessionToken, refreshed));
  }
  response.headers.set('x-content-type-options', 'nosniff');
  if (!response.headers.has('cache-control')) response.headers.set('cache-control', 'no-store');
  return response;
};
