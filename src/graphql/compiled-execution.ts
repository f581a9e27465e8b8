import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import {
  getNamedType,
  GraphQLError,
  getOperationAST,
  isInputObjectType,
  typeFromAST,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLInputObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type Source,
  type SourceLocation,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';

/**
 * Queries run as code compiled for their document by graphql-jit.
 *
 * graphql-tools' executor, yoga's default, walks the document for every field of every object:
 * on the nested dashboard query (organizations > projects > 50 issues > assignee, about 3,500
 * fields) that walk and the promises and paths it makes for each field are half of the
 * request's CPU. The compiled function calls the same resolvers with the same arguments and
 * builds the same result (test/graphql-compiled.test.ts compares the two executors).
 *
 * Which executor runs:
 * - only queries: mutations run one field at a time, where a walk costs little, and
 *   subscriptions stay with yoga's executor;
 * - a document is compiled once it has run `compileAfter` times (GRAPHQL_COMPILE_AFTER, 1 by
 *   default: yoga's parser cache hands the same document object to every request that sends the
 *   same text), so a stream of distinct documents costs a walk each, not a compilation each;
 * - graphql-jit overflows its stack on a variable of a recursive input type (IssueFilter's
 *   and/or/not), and some documents it cannot compile at all: those run on yoga's executor.
 *
 * graphql-jit has no abort signal: the deadline of src/graphql/query-bounds.ts ends the wait for
 * the result here, and the operations stop sending statements once it has passed
 * (src/graphql/deadline.ts, src/schema/core/operation.ts).
 */
export function useCompiledExecution(options: { compileAfter: number }): Plugin<Context> {
  /**
   * Per document, and per operation of it (a document may hold several, the request names the
   * one to run): its compiled query, `null` for one yoga's executor runs, or how many times it has run so far.
   */
  const documents = new WeakMap<DocumentNode, Map<string, CompiledQuery | null | number>>();
  let recursiveInputs: { schema: GraphQLSchema; types: Set<string> } | undefined;

  function compiled(
    schema: GraphQLSchema,
    document: DocumentNode,
    operationName: string | null | undefined,
  ): CompiledQuery | null {
    let operations = documents.get(document);
    if (!operations) {
      operations = new Map();
      documents.set(document, operations);
    }
    const name = operationName ?? '';
    const runs = operations.get(name) ?? 0;
    if (typeof runs !== 'number') return runs;
    if (runs < options.compileAfter) {
      operations.set(name, runs + 1);
      return null;
    }
    if (recursiveInputs?.schema !== schema) recursiveInputs = { schema, types: recursiveInputTypes(schema) };
    const operation = getOperationAST(document, operationName);
    const compilable =
      operation?.operation === 'query' && !declaresVariableOf(schema, operation, recursiveInputs.types);
    const result = compilable ? compileQuery(schema, document, operationName ?? undefined) : null;
    const query = result && isCompiledQuery(result) ? result : null;
    operations.set(name, query);
    return query;
  }

  return {
    onExecute({ args, setExecuteFn }) {
      const query = compiled(args.schema, args.document, args.operationName);
      if (!query) return;
      const source = args.document.loc?.source;
      setExecuteFn((run) => {
        const result = untilAborted(
          query.query(run.rootValue, run.contextValue, run.variableValues),
          (run as { signal?: AbortSignal }).signal,
        );
        return result instanceof Promise ? result.then((done) => located(done, source)) : located(result, source);
      });
    },
  };
}

/**
 * graphql-jit's errors carry their locations as line and column only, and yoga rebuilds every
 * error from its source positions (dropping `locations`): rebuilt here as graphql-js' own, from
 * the document's source, so an error points at its field as it does from yoga's executor.
 */
function located(result: ExecutionResult, source: Source | undefined): ExecutionResult {
  if (!result.errors?.length || !source) return result;
  const errors = result.errors.map((error) =>
    error.locations && !error.positions
      ? new GraphQLError(error.message, {
          source,
          positions: error.locations.map((location) => offsetOf(source.body, location)),
          path: error.path,
          originalError: error.originalError,
          extensions: error.extensions,
        })
      : error,
  );
  return { ...result, errors };
}

/** The offset in `body` of a line and column (both from 1), lines ending as GraphQL's lexer ends them. */
function offsetOf(body: string, { line, column }: SourceLocation): number {
  const lineEnd = /\r\n|[\n\r]/g;
  let start = 0;
  for (let n = 1; n < line; n++) {
    const found = lineEnd.exec(body);
    if (!found) break;
    start = found.index + found[0].length;
  }
  return start + column - 1;
}

/** Whether the operation declares a variable whose type contains one of `types`. */
function declaresVariableOf(schema: GraphQLSchema, operation: OperationDefinitionNode, types: Set<string>): boolean {
  return (operation.variableDefinitions ?? []).some((definition) => {
    const type = typeFromAST(schema, definition.type);
    return type !== undefined && types.has(getNamedType(type).name);
  });
}

/**
 * The input object types graphql-jit cannot coerce a variable of: those that contain themselves,
 * directly or through other input types, and those that contain one of them.
 */
function recursiveInputTypes(schema: GraphQLSchema): Set<string> {
  const inputs = Object.values(schema.getTypeMap()).filter(isInputObjectType);
  const reachable = (from: GraphQLInputObjectType): Set<string> => {
    const seen = new Set<string>();
    const visit = (type: GraphQLInputObjectType) => {
      for (const field of Object.values(type.getFields())) {
        const named = getNamedType(field.type);
        if (isInputObjectType(named) && !seen.has(named.name)) {
          seen.add(named.name);
          visit(named);
        }
      }
    };
    visit(from);
    return seen;
  };
  const reaches = new Map(inputs.map((type) => [type.name, reachable(type)]));
  const cyclic = inputs.filter((type) => reaches.get(type.name)!.has(type.name)).map((type) => type.name);
  return new Set(
    inputs.filter((type) => cyclic.some((name) => reaches.get(type.name)!.has(name))).map((type) => type.name),
  );
}

/** `result`, or a rejection with the signal's reason if it aborts first. */
function untilAborted<T extends ExecutionResult>(
  result: T | Promise<T>,
  signal: AbortSignal | undefined,
): T | Promise<T> {
  if (!signal || !(result instanceof Promise)) return result;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    result.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        // An operation past the deadline failed its field and aborted the signal (src/graphql/deadline.ts):
        // the whole execution fails with it, as yoga's executor fails it.
        if (signal.aborted) reject(signal.reason as Error);
        else resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}
