import { roleAtLeast, type Principal, type Role } from '../../auth/principal.js';
import { ForbiddenError, InsufficientScopeError } from './errors.js';

/**
 * Who may call an operation. Every condition given must hold; a signed-in user is always needed
 * (an operation is never anonymous). Checked by the operation itself (src/schema/core/operation.ts),
 * so the GraphQL field, the REST route, the CLI and every later surface obey the same rule, and
 * by the Pothos scopes of the builder, which use the predicates below.
 */
export interface Access {
  /** The least role in the organization the request acts in. */
  role?: Role;
  /** Not with an API key: minting keys, acting across organizations. */
  notPat?: true;
}

/** What an operation does, which decides the OAuth scope it needs (RFC 6749 §3.3). */
export type OperationKind = 'read' | 'write';

export const hasRole = (principal: Principal, minimum: Role) =>
  // Stryker disable next-line ConditionalExpression: only users and operators have an org, and operators pass before
  principal.kind === 'operator' ||
  (principal.kind === 'user' && !!principal.org && roleAtLeast(principal.org.role, minimum));

export const isSignedIn = (principal: Principal) => principal.kind !== 'anonymous';

export const isNotPat = (principal: Principal) =>
  principal.kind === 'operator' || (principal.kind === 'user' && principal.credential.kind !== 'pat');

/** Only OAuth tokens carry scopes; keys and sessions are limited by the role alone. */
export const hasScope = (principal: Principal, scope: OperationKind) =>
  principal.kind === 'operator' ||
  (principal.kind === 'user' && (!principal.scopes || principal.scopes.includes(scope)));

export type FailedCheck = 'signedIn' | 'notPat' | 'role';

/** Why a principal is refused, in words that tell the caller what to do. */
export function forbiddenMessage(principal: Principal, failed: FailedCheck | undefined): string {
  if (principal.kind !== 'user') return 'Sign in first.';
  if (failed === 'notPat') {
    return 'An API key cannot do this (a key cannot mint or revoke keys, nor act across organizations). Use a browser session or an OAuth token.';
  }
  if (!principal.org) return 'Select an organization with the X-Org-Id header.';
  return 'Your role in this organization does not allow this operation.';
}

/** Throws the error a principal gets for an operation it may not call: the scope first, as the GraphQL root types check it. */
export function authorize(principal: Principal, kind: OperationKind, access: Access): void {
  if (!hasScope(principal, kind)) throw new InsufficientScopeError(kind);
  // Stryker disable next-line all: unreachable, as hasScope above already refuses the anonymous (the one not signed in)
  if (!isSignedIn(principal)) throw new ForbiddenError(forbiddenMessage(principal, 'signedIn'));
  if (access.notPat && !isNotPat(principal)) throw new ForbiddenError(forbiddenMessage(principal, 'notPat'));
  // Stryker disable next-line StringLiteral: forbiddenMessage tells only 'notPat' apart; any other reason reads the same
  if (access.role && !hasRole(principal, access.role)) throw new ForbiddenError(forbiddenMessage(principal, 'role'));
}
