import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs on stdout (or `destination`). Credentials never reach a log line: see
 * `redact`. A line about a request carries its `request_id`: it is written through
 * requestLogger (src/ops/request-scope.ts).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: ['req.headers.authorization', 'req.headers["x-auth-token"]', 'req.headers.cookie', '*.token', '*.password'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
