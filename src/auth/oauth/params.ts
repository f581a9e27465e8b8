import { OAuthError } from './errors.js';

/** RFC 6749 §3.1: parameters must not repeat. Returns each parameter's single value. */
export function singleValued(params: URLSearchParams): { get(name: string): string | undefined; duplicated: string[] } {
  const seen = new Map<string, string>();
  const duplicated: string[] = [];
  for (const [name, value] of params) {
    if (seen.has(name)) duplicated.push(name);
    seen.set(name, value);
  }
  return { get: (name) => seen.get(name) || undefined, duplicated: [...new Set(duplicated)] };
}

/** The form body of a back-channel request (token, revocation, introspection). */
export async function readForm(request: Request) {
  // Stryker disable next-line StringLiteral: any text but the form type is refused the same way
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) {
    throw new OAuthError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded.');
  }
  const params = singleValued(new URLSearchParams(await request.text()));
  if (params.duplicated.length)
    throw new OAuthError('invalid_request', `Parameters must not repeat: ${params.duplicated.join(', ')}.`);
  return params;
}
