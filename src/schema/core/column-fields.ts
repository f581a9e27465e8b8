import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import { defaultFieldResolver, type GraphQLFieldResolver } from 'graphql';

/** The resolvers made by `column`, with the property each reads. */
const columns = new WeakMap<object, string>();

/**
 * The resolver of a field that is a column of its row, read as it is: `resolve: column('title')`.
 *
 * Such a field leaves the built schema with no resolver (see ColumnFieldsPlugin), as a field
 * `t.expose*` would, without `t.expose*` on a Prisma object, which in select mode tracks the
 * field's selection on every row it resolves. A field with no resolver is read by graphql-jit
 * (src/graphql/compiled-execution.ts) as a property access in its compiled code; a resolver
 * costs a call and a resolve-info object with its path for every row (4,000 per response of
 * the nested dashboard query).
 */
export function column<Name extends string>(
  name: Name,
): <Parent extends { [K in Name]: unknown }>(parent: Parent) => Parent[Name] {
  const read = <Parent extends { [K in Name]: unknown }>(parent: Parent) => parent[name];
  columns.set(read, name);
  return read;
}

/**
 * Replaces a `column` resolver by graphql-js' default resolver, which reads the property of the
 * field's name: Pothos then builds the field with no resolver, unless a plugin listed before this
 * one wraps it (auth scopes, errors), which keeps its wrapper around the default. A column of
 * another name than the field's keeps its resolver. Listed last, so that it sees the field's own
 * resolver.
 */
class ColumnFieldsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    return columns.get(resolver) === fieldConfig.name ? defaultFieldResolver : resolver;
  }
}

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      columnFields: ColumnFieldsPlugin<Types>;
    }
  }
}

SchemaBuilder.registerPlugin('columnFields', ColumnFieldsPlugin);
