import { Writable } from 'node:stream';
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
        paths: [
          'req.headers.authorization',
          'req.headers["x-auth-token"]',
          'req.headers.cookie',
          '*.token',
          '*.password',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

export type LogFormat = 'json' | 'human';

/**
 * JSON lines for machines (production, or stdout piped to a file or a collector); short lines
 * for a person watching a terminal during development, where a JSON object per request buries
 * what matters.
 */
export function logFormat(stdoutIsTTY: boolean | undefined, production: boolean): LogFormat {
  return stdoutIsTTY === true && !production ? 'human' : 'json';
}

const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
/** Fields every pino line has; the human line shows the rest only when they say something. */
const PINO_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'msg']);

/**
 * One pino JSON line as a short line: `12:04:05 GET /api/issues/:id 200 4.2 ms` for a request,
 * `12:04:05 WARN <message> {other fields}` for anything else. It reads the line pino already
 * wrote (redaction applied), so it shows nothing the JSON line would not.
 */
export function humanLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.trimEnd();
  }
  const time = new Date(typeof entry.time === 'number' ? entry.time : Date.now()).toISOString().slice(11, 19);
  if (entry.msg === 'request' && typeof entry.method === 'string') {
    return `${time} ${entry.method} ${String(entry.route)} ${String(entry.status)} ${String(entry.duration_ms)} ms`;
  }
  const level = LEVEL_NAMES[entry.level as number] ?? String(entry.level);
  const rest = Object.fromEntries(Object.entries(entry).filter(([name]) => !PINO_FIELDS.has(name)));
  return `${time} ${level} ${String(entry.msg ?? '')}${Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : ''}`;
}

/** A destination that writes each pino line to `out` as humanLine renders it. */
export function humanDestination(out: NodeJS.WritableStream): DestinationStream {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) out.write(`${humanLine(line)}\n`);
      done();
    },
  });
}
