import SchemaBuilder, {
  BasePlugin,
  type PothosOutputFieldConfig,
  type PothosOutputFieldType,
  type SchemaTypes,
} from '@pothos/core';
import type { GraphQLFieldResolver, GraphQLResolveInfo } from 'graphql';

type Path = GraphQLResolveInfo['path'];
const CHILDREN = Symbol('the interned paths one step below this one');
type Interned = Path & { [CHILDREN]?: Map<string | number, Interned> };

/**
 * Hands the resolvers beneath it one `info.path` object per response path and request.
 *
 * Pothos' prisma plugin (through @pothos/selection-mapper) records which planned query loaded a
 * field under the field's `info.path` object, and a field below finds that record by walking up
 * its own `info.path.prev` chain comparing objects. graphql-tools' executor builds each link
 * once and shares it with everything below; graphql-jit (src/graphql/compiled-execution.ts)
 * builds a new chain for every resolver call, where the lookup would always miss and every
 * relation be loaded again by its own statement. Interning the chain gives the lookup what it
 * relies on, whichever executor runs.
 *
 * Only for the fields that record or read those mappings: the fields of Prisma objects that
 * return objects or that the prisma plugin wraps, and the root fields that return objects (where
 * a query is planned from `info`). Connection wrappers (`edges`, `node`) and fields returning
 * scalars read nothing: interning their paths would cost 8% of the nested dashboard query's CPU.
 */
class StablePathsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    const onPrismaObject = fieldConfig.kind === 'PrismaObject';
    const onRoot =
      fieldConfig.kind === 'Query' || fieldConfig.kind === 'Mutation' || fieldConfig.kind === 'Subscription';
    const prismaWrapped = onPrismaObject && fieldConfig.extensions?.pothosPrismaSelect;
    if (!prismaWrapped && !((onPrismaObject || onRoot) && returnsObjects(fieldConfig.type))) return resolver;
    return (parent, args, context, info) => {
      // Each executor makes a new info object per call, so it is ours to change.
      (info as { path: Path }).path = stablePath(context as object, info.path);
      return resolver(parent, args, context, info);
    };
  }
}

function returnsObjects<Types extends SchemaTypes>(type: PothosOutputFieldType<Types>): boolean {
  if (type.kind === 'List') return returnsObjects(type.type);
  return type.kind === 'Object' || type.kind === 'Interface' || type.kind === 'Union';
}

const roots = new WeakMap<object, Map<string | number, Interned>>();

/** The one object of this request for `path`'s response path (the first seen, or a copy whose links are interned). */
function stablePath(context: object, path: Path): Path {
  let root = roots.get(context);
  if (!root) {
    root = new Map();
    roots.set(context, root);
  }
  return intern(root, path);
}

function intern(root: Map<string | number, Interned>, path: Interned): Interned {
  const prev = path.prev ? intern(root, path.prev) : undefined;
  if (prev && !prev[CHILDREN]) prev[CHILDREN] = new Map();
  const siblings = prev ? prev[CHILDREN]! : root;
  let found = siblings.get(path.key);
  if (!found) {
    found = path.prev === prev ? path : { prev, key: path.key, typename: path.typename };
    siblings.set(path.key, found);
  }
  return found;
}

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      stablePaths: StablePathsPlugin<Types>;
    }
  }
}

SchemaBuilder.registerPlugin('stablePaths', StablePathsPlugin);
