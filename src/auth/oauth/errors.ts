import { json } from '../../http/json.js';
import { errorHeaders } from '../../http/problem.js';
import type { Response } from '../../http/fetch-api.js';
import type { OAuthErrorCode } from '../../schema/core/error-table.js';
import { AppError } from '../../schema/core/errors.js';

/**
 * An RFC 6749 error, answered as JSON `{ error, error_description }`. Its status is its code's,
 * except for `invalid_request`, which RFC 6749 also uses for an unknown endpoint (404), a wrong
 * method (405) and a body over its limit (413).
 */
export class OAuthError extends AppError {
  private readonly statusOverride: number | undefined;
  constructor(
    code: OAuthErrorCode,
    description: string,
    options: { status?: 404 | 405 | 413; headers?: Record<string, string> } = {},
  ) {
    super(description, code, { headers: options.headers });
    this.statusOverride = options.status;
  }

  override get status(): number {
    return this.statusOverride ?? super.status;
  }
}

/** The RFC 6749 renderer: the OAuth endpoints answer every error so, never cached. */
export function oauthErrorResponse(error: OAuthError): Response {
  return json(
    { error: error.code, error_description: error.message },
    { status: error.status, headers: { 'cache-control': 'no-store', pragma: 'no-cache', ...errorHeaders(error) } },
  );
}
