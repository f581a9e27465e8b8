import { Response } from '../../http/fetch-api.js';

/** An RFC 6749 error, answered as JSON `{ error, error_description }`. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }

  toResponse(): Response {
    return new Response(JSON.stringify({ error: this.error, error_description: this.description }), {
      status: this.status,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store', pragma: 'no-cache', ...this.headers },
    });
  }
}
