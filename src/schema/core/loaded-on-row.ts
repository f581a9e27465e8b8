import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import type { GraphQLFieldResolver } from 'graphql';

/**
 * A row that carries some of its relations already, loaded by a hand-written statement (the
 * pages of Project.issues, src/schema/projects/issues-sql.ts), names them under this key.
 */
export const LOADED_ON_ROW = Symbol('relations loaded on the row');

/** The extension that lets a relation field answer from such a row. */
export const ANSWERS_FROM_ROW = 'answersFromRow';

/**
 * Lets a Prisma relation field (`extensions: { answersFromRow: true }`) answer with the value a
 * row carries when the row says it holds it. Pothos' prisma plugin, which this plugin wraps,
 * looks up per row which plan loaded it (`@pothos/selection-mapper`): on a 500-issue response
 * that bookkeeping for `assignee` alone cost more CPU than the statement that loaded the page.
 * A row names a relation only when nothing beneath it needs that bookkeeping (plain fields).
 */
class LoadedOnRowPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    if (!fieldConfig.extensions?.[ANSWERS_FROM_ROW]) return resolver;
    const name = fieldConfig.name;
    return (parent, args, context, info) => {
      const row = parent as { [LOADED_ON_ROW]?: readonly string[] } & Record<string, unknown>;
      return row[LOADED_ON_ROW]?.includes(name) ? row[name] : resolver(parent, args, context, info);
    };
  }
}

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      loadedOnRow: LoadedOnRowPlugin<Types>;
    }
  }
}

SchemaBuilder.registerPlugin('loadedOnRow', LoadedOnRowPlugin);
