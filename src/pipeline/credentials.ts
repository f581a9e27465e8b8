import { AuthError } from '../auth/auth-error.js';
import { authenticate } from '../auth/authenticate.js';
import { resourceMetadataUrl } from '../auth/oauth/metadata.js';
import { SCOPE_NAMES } from '../auth/oauth/scopes.js';
import type { Config } from '../config.js';
import { graphqlAuthResponse } from '../graphql/auth-errors.js';
import { reportAuthFailure, type RequestScope } from '../ops/request-scope.js';
import { problemResponse } from '../http/problem.js';
import { AppError } from '../schema/core/errors.js';
import type { Step } from './pipeline.js';

function bearerChallenge(config: Config, error?: AuthError): string {
  const parts = [
    `realm="${config.baseUrl}/api"`,
    `resource_metadata="${resourceMetadataUrl(config)}"`,
    `scope="${SCOPE_NAMES.join(' ')}"`,
  ];
  if (error?.bearerError)
    parts.push(`error="${error.bearerError}"`, `error_description="${error.detail.replace(/"/g, "'")}"`);
  return `Bearer ${parts.join(', ')}`;
}

/** An AuthError as the API's problem, with the RFC 6750 challenge on a 401 (RFC 9728 `resource_metadata`). */
function authProblem(config: Config, error: AuthError, scope: RequestScope): AppError {
  reportAuthFailure(scope, error.code);
  const headers: Record<string, string> =
    error.status === 401 ? { 'www-authenticate': bearerChallenge(config, error) } : {};
  return new AppError(error.detail, error.problemCode, { headers });
}

/**
 * The pipeline's credentials step: authenticates the request as its surface's `credentials`
 * rule says (src/http/surfaces.ts) and writes the principal. Pages take the session cookie only
 * (a bearer token is not a browser's) and are served signed out when it is not valid; the API
 * takes any credential and refuses a request without a valid one; public surfaces take none.
 */
export function credentials(config: Config): Step {
  return async (context, next) => {
    const { request, url, surface, scope, auth } = context;
    if (surface.credentials === 'none') return next();
    if (surface.credentials === 'session') {
      const principal = await authenticate(auth, { ...context.credentials, token: null });
      if (!(principal instanceof AuthError)) context.principal = principal;
      return next();
    }
    // GraphQL-over-HTTP clients get the same status and challenge in a GraphQL response body.
    const refuse = (problem: AppError) =>
      (surface.name === 'graphql' && graphqlAuthResponse(request, problem)) || problemResponse(problem);
    // A token in the URL ends up in logs: refused with what the client did wrong, whatever else it sent (RFC 6750 §5.3).
    if (url.searchParams.has('access_token')) {
      const error = new AuthError(
        'token_in_url',
        'Send tokens in the Authorization header, never in the URL (where they end up in logs).',
        'invalid_request',
      );
      return problemResponse(authProblem(config, error, scope));
    }
    const principal = await authenticate(auth, context.credentials);
    if (principal instanceof AuthError) return refuse(authProblem(config, principal, scope));
    context.principal = principal;
    if (principal.kind === 'anonymous') {
      reportAuthFailure(scope, 'unauthenticated');
      return refuse(
        new AppError('Send a credential: Authorization: Bearer <token> (or X-Auth-Token).', 'UNAUTHENTICATED', {
          headers: { 'www-authenticate': bearerChallenge(config) },
        }),
      );
    }
    return next();
  };
}

/**
 * A 403 insufficient_scope challenge also says where the resource's metadata is (RFC 9728 §5.1),
 * so a client can step up: the operation that refused (src/schema/core/errors.ts) does not know our URL.
 */
export function withResourceMetadata(config: Config, response: Response): Response {
  const challenge = response.headers.get('www-authenticate');
  if (
    response.status === 403 &&
    challenge?.includes('error="insufficient_scope"') &&
    !challenge.includes('resource_metadata=')
  ) {
    response.headers.set('www-authenticate', `${challenge}, resource_metadata="${resourceMetadataUrl(config)}"`);
  }
  return response;
}
