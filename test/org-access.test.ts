import { describe, expect, test } from 'vitest';
import { anonymous, ROLES, roleAtLeast, type Principal, type Role, type UserPrincipal } from '../src/auth/principal.js';
import { authorize, forbiddenMessage, hasRole, hasScope, isNotPat, isSignedIn } from '../src/schema/core/access.js';
import { ForbiddenError, InsufficientScopeError } from '../src/schema/core/errors.js';
import { activeOrgId, viewer } from '../src/schema/people/viewer.js';
import type { Context } from '../src/context.js';

// Who may call an operation, and which organization it filters by, one predicate at a time and
// without a database, so that mutation testing (stryker/org-filtering.config.mjs) judges each
// change to them in milliseconds. The same rules through the whole stack: test/isolation-matrix.test.ts.

const ORG = '6a1f0000-0000-4000-8000-000000000001';

function user(
  options: { role?: Role | null; credential?: UserPrincipal['credential']['kind']; scopes?: string[] } = {},
): UserPrincipal {
  const role = options.role === undefined ? 'member' : options.role;
  return {
    kind: 'user',
    userId: 'u1',
    credential: { kind: options.credential ?? 'session', id: 'c1' },
    org: role === null ? null : { id: ORG, role },
    orgBound: false,
    ...(options.scopes ? { scopes: options.scopes } : {}),
  };
}
const operator: Principal = { kind: 'operator', org: { id: ORG, role: 'owner' } };
const operatorWithoutOrg: Principal = { kind: 'operator', org: null };

describe('roles', () => {
  test('are ordered from least to most powerful', () => {
    expect(ROLES).toEqual(['viewer', 'member', 'manager', 'admin', 'owner']);
  });

  test('a role is at least every role before it and itself, never one after it', () => {
    ROLES.forEach((role, i) => {
      ROLES.forEach((minimum, j) => {
        expect(roleAtLeast(role, minimum), `${role} >= ${minimum}`).toBe(i >= j);
      });
    });
  });
});

describe('the predicates of access', () => {
  test('hasRole: the role in the organization acted in, or the operator; no organization is no role', () => {
    expect(hasRole(user({ role: 'manager' }), 'manager')).toBe(true);
    expect(hasRole(user({ role: 'manager' }), 'member')).toBe(true);
    expect(hasRole(user({ role: 'manager' }), 'admin')).toBe(false);
    expect(hasRole(user({ role: 'owner' }), 'viewer')).toBe(true);
    expect(hasRole(user({ role: null }), 'viewer')).toBe(false);
    expect(hasRole(anonymous, 'viewer')).toBe(false);
    expect(hasRole(operator, 'owner')).toBe(true);
  });

  test('isSignedIn: anyone but the anonymous', () => {
    expect(isSignedIn(anonymous)).toBe(false);
    expect(isSignedIn(user())).toBe(true);
    expect(isSignedIn(operator)).toBe(true);
  });

  test('isNotPat: sessions, OAuth tokens and the operator; not an API key, not the anonymous', () => {
    expect(isNotPat(user({ credential: 'pat' }))).toBe(false);
    expect(isNotPat(user({ credential: 'session' }))).toBe(true);
    expect(isNotPat(user({ credential: 'oauth' }))).toBe(true);
    expect(isNotPat(operator)).toBe(true);
    expect(isNotPat(anonymous)).toBe(false);
  });

  test('hasScope: an OAuth token needs the scope; credentials without scopes and the operator pass', () => {
    expect(hasScope(user({ credential: 'oauth', scopes: ['read'] }), 'read')).toBe(true);
    expect(hasScope(user({ credential: 'oauth', scopes: ['read'] }), 'write')).toBe(false);
    expect(hasScope(user({ credential: 'oauth', scopes: [] }), 'read')).toBe(false);
    expect(hasScope(user({ credential: 'session' }), 'write')).toBe(true);
    expect(hasScope(operator, 'write')).toBe(true);
    expect(hasScope(anonymous, 'read')).toBe(false);
  });
});

