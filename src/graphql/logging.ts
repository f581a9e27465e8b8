import type { YogaLogger } from 'graphql-yoga';
import type { Logger } from '../logger.js';

/**
 * graphql-yoga's logger. Yoga logs at error level every error it hands to `maskError`
 * and gets back changed, which includes the client's mistakes (graphql-armor's refusals, a
 * syntax error, a bad argument): those are answered to the client and are not ours, so they
 * go to debug. The errors that are ours are logged at error level by `maskError` itself
 * (src/graphql/yoga.ts), once, with their cause.
 */
export function yogaLogger(logger: Logger): YogaLogger {
  const log = logger.child({ component: 'graphql' });
  return {
    debug: log.debug.bind(log),
    info: log.info.bind(log),
    warn: log.warn.bind(log),
    error: (error: unknown) => log.debug({ err: error }, 'GraphQL error answered to the client'),
  };
}
