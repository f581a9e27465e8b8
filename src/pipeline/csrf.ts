import { isSameOrigin, isUnsafeMethod } from '../http/same-origin.js';
import { problemResponse } from '../http/problem.js';
import { AppError } from '../schema/errors.js';
import type { Exchange } from './exchange.js';

/**
 * Writes a browser could be tricked into sending, cookie-authenticated API calls and page forms,
 * must come from this service's own pages (Origin, else Referer). The OAuth back-channel
 * endpoints authenticate clients, not cookies, and are not pages.
 */
export function csrf(exchange: Exchange, baseUrl: string, isPage: (path: string) => boolean): Response | null {
  const { request, credentials, url } = exchange;
  if (!isUnsafeMethod(request.method) || credentials.token !== null) return null;
  const api = url.pathname === '/api' || url.pathname.startsWith('/api/');
  if (!((api && credentials.sessionToken !== null) || isPage(url.pathname))) return null;
  if (isSameOrigin(request, baseUrl)) return null;
  return problemResponse(new AppError('Cross-site request refused: Origin (or Referer) must be this service.', 'CSRF_REJECTED'));
}
