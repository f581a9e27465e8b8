import { boundedBody } from '../http/body-limit.js';
import { Response } from '../http/fetch-api.js';
import type { Step } from './pipeline.js';
import { REFUSALS } from './refusals.js';

/**
 * The pipeline's body step: the request's body is read within its surface's limit before the
 * surface sees it (src/http/body-limit.ts), or refused in the surface's shape.
 */
export const body: Step = async (context, next) => {
  const { surface } = context;
  if (surface.body === 'none') return next();
  const bounded = await boundedBody(context.request, surface.body, REFUSALS[surface.refusal]);
  if (bounded instanceof Response) return bounded;
  context.request = bounded;
  return next();
};
