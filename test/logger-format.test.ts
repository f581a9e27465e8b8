import { describe, expect, test } from 'vitest';
import { createLogger, humanDestination, humanLine, logFormat } from '../src/logger.js';
import { logAccess } from '../src/ops/access-log.js';

describe('log format: short lines on a development terminal, JSON lines otherwise', () => {
  test('a terminal in development gets human lines; production or piped output gets JSON', () => {
    expect(logFormat(true, false)).toBe('human');
    expect(logFormat(true, true)).toBe('json');
    expect(logFormat(false, false)).toBe('json');
    expect(logFormat(undefined, false)).toBe('json');
    expect(logFormat(undefined, true)).toBe('json');
  });

  test('an access line becomes method, route, status and duration; other lines keep level, message and fields', () => {
    const out: string[] = [];
    const logger = createLogger(
      'info',
      humanDestination({ write: (s: string) => out.push(s) } as unknown as NodeJS.WritableStream),
    );
    logAccess(logger, {
      requestId: 'req-1',
      method: 'GET',
      route: '/api/issues/:id',
      status: 200,
      durationMs: 4.21,
      principal: undefined,
      clientIp: '127.0.0.1',
    });
    logger.warn({ port: 4000, key: { token: 'tok_live_secret' } }, 'something to see');
    const [access, warning] = out.join('').split('\n');
    expect(access).toMatch(/^\d\d:\d\d:\d\d GET \/api\/issues\/:id 200 4\.2 ms$/);
    expect(warning).toMatch(/^\d\d:\d\d:\d\d WARN something to see \{"port":4000,"key":\{"token":"\[redacted\]"\}\}$/);
    expect(out.join('')).not.toContain('tok_live_secret');
  });

  test('a line that is not JSON is passed through', () => {
    expect(humanLine('plain text\n')).toBe('plain text');
  });
});
