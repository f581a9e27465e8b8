import {
  coerceInputValue,
  execute,
  GraphQLError,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isNonNullType,
  parse,
  typeFromAST,
  validate,
  type DocumentNode,
  type GraphQLInputType,
  type VariableDefinitionNode,
} from 'graphql';
import type { Context } from '../context.js';
import { clientError } from '../schema/client-errors.js';
import type { FieldError } from '../schema/errors.js';
import { schema } from '../schema/index.js';
import { HttpProblem, problems, statusForCode } from './problem.js';

export interface Operation {
  document: DocumentNode;
  variables: readonly { name: string; type: GraphQLInputType }[];
}

/** Parses and validates a GraphQL document against the schema once, when the module loads. */
export function defineOperation(source: string): Operation {
  const document = parse(source);
  const errors = validate(schema, document);
  if (errors.length) throw new Error(`Invalid REST operation:\n${errors.map((e) => e.message).join('\n')}`);
  const definition = document.definitions.find((d) => d.kind === 'OperationDefinition');
  const defs: readonly VariableDefinitionNode[] = definition?.kind === 'OperationDefinition' ? (definition.variableDefinitions ?? []) : [];
  return {
    document,
    variables: defs.map((d) => ({ name: d.variable.name.value, type: typeFromAST(schema, d.type as never) as GraphQLInputType })),
  };
}

/** How a GraphQL input path reads to a REST client: `projectId` -> `project_id`, or a route's own name. */
export type FieldNames = Record<string, string>;

function restField(path: readonly (string | number)[], names: FieldNames): string {
  const joined = path.join('.');
  return names[joined] ?? joined.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** REST spells enum values in lowercase (`sort=created_at` for CREATED_AT); a wrong one lists them so. */
function enumMessage(message: string): string | null {
  const match = /^Value ".*" does not exist in "(\w+)" enum\./.exec(message);
  const type = match ? schema.getType(match[1]!) : undefined;
  return isEnumType(type) ? `must be one of: ${type.getValues().map((v) => v.name.toLowerCase()).join(', ')}` : null;
}

/** Variables checked against the operation's types, with every mistake as a REST field error. */
function checkVariables(op: Operation, variables: Record<string, unknown>, names: FieldNames): void {
  const errors: FieldError[] = [];
  for (const { name, type } of op.variables) {
    const value = variables[name];
    if (value === undefined) continue; // a missing required variable is reported by its fields below
    // Input objects are named by their fields (`title`), other variables by themselves (`first`).
    const prefix = isInputObjectType(getNullableType(type)) ? [] : [name];
    coerceInputValue(value, type, (path, _invalid, error) => {
      const field = restField([...prefix, ...path], names);
      const missing = /^Field "(\w+)" of required type .* was not provided\.$/.exec(error.message);
      const unknown = /^Field "(\w+)" is not defined by type/.exec(error.message);
      if (missing) errors.push({ field: restField([...prefix, ...path, missing[1]!], names), message: 'is required' });
      else if (unknown) errors.push({ field: restField([...prefix, ...path, unknown[1]!], names), message: 'is not a known field' });
      else errors.push({ field, message: enumMessage(error.message) ?? error.message });
    });
  }
  for (const { name, type } of op.variables) {
    if (variables[name] === undefined && isNonNullType(type)) errors.push({ field: restField([name], names), message: 'is required' });
  }
  if (errors.length) throw problems.validation(errors);
}

/** Turns a typed error (from a result union or a thrown GraphQL error) into a problem. */
interface TypedError {
  code: string;
  message: string;
  fieldErrors?: FieldError[];
  retryAfter?: number;
}

export function problemFrom(error: TypedError, names: FieldNames = {}): HttpProblem {
  const fieldErrors = error.fieldErrors?.map((e) => ({ field: restField(e.field.split('.'), names), message: e.message }));
  if (fieldErrors?.length) return problems.validation(fieldErrors);
  const headers: Record<string, string> = error.retryAfter !== undefined ? { 'retry-after': String(error.retryAfter) } : {};
  return new HttpProblem(statusForCode(error.code), error.code, error.message, undefined, headers);
}

/**
 * Runs a REST route's GraphQL operation with the request's context. Returns `data`, or
 * throws the HttpProblem the first client error maps to; unexpected errors are rethrown
 * to the router, which logs them and answers 500.
 */
export async function runOperation<T>(
  op: Operation,
  ctx: Context,
  variables: Record<string, unknown> = {},
  names: FieldNames = {},
): Promise<T> {
  checkVariables(op, variables, names);
  const result = await execute({ schema, document: op.document, contextValue: ctx, variableValues: variables });
  const [first] = result.errors ?? [];
  if (first) {
    const exposed = first instanceof GraphQLError ? clientError(first) : null;
    if (exposed) {
      const { fieldErrors, retryAfter, http } = exposed.extensions as {
        fieldErrors?: FieldError[];
        retryAfter?: number;
        http?: { headers?: Record<string, string> };
      };
      const problem = problemFrom({ code: exposed.code, message: exposed.message, fieldErrors, retryAfter }, names);
      Object.assign(problem.headers, http?.headers);
      throw problem;
    }
    throw first.originalError ?? first;
  }
  return result.data as T;
}

/** Unwraps an errors-plugin result union: the `data` of the success member, or a problem. */
export function unwrapResult<T>(result: { __typename: string; data?: T } & Partial<TypedError>, names: FieldNames = {}): T {
  if (result.code !== undefined) throw problemFrom(result as TypedError, names);
  return result.data as T;
}

/** The selection every result union needs so unwrapResult can map its errors. */
export const ERROR_FIELDS = /* GraphQL */ `
  __typename
  ... on Error { message code }
`;

/** For unions that include ValidationError: its per-field errors. */
export const FIELD_ERRORS = /* GraphQL */ `... on ValidationError { fieldErrors { field message } }`;
