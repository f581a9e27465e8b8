import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ERROR_TABLE, isErrorCode } from '../src/schema/core/error-table.js';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';

const SRC = new URL('../src/', import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Where a code is written as a string the compiler does not check against the table (the
 * constructors of AppError, OAuthError and AuthError take its keys as types): GraphQL errors
 * built by hand, the `data.code` of JSON-RPC errors, problem `type` URNs and the codes
 * handed to the error renderers.
 */
const CODE_LITERALS = [
  /\b(?:extensions|data)\s*[:=]\s*\{[^}]*?\bcode: '([A-Za-z_]+)'/g,
  /urn:workmgmt:problem:([a-z_]+)/g,
  /new (?:AppError|OAuthError|AuthError)\(\s*'([A-Za-z_]+)'/g,
  /new AppError\([^;]*?,\s*'([A-Z_]+)'/gs,
  /\bfail\('([a-z_]+)'/g,
  /errorRedirect\([^;]*?'([a-z_]+)'/g,
];

function codesWritten(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const pattern of CODE_LITERALS) {
      for (const match of text.matchAll(pattern)) {
        const code = match[1]!;
        found.set(code, file.slice(SRC.length));
      }
    }
  }
  return found;
}

describe('the error table', () => {
  test('every error code written in src is a key of ERROR_TABLE (problem codes in either case)', () => {
    const written = codesWritten();
    // The scan sees the hand-written places (or it would pass on nothing).
    for (const code of [
      'PERSISTED_QUERY_ONLY',
      'INTERNAL_SERVER_ERROR',
      'batch_answer_too_large',
      'access_denied',
      'MALFORMED_JSON',
    ]) {
      expect(written.has(code), code).toBe(true);
    }
    const unknown = [...written].filter(([code]) => !isErrorCode(code) && !isErrorCode(code.toUpperCase()));
    expect(unknown).toEqual([]);
  });
});

describe('answers take their status from the table', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  const problemCode = async (response: Response) => {
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = (await response.json()) as { code: string; status: number };
    expect(body.status).toBe(response.status);
    return body.code.toUpperCase() as keyof typeof ERROR_TABLE;
  };

  test('problems on every path of the pipeline', async () => {
    const { token } = t.user('olivia');
    const answers = [
      await t.call('GET', '/api/nowhere', { token }),
      await t.call('GET', '/api/projects'),
      await t.call('POST', '/api/projects', { token, body: '{', headers: { 'content-type': 'application/json' } }),
      await t.call('POST', '/api/projects', { token, body: 'x', headers: { 'content-type': 'text/plain' } }),
      await t.call('DELETE', '/api/me', { token }),
      await t.call('POST', '/api/graphql', {
        token,
        body: { query: '{ viewer { id } }' },
        headers: { accept: 'text/html' },
      }),
      await t.call('GET', '/api/me?access_token=x'),
    ];
    const codes = [];
    for (const response of answers) {
      const code = await problemCode(response);
      expect(response.status, code).toBe(ERROR_TABLE[code].status);
      codes.push(code);
    }
    expect(codes).toEqual([
      'NOT_FOUND',
      'UNAUTHENTICATED',
      'MALFORMED_JSON',
      'UNSUPPORTED_MEDIA_TYPE',
      'METHOD_NOT_ALLOWED',
      'NOT_ACCEPTABLE',
      'TOKEN_IN_URL',
    ]);
  });

  test('an RFC 6749 error at the token endpoint, with the headers its code carries', async () => {
    const response = await t.app.fetch(
      new Request(`${ORIGIN}/oauth/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'authorization_code', client_id: 'nobody' }),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${btoa('nobody:wrong')}`,
        },
      }),
    );
    const body = (await response.json()) as { error: 'invalid_client' };
    expect(body.error).toBe('invalid_client');
    expect(response.status).toBe(ERROR_TABLE.invalid_client.status);
    expect(response.headers.get('www-authenticate')).toBe(ERROR_TABLE.invalid_client.headers['www-authenticate']);
  });
});
