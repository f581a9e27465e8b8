import { ERROR_TABLE, type ProblemCode } from '../schema/core/error-table.js';

/** The codes a refused credential is answered with (lower case, as metrics and logs name them). */
type AuthErrorCode = Lowercase<Extract<ProblemCode, `TOKEN_${string}` | `ORG_${string}` | 'CONFLICTING_CREDENTIALS'>>;

/**
 * A credential was presented and refused. Carries what the response needs: a stable code
 * (whose status the error table gives), a sentence for people, and the RFC 6750 error code
 * that goes into `WWW-Authenticate` on a 401.
 */
export class AuthError {
  constructor(
    readonly code: AuthErrorCode,
    readonly detail: string,
    readonly bearerError?: 'invalid_request' | 'invalid_token' | 'insufficient_scope',
  ) {}

  /** The code as the error table spells it. */
  get problemCode(): Uppercase<AuthErrorCode> {
    return this.code.toUpperCase() as Uppercase<AuthErrorCode>;
  }

  get status(): number {
    return ERROR_TABLE[this.problemCode].status;
  }
}

const REAUTH = 'Stop retrying this credential and re-authenticate to get a new one.';

export const authErrors = {
  malformed: () => new AuthError('token_malformed', `The token is not well-formed. ${REAUTH}`, 'invalid_token'),
  unknown: () => new AuthError('token_invalid', `The token is not valid. ${REAUTH}`, 'invalid_token'),
  revoked: () => new AuthError('token_revoked', `The token has been revoked. ${REAUTH}`, 'invalid_token'),
  expired: () => new AuthError('token_expired', `The token has expired. ${REAUTH}`, 'invalid_token'),
  conflicting: () =>
    new AuthError(
      'conflicting_credentials',
      'The request carries more than one credential (two Authorization or X-Auth-Token fields, or the two with different tokens); send one.',
      'invalid_request',
    ),
  notMember: () => new AuthError('org_forbidden', 'You are not a member of the organization named by X-Org-Id.'),
  orgMismatch: () =>
    new AuthError(
      'org_mismatch',
      "X-Org-Id differs from the organization this token is bound to. Omit the header or send the token's organization.",
    ),
};
