import { OAuthError, oauthErrorResponse } from '../auth/oauth/errors.js';
import type { BodyRefusal } from '../http/body-limit.js';
import { errorHeaders, problemResponse } from '../http/problem.js';
import type { RefusalShape } from '../http/surfaces.js';
import { page } from '../views/render.js';

/**
 * How a refusal made by the pipeline, before the surface runs, is written for each surface
 * shape (the surface table's `refusal`): the steps ask here, so the HTTP layer knows no surface.
 * Each carries the headers its code has in the error table (a refused body closes the connection).
 */
export const REFUSALS: Record<RefusalShape, BodyRefusal> = {
  problem: (error) => problemResponse(error),
  oauth: (error) =>
    oauthErrorResponse(
      new OAuthError('invalid_request', error.message, {
        status: error.status === 413 ? 413 : undefined,
        headers: errorHeaders(error),
      }),
    ),
  page: (error) =>
    page(
      'error',
      { title: 'Form not accepted', heading: 'The form could not be read', message: error.message },
      { status: error.status, headers: errorHeaders(error) },
    ),
};
