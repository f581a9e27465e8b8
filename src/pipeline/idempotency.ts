import type { Config } from '../config.js';
import { idempotentRequest } from '../idempotency/http.js';
import { withRequestId } from '../http/problem.js';
import { withResourceMetadata } from './credentials.js';
import type { Step } from './pipeline.js';

/** A GraphQL subscription over SSE (yoga's transport): the client accepts an event stream. */
const wantsEventStream = (request: Request) => (request.headers.get('accept') ?? '').includes('text/event-stream');

/**
 * The pipeline's idempotency step, on the surfaces whose `idempotent` rule is set: a POST with
 * an Idempotency-Key runs once and its retries get the first answer (src/idempotency), which is
 * kept as the client gets it: with the request id in a problem and the resource metadata in an
 * insufficient_scope challenge.
 */
export function idempotency(config: Config): Step {
  return async (context, next) => {
    const { request, surface } = context;
    if (!surface.idempotent) return next();
    // A subscription's stream never ends: there is no answer to keep for a retry.
    if (surface.name === 'graphql' && wantsEventStream(request)) return next();
    return idempotentRequest(context.services.prisma, context.principal, request, async (_, claim) => {
      // The operations' context carries it (operationContext): their writes mark it.
      context.claim = claim;
      return withRequestId(withResourceMetadata(config, await next()), context.scope);
    });
  };
}
