import { problemResponse } from '../http/problem.js';
import { foreignHostReason, type OwnHostRule } from '../http/same-origin.js';
import { AppError } from '../schema/core/errors.js';
import type { Step } from './pipeline.js';

/**
 * The pipeline's DNS rebinding step: on a surface whose `hostBound` rule is set
 * (src/http/surfaces.ts), a request that does not name this service as its Host, or comes from
 * a browser origin CORS does not allow, is refused before any credential is looked at (MCP,
 * Streamable HTTP, "Security Warning": servers must validate Origin, and bind or check the host).
 */
export function hostCheck(rule: OwnHostRule): Step {
  return (context, next) => {
    if (!context.surface.hostBound) return next();
    const reason = foreignHostReason(context.request, rule);
    if (reason === null) return next();
    const refused = new AppError(`Cross-site request refused: ${reason} (DNS rebinding protection)`, 'CSRF_REJECTED');
    return Promise.resolve(problemResponse(refused));
  };
}
