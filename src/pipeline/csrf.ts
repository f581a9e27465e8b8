import type { Credentials } from '../auth/authenticate.js';
import { isSameOrigin, isUnsafeMethod } from '../http/same-origin.js';
import type { Surface } from '../http/surfaces.js';
import { problemResponse } from '../http/problem.js';
import { AppError } from '../schema/core/errors.js';
import type { Step } from './pipeline.js';

/**
 * Writes a browser could be tricked into sending, cookie-authenticated API calls and page forms,
 * must come from this service's own pages (Origin, else Referer): the surface's `csrf` rule
 * (src/http/surfaces.ts) says when. The OAuth back-channel endpoints authenticate clients, not
 * cookies, and are not pages.
 */
export function csrfRefusal(
  request: Request,
  credentials: Credentials,
  surface: Surface,
  baseUrl: string,
): Response | null {
  if (!isUnsafeMethod(request.method) || credentials.token !== null) return null;
  const checked = surface.csrf === 'always' || (surface.csrf === 'with-session' && credentials.sessionToken !== null);
  if (!checked || isSameOrigin(request, baseUrl)) return null;
  return problemResponse(
    new AppError('Cross-site request refused: Origin (or Referer) must be this service.', 'CSRF_REJECTED'),
  );
}

/** The pipeline's CSRF step. */
export function csrf(baseUrl: string): Step {
  return (context, next) => {
    const refusal = csrfRefusal(context.request, context.credentials, context.surface, baseUrl);
    return refusal ? Promise.resolve(refusal) : next();
  };
}
