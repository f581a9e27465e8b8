import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import ErrorsPlugin from '@pothos/plugin-errors';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin, { AuthScopeFailureType, type AuthFailure } from '@pothos/plugin-scope-auth';
import type { Role } from '../../auth/principal.js';
import { forbiddenMessage, hasRole, hasScope, isNotPat, isSignedIn, type FailedCheck } from './access.js';
import type { Context } from '../../context.js';
import type PrismaTypes from '../../generated/pothos-types.js';
import { getDatamodel } from '../../generated/pothos-types.js';
import { ForbiddenError, InsufficientScopeError } from './errors.js';
import { FIELD_COST, UNDECLARED_LIST_MULTIPLIER } from './list-bounds.js';
import './loaded-on-row.js';
import './stable-paths.js';
import './column-fields.js';

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  AuthScopes: { signedIn: boolean; role: Role; notPat: boolean; tokenScope: 'read' | 'write' };
  DefaultAuthStrategy: 'all';
  Scalars: { DateTime: { Input: Date; Output: Date } };
  DefaultFieldNullability: false;
  DefaultInputFieldRequiredness: true;
}>({
  // loadedOnRow and stablePaths wrap the prisma plugin's resolvers, so they come before it; a row
  // that answers for itself needs no stable path.
  // columnFields comes last: it replaces a field's own resolver, inside every other plugin's wrapper.
  plugins: [
    ScopeAuthPlugin,
    ErrorsPlugin,
    'loadedOnRow',
    'stablePaths',
    PrismaPlugin,
    RelayPlugin,
    ComplexityPlugin,
    'columnFields',
  ],
  defaultFieldNullability: false,
  defaultInputFieldRequiredness: true,
  scopeAuth: {
    // Every scope listed on a field must hold.
    defaultStrategy: 'all',
    // The predicates of src/schema/core/access.ts, which the operations check with too.
    authScopes: (ctx) => ({
      signedIn: isSignedIn(ctx.principal),
      role: (minimum) => hasRole(ctx.principal, minimum),
      notPat: isNotPat(ctx.principal),
      tokenScope: (scope) => isSignedIn(ctx.principal) && hasScope(ctx.principal, scope),
    }),
    unauthorizedError: (_parent, ctx, info, result) => {
      const scope = firstFailedScope(result.failure);
      if (scope === 'tokenScope')
        return new InsufficientScopeError(info.parentType.name === 'Mutation' ? 'write' : 'read');
      return new ForbiddenError(forbiddenMessage(ctx.principal, scope as FailedCheck | undefined));
    },
  },
  prisma: {
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    onUnusedQuery: process.env.NODE_ENV === 'test' ? 'error' : null,
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    // A connection field counts its page (first/last); its edges are that page, not a second multiplier.
    edgesFieldOptions: {
      complexity: { field: FIELD_COST, multiplier: 1 },
      description: 'The items of this page, each with its cursor.',
    },
    // The descriptions of what every connection has, written once.
    pageInfoFieldOptions: { description: 'Where this page stands in the whole list.' },
    cursorFieldOptions: { description: 'Pass it as `after` (or `before`) to continue from this item.' },
    nodeFieldOptions: { description: 'The item.' },
    pageInfoTypeOptions: { description: 'Where a page stands in its list, and the cursors to go on from it (Relay).' },
    hasNextPageFieldOptions: { description: 'Whether items follow this page.' },
    hasPreviousPageFieldOptions: { description: 'Whether items come before this page.' },
    startCursorFieldOptions: { description: "The first item's cursor; null on an empty page." },
    endCursorFieldOptions: { description: "The last item's cursor; null on an empty page." },
    firstArgOptions: { description: 'How many items from the start (or from `after`).' },
    lastArgOptions: { description: 'How many items from the end (or before `before`).' },
    afterArgOptions: { description: 'The cursor after which the page starts.' },
    beforeArgOptions: { description: 'The cursor before which the page ends.' },
  },
  errors: { defaultTypes: [] },
  // Field costs and list bounds only: the limit is checked once per request, before execution,
  // by src/graphql/query-bounds.ts (the plugin's own check would run inside the first resolver).
  complexity: { defaultComplexity: FIELD_COST, defaultListMultiplier: UNDECLARED_LIST_MULTIPLIER, disabled: true },
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
builder.queryType({
  description: 'Reads, in the organization the credential acts in (tokens with the read scope).',
  authScopes: { tokenScope: 'read' },
});
builder.mutationType({
  description:
    'Changes, in the organization the credential acts in (tokens with the write scope); each answers a union of its success and the errors that can stop it.',
  authScopes: { tokenScope: 'write' },
});
