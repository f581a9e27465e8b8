import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs on stdout. Credentials never reach a log line: see `redact`. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-auth-token"]', 'req.headers.cookie', '*.token', '*.password'],
      censor: '[redacted]',
    },
  });
}