describe('forbiddenMessage', () => {
  test('tells each caller what to do', () => {
    expect(forbiddenMessage(anonymous, 'signedIn')).toBe('Sign in first.');
    expect(forbiddenMessage(operator, 'role')).toBe('Sign in first.');
    expect(forbiddenMessage(user({ credential: 'pat' }), 'notPat')).toBe(
      'An API key cannot do this (a key cannot mint or revoke keys, nor act across organizations). Use a browser session or an OAuth token.',
    );
    expect(forbiddenMessage(user({ role: null }), 'role')).toBe('Select an organization with the X-Org-Id header.');
    expect(forbiddenMessage(user({ role: 'viewer' }), 'role')).toBe(
      'Your role in this organization does not allow this operation.',
    );
    expect(forbiddenMessage(user({ role: 'viewer' }), undefined)).toBe(
      'Your role in this organization does not allow this operation.',
    );
  });
});

describe('authorize', () => {
  const refusal = (principal: Principal, kind: 'read' | 'write', access: Parameters<typeof authorize>[2]) => {
    try {
      authorize(principal, kind, access);
      return null;
    } catch (error) {
      return error as Error;
    }
  };

  test('the scope comes first: a read-only token is refused a write whatever its role', () => {
    const error = refusal(user({ role: 'owner', credential: 'oauth', scopes: ['read'] }), 'write', {});
    expect(error).toBeInstanceOf(InsufficientScopeError);
    expect((error as InsufficientScopeError).scope).toBe('write');
    expect(
      refusal(user({ role: 'owner', credential: 'oauth', scopes: ['read'] }), 'read', { role: 'owner' }),
    ).toBeNull();
  });

  test('the anonymous are refused every operation', () => {
    expect(refusal(anonymous, 'read', {})).toBeInstanceOf(Error);
    expect(refusal(anonymous, 'write', { role: 'viewer' })).toBeInstanceOf(Error);
  });

  test('a signed-in caller needs nothing more for an operation without conditions', () => {
    expect(refusal(user({ role: null }), 'write', {})).toBeNull();
  });

  test('an API key is refused what keys may not do, with the message saying so', () => {
    const error = refusal(user({ credential: 'pat', role: 'owner' }), 'write', { notPat: true, role: 'viewer' });
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error!.message).toMatch(/^An API key cannot do this/);
    expect(refusal(user({ credential: 'pat', role: 'owner' }), 'write', { role: 'owner' })).toBeNull();
    expect(refusal(user({ credential: 'session', role: 'owner' }), 'write', { notPat: true })).toBeNull();
  });

  test("a role below the operation's is refused; the operation's role or above passes", () => {
    const error = refusal(user({ role: 'member' }), 'write', { role: 'manager' });
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error!.message).toBe('Your role in this organization does not allow this operation.');
    expect(refusal(user({ role: null }), 'read', { role: 'viewer' })!.message).toBe(
      'Select an organization with the X-Org-Id header.',
    );
    expect(refusal(user({ role: 'manager' }), 'write', { role: 'manager' })).toBeNull();
    expect(refusal(operator, 'write', { role: 'owner', notPat: true })).toBeNull();
  });
});

describe('the organization a request acts in', () => {
  const ctx = (principal: Principal) => ({ principal }) as Context;
  const thrown = (f: () => unknown) => {
    try {
      f();
    } catch (error) {
      return error as Error;
    }
    throw new Error('nothing thrown');
  };

  test('viewer: the signed-in user, else Sign in first', () => {
    const signedIn = user();
    expect(viewer(ctx(signedIn))).toBe(signedIn);
    for (const principal of [anonymous, operator]) {
      const error = thrown(() => viewer(ctx(principal)));
      expect(error).toBeInstanceOf(ForbiddenError);
      expect(error.message).toBe('Sign in first.');
    }
  });

  test("activeOrgId: the user's or the operator's organization; none is refused, never guessed", () => {
    expect(activeOrgId(ctx(user()))).toBe(ORG);
    expect(activeOrgId(ctx(operator))).toBe(ORG);
    for (const principal of [user({ role: null }), operatorWithoutOrg]) {
      const error = thrown(() => activeOrgId(ctx(principal)));
      expect(error).toBeInstanceOf(ForbiddenError);
      expect(error.message).toBe('Select an organization with the X-Org-Id header.');
    }
    expect(thrown(() => activeOrgId(ctx(anonymous))).message).toBe('Sign in first.');
  });
});
