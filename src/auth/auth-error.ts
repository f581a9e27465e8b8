/**
 * A credential was presented and refused. Carries what the response needs:
 * the status, a stable code, a sentence for people, and the RFC 6750 error code
 * that goes into `WWW-Authenticate` on a 401.
 */
export class AuthError {
  constructor(
    readonly status: 400 | 401 | 403,
    readonly code: string,
    readonly detail: string,
    readonly bearerError?: 'invalid_request' | 'invalid_token' | 'insufficient_scope',
  ) {}
}

const REAUTH = 'Stop retrying this credential and re-authenticate to get a new one.';

export const authErrors = {
  malformed: () => new AuthError(401, 'token_malformed', `The token is not well-formed. ${REAUTH}`, 'invalid_token'),
  unknown: () => new AuthError(401, 'token_invalid', `The token is not valid. ${REAUTH}`, 'invalid_token'),
  revoked: () => new AuthError(401, 'token_revoked', `The token has been revoked. ${REAUTH}`, 'invalid_token'),
  expired: () => new AuthError(401, 'token_expired', `The token has expired. ${REAUTH}`, 'invalid_token'),
  conflicting: () =>
    new AuthError(400, 'conflicting_credentials', 'The request carries more than one credential (two Authorization or X-Auth-Token fields, or the two with different tokens); send one.', 'invalid_request'),
  notMember: () => new AuthError(403, 'org_forbidden', 'You are not a member of the organization named by X-Org-Id.'),
  orgMismatch: () =>
    new AuthError(403, 'org_mismatch', "X-Org-Id differs from the organization this token is bound to. Omit the header or send the token's organization."),
};
