import SchemaBuilder from '@pothos/core';
import ErrorsPlugin from '@pothos/plugin-errors';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin, { AuthScopeFailureType, type AuthFailure } from '@pothos/plugin-scope-auth';
import { roleAtLeast, type Role } from '../auth/principal.js';
import type { Context } from '../context.js';
import type PrismaTypes from '../generated/pothos-types.js';
import { getDatamodel } from '../generated/pothos-types.js';
import { ForbiddenError, InsufficientScopeError } from './errors.js';

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  AuthScopes: { signedIn: boolean; role: Role; notPat: boolean; tokenScope: 'read' | 'write' };
  DefaultAuthStrategy: 'all';
  Scalars: { DateTime: { Input: Date; Output: Date } };
  DefaultFieldNullability: false;
  DefaultInputFieldRequiredness: true;
}>({
  plugins: [ScopeAuthPlugin, ErrorsPlugin, PrismaPlugin, RelayPlugin],
  defaultFieldNullability: false,
  defaultInputFieldRequiredness: true,
  scopeAuth: {
    // Every scope listed on a field must hold.
    defaultStrategy: 'all',
    authScopes: (ctx) => ({
      signedIn: ctx.principal.kind === 'user',
      role: (minimum) => ctx.principal.kind === 'user' && !!ctx.principal.org && roleAtLeast(ctx.principal.org.role, minimum),
      notPat: ctx.principal.kind === 'user' && ctx.principal.credential.kind !== 'pat',
      // Only OAuth tokens carry scopes; keys and sessions are limited by the role alone.
      tokenScope: (scope) => ctx.principal.kind === 'user' && (!ctx.principal.scopes || ctx.principal.scopes.includes(scope)),
    }),
    unauthorizedError: (_parent, ctx, info, result) => {
      const scope = firstFailedScope(result.failure);
      if (scope === 'tokenScope') return new InsufficientScopeError(info.parentType.name === 'Mutation' ? 'write' : 'read');
      return new ForbiddenError(forbiddenMessage(ctx, scope));
    },
  },
  prisma: {
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    onUnusedQuery: process.env.NODE_ENV === 'test' ? 'error' : null,
  },
  relay: { clientMutationId: 'omit', cursorType: 'String' },
  errors: { defaultTypes: [] },
});

function firstFailedScope(failure: AuthFailure): string | undefined {
  if (failure.kind === AuthScopeFailureType.AuthScope) return failure.scope;
  if (failure.kind === AuthScopeFailureType.AllAuthScopes || failure.kind === AuthScopeFailureType.AnyAuthScopes) {
    for (const inner of failure.failures) {
      const scope = firstFailedScope(inner);
      if (scope) return scope;
    }
  }
  return undefined;
}

function forbiddenMessage(ctx: Context, scope: string | undefined): string {
  if (ctx.principal.kind !== 'user') return 'Sign in first.';
  if (scope === 'notPat') {
    return 'An API key cannot do this (a key cannot mint or revoke keys, nor act across organizations). Use a browser session or an OAuth token.';
  }
  if (!ctx.principal.org) return 'Select an organization with the X-Org-Id header.';
  return 'Your role in this organization does not allow this operation.';
}

// Reading needs the `read` scope and every mutation `write`, on both surfaces, for OAuth tokens.
builder.queryType({ authScopes: { tokenScope: 'read' } });
builder.mutationType({ authScopes: { tokenScope: 'write' } });
