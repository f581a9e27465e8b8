import { OAuthError } from '../auth/oauth/errors.js';
import type { BodyRefusal } from '../http/body-limit.js';
import type { RefusalShape } from '../http/surfaces.js';
import { HttpProblem } from '../rest/problem.js';
import { page } from '../views/render.js';

/**
 * How a refusal made by the pipeline, before the surface runs, is written for each surface
 * shape (the surface table's `refusal`): the steps ask here, so the HTTP layer knows no surface.
 */
export const REFUSALS: Record<RefusalShape, BodyRefusal> = {
  problem: (status, code, detail, headers) => new HttpProblem(status, code, detail, undefined, headers).toResponse(),
  oauth: (status, _code, detail, headers) => new OAuthError('invalid_request', detail, status, headers).toResponse(),
  page: (status, _code, detail, headers) =>
    page('error', { title: 'Form not accepted', heading: 'The form could not be read', message: detail }, { status, headers }),
};
