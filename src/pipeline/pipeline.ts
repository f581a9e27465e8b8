import type { RequestContext } from './request-context.js';

/**
 * A named step of the pipeline: it answers the request itself (a refusal), or hands it to the
 * rest of the pipeline with `next()` and may add to the answer that comes back.
 */
export type Step = (request: RequestContext, next: () => Promise<Response>) => Promise<Response>;

/** Runs `steps` in order around `last` (the dispatch to the surface). */
export function pipeline(steps: readonly Step[], last: (request: RequestContext) => Promise<Response>) {
  return (request: RequestContext): Promise<Response> => {
    const run = (index: number): Promise<Response> =>
      index < steps.length ? steps[index]!(request, () => run(index + 1)) : last(request);
    return run(0);
  };
}
