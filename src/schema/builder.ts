import SchemaBuilder from '@pothos/core';
import ErrorsPlugin from '@pothos/plugin-errors';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { roleAtLeast, type Role } from '../auth/principal.js';
import type { Context } from '../context.js';
import type PrismaTypes from '../generated/pothos-types.js';
import { getDatamodel } from '../generated/pothos-types.js';
import { ForbiddenError } from './errors.js';

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  AuthScopes: { signedIn: boolean; role: Role };
  Scalars: { DateTime: { Input: Date; Output: Date } };
  DefaultFieldNullability: false;
  DefaultInputFieldRequiredness: true;
}>({
  plugins: [ScopeAuthPlugin, ErrorsPlugin, PrismaPlugin, RelayPlugin],
  defaultFieldNullability: false,
  defaultInputFieldRequiredness: true,
  scopeAuth: {
    authScopes: (ctx) => ({
      signedIn: ctx.principal.kind === 'user',
      role: (minimum) => ctx.principal.kind === 'user' && !!ctx.principal.org && roleAtLeast(ctx.principal.org.role, minimum),
    }),
    unauthorizedError: (_parent, ctx) =>
      new ForbiddenError(
        ctx.principal.kind === 'user' && !ctx.principal.org
          ? 'Select an organization with the X-Org-Id header.'
          : 'Your role in this organization does not allow this operation.',
      ),
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

builder.queryType({});
builder.mutationType({});
