import { pino, type DestinationStream, type Logger } from 'pino';
import { currentRequestId } from './ops/request-scope.js';

export type { Logger };

/**
 * Structured JSON logs on stdout (or `destination`). Credentials never reach a log line: see
 * `redact`. Every line written while a request is served carries its `request_id` (the mixin
 * reads it from the request scope, so no module has to pass a child logger around).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: ['req.headers.authorization', 'req.headers["x-auth-token"]', 'req.headers.cookie', '*.token', '*.password'],
        censor: '[redacted]',
      },
      mixin: () => {
        const id = currentRequestId();
        return id === undefined ? {} : { request_id: id };
      },
    },
    destination,
  );
}
