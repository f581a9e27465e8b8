import SchemaBuilder from '@pothos/core';
import ErrorsPlugin from '@pothos/plugin-errors';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin, { AuthScopeFailureType, type AuthFailure } from '@pothos/plugin-scope-auth';
import type { Role } from '../auth/principal.js';
import { forbiddenMessage, hasRole, hasScope, isNotPat, isSignedIn, type FailedCheck } from './access.js';
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
    // The predicates of src/schema/access.ts, which the operations check with too.
    authScopes: (ctx) => ({
      signedIn: isSignedIn(ctx.principal),
      role: (minimum) => hasRole(ctx.principal, minimum),
      notPat: isNotPat(ctx.principal),
      tokenScope: (scope) => isSignedIn(ctx.principal) && hasScope(ctx.principal, scope),
    }),
    unauthorizedError: (_parent, ctx, info, result) => {
      const scope = firstFailedScope(result.failure);
      if (scope === 'tokenScope') return new InsufficientScopeError(info.parentType.name === 'Mutation' ? 'write' : 'read');
      return new ForbiddenError(forbiddenMessage(ctx.principal, scope as FailedCheck | undefined));
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

// Reading needs the `read` scope and every mutation `write`, on both surfaces, for OAuth tokens.
builder.queryType({ authScopes: { tokenScope: 'read' } });
builder.mutationType({ authScopes: { tokenScope: 'write' } });
