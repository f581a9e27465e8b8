import { createComplexityRule } from '@pothos/plugin-complexity';
import { getOperationAST, getVariableValues, GraphQLError, validate, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';
import type { Logger } from '../logger.js';
import { requestLogger } from '../ops/request-scope.js';
import { credentialSubject } from '../schema/core/rate-limit.js';
import { ERROR_TABLE } from '../schema/core/error-table.js';
import { AppError, RateLimitedError, ValidationError, type FieldError } from '../schema/core/errors.js';
import { InFlight } from '../limits/in-flight.js';
import { inputShapeError } from '../schema/core/input-shape.js';
import { jsonShapeError, type InputAt } from '../schema/core/json-shape.js';
import { costScope, TEXT_PER_COST, textCost } from '../schema/core/list-bounds.js';
import { DESCRIPTION_MAX } from '../schema/issues/workflow.js';
import { deadlineSignal } from './deadline.js';

/** Where a GraphQL request's variables sit in its JSON body. */
const VARIABLES_IN_BODY: InputAt = { root: 'variables', path: ['variables'] };

export interface QueryBoundsOptions {
  /** The most a document may cost (see costRule). */
  maxCost: number;
  /** An execution costing more than this is expensive: its answer may hold more than a few hundred KB. */
  expensiveCost: number;
  /** How many expensive executions one credential (or address, without one) may have running at once. */
  expensivePerCredential: number;
  /** How long one execution may run before it is abandoned with DEADLINE_EXCEEDED. */
  timeoutMs: number;
  /** The largest response body, in bytes of JSON, before it is replaced with RESPONSE_TOO_LARGE. */
  maxResponseBytes: number;
  logger: Logger;
}

/**
 * What one GraphQL request may take, checked per request with its variables, before any
 * resolver runs, and around its execution:
 *
 * - variables over the size and shape of INPUT_LIMITS are refused (src/schema/core/input-shape.ts) as
 *   soon as the request's parameters are read: before graphql-js coerces them (here for the cost,
 *   then to execute), which builds each error from the whole value;
 * - the document's cost: every field costs its `complexity` (1 unless declared; a text field 1 per
 *   100 characters it may hold, so that the cost bounds the answer's size too), and a list or
 *   connection multiplies what it contains by its bound or its first/last argument
 *   (src/schema/core/list-bounds.ts), down the nesting; over `maxCost`, it does not run. graphql-armor's
 *   cost limit counts each field once, whatever the lists around it, so it cannot see a query
 *   that asks for projects^4 objects. The costs are Pothos' complexity plugin's (per-field,
 *   typed with the field's arguments); its check is run here rather than as a validation rule
 *   because validation results are cached per document, and the cost depends on the variables;
 * - an expensive execution (costing over `expensiveCost`) waits for no slot: beyond
 *   `expensivePerCredential` of them running for one credential, it is refused with RATE_LIMITED
 *   (HTTP 429, Retry-After), so that one caller's burst of big answers cannot hold the event loop
 *   for everyone (src/limits/in-flight.ts);
 * - a deadline aborts execution (src/graphql/deadline.ts);
 * - a response over `maxResponseBytes` is replaced by an error.
 */
export function useQueryBounds(options: QueryBoundsOptions): Plugin<Context> {
  const log = options.logger.child({ component: 'graphql' });
  const refuseVariables = (excess: FieldError, ctx: Context): never => {
    const refusal = new ValidationError([excess]);
    requestLogger(log, ctx.scope).debug(
      { code: refusal.code, reason: refusal.message },
      'GraphQL variables refused before parsing',
    );
    // A 400 whatever the media type: the request is refused whole, as one over the body limit is.
    throw new GraphQLError(refusal.message, {
      originalError: refusal,
      extensions: { ...refusal.extensions, http: { status: 400 } },
    });
  };
  const admitted = admittedDocuments();
  const expensive = new InFlight(options.expensivePerCredential);
  return {
    onRequestParse({ request, requestParser, setRequestParser, serverContext }) {
      // A POSTed JSON body: its variables are checked on the text, before JSON.parse builds them.
      if (!requestParser || request.method !== 'POST' || !/json/i.test(request.headers.get('content-type') ?? ''))
        return;
      setRequestParser(async (posted) => {
        const excess = jsonShapeError(await posted.clone().text(), VARIABLES_IN_BODY);
        if (excess) refuseVariables(excess, serverContext as unknown as Context);
        return requestParser(posted);
      });
    },
    onParams({ params, context }) {
      // Variables from a query string, or a body that passed the scan above (where this finds nothing).
      const excess = inputShapeError(params.variables, 'variables');
      if (excess) refuseVariables(excess, context as unknown as Context);
    },
    onExecute({ args, executeFn, setExecuteFn, setResultAndStopExecution }) {
      const ctx = args.contextValue as Context;
      const requestLog = () => requestLogger(log, ctx.scope);
      const verdict = admitted.keyOf(args);
      let cost = admitted.costOf(args.document, verdict);
      if (cost === undefined) {
        const checked = costOf(args, options.maxCost);
        if (checked instanceof GraphQLError) {
          // The client's mistake, answered to it: not an error of ours.
          requestLog().debug(
            { code: checked.extensions.code, reason: checked.message },
            'GraphQL request refused before execution',
          );
          setResultAndStopExecution({ errors: [checked] });
          return;
        }
        cost = checked;
        admitted.add(args.document, verdict, cost);
      }
      const release = cost > options.expensiveCost ? expensive.acquire(credentialSubject(ctx)) : () => {};
      if (!release) {
        requestLog().debug(
          { cost, expensivePerCredential: options.expensivePerCredential },
          'GraphQL execution refused: the credential has its expensive ones running',
        );
        setResultAndStopExecution({ errors: [tooManyRunning(options)] });
        return;
      }
      setExecuteFn(async (executionArgs) => {
        let expired: AppError | undefined;
        const expire = () =>
          (expired = new AppError(
            `The query did not finish within its deadline of ${options.timeoutMs} ms. Ask for less (fewer items or fewer nested lists).`,
            'DEADLINE_EXCEEDED',
            { extensions: { timeoutMs: options.timeoutMs } },
          ));
        const context = executionArgs.contextValue as Context & { request?: Request };
        // The client going away ends the work too.
        const deadline = deadlineSignal(options.timeoutMs, expire, context.request?.signal);
        context.deadline = deadline;
        try {
          return await executeFn({ ...executionArgs, signal: deadline.signal } as typeof executionArgs);
        } finally {
          release();
          context.deadline = undefined;
          deadline.dispose();
          if (expired && deadline.signal.reason === expired)
            requestLog().info({ timeoutMs: options.timeoutMs }, 'GraphQL execution abandoned at its deadline');
        }
      });
      return {
        onExecuteDone({ result, setResult }) {
          // Freed when the execution ends, whichever way (also where a later plugin answered in its place).
          release();
          if (!isSingleResult(result)) return;
          const text = JSON.stringify(result);
          const bytes = Buffer.byteLength(text);
          if (bytes <= options.maxResponseBytes) {
            reuseText(result, text);
            return;
          }
          requestLog().info(
            { bytes, maxResponseBytes: options.maxResponseBytes },
            'GraphQL response over the size limit replaced by an error',
          );
          setResult({
            errors: [
              new AppError(
                `The response would be ${bytes} bytes, over the limit of ${options.maxResponseBytes}. Ask for less (fewer items, fewer fields or no descriptions).`,
                'RESPONSE_TOO_LARGE',
                { extensions: { bytes, maxResponseBytes: options.maxResponseBytes } },
              ),
            ],
          });
        },
      };
    },
  };
}

/** RATE_LIMITED, as a 429 with Retry-After: a slot frees when one of the running executions ends (within its deadline). */
function tooManyRunning(options: QueryBoundsOptions): RateLimitedError {
  return new RateLimitedError(
    '1',
    `This credential already has ${options.expensivePerCredential} GraphQL executions costing over ${options.expensiveCost} running. ` +
      'Wait for one to finish (Retry-After), or ask for less.',
    { http: { status: ERROR_TABLE.RATE_LIMITED.status, headers: { 'retry-after': '1' } } },
  );
}

/**
 * The documents without variables that passed the checks, with their cost, per operation and
 * cost scope (src/schema/core/list-bounds.ts): their cost cannot change from one request to the next,
 * and computing it each time would cost 3% of a dashboard query's CPU. Refusals are not kept (they are rare, and
 * their message is computed each time).
 */
function admittedDocuments() {
  const passed = new WeakMap<object, Map<string, number>>();
  return {
    /** The key of this request's verdict, or null when its variables may change its cost. */
    keyOf: (args: ExecutionArgsLike): string | null =>
      args.variableValues && Object.keys(args.variableValues).length
        ? null
        : `${args.operationName ?? ''}\n${costScope(args.contextValue as Context)}`,
    /** The cost of an admitted document, or undefined when it must be checked. */
    costOf: (document: object, key: string | null): number | undefined =>
      key === null ? undefined : passed.get(document)?.get(key),
    add(document: object, key: string | null, cost: number): void {
      if (key !== null) passed.set(document, (passed.get(document) ?? new Map<string, number>()).set(key, cost));
    },
  };
}

interface ExecutionArgsLike {
  schema: Parameters<typeof validate>[0];
  document: Parameters<typeof validate>[1];
  variableValues?: Record<string, unknown> | null | undefined;
  operationName?: string | null | undefined;
  contextValue?: unknown;
}

/** The cost of this execution, or why it must not run. */
function costOf(args: ExecutionArgsLike, maxCost: number): number | GraphQLError {
  const variableValues = args.variableValues ?? {};
  const invalid = invalidVariable(args, variableValues);
  if (invalid) return invalid;
  let cost = 0;
  try {
    const rule = createComplexityRule({
      context: args.contextValue as object,
      variableValues,
      operationName: args.operationName ?? undefined,
      validate: ({ complexity }, report) => {
        cost = complexity;
        if (complexity <= maxCost) return;
        report(
          new AppError(
            `The query costs ${complexity}, over the limit of ${maxCost}. Every field costs 1, a text field 1 per ` +
              `${TEXT_PER_COST} characters it may hold (a description ${textCost(DESCRIPTION_MAX)}), and ` +
              'each list counts as many times as it may have items (its first or last argument, else its bound), ' +
              'multiplied down the nesting. Ask for fewer items or fewer nested lists.',
            'COST_LIMIT_EXCEEDED',
            { extensions: { cost: complexity, maxCost } },
          ),
        );
      },
    });
    const [first] = validate(args.schema, args.document, [rule]) as unknown[];
    if (first === undefined) return cost;
    if (first instanceof GraphQLError && first.extensions.code) return first;
    return new GraphQLError(first instanceof Error ? first.message : String(first), {
      extensions: { code: 'BAD_USER_INPUT' },
    });
  } catch (error) {
    // A list's `first` out of its range (listSize): the client's mistake.
    if (error instanceof AppError) return error;
    throw error;
  }
}

/**
 * graphql-js stops coercing variables after this many errors. The cost rule (Pothos') coerces
 * them first, without a limit: 20,000 invalid statuses within INPUT_LIMITS made as many errors,
 * each with its message, suggestions and stack, for seconds of CPU; 50 still cost 10-20 ms. Only
 * the first is answered, so coercion stops at the second.
 */
const MAX_VARIABLE_ERRORS = 1;

/** The first error of the request's variables, coerced once within MAX_VARIABLE_ERRORS; null when they are valid. */
function invalidVariable(args: ExecutionArgsLike, variableValues: Record<string, unknown>): GraphQLError | null {
  const definitions = getOperationAST(args.document, args.operationName)?.variableDefinitions;
  if (!definitions?.length) return null;
  const coerced = getVariableValues(args.schema, definitions, variableValues, { maxErrors: MAX_VARIABLE_ERRORS });
  const [first] = coerced.errors ?? [];
  if (!first) return null;
  return first.extensions.code
    ? first
    : new GraphQLError(first.message, { ...first, extensions: { ...first.extensions, code: 'BAD_USER_INPUT' } });
}

/**
 * The response body is the JSON just measured: graphql-yoga writes a result with its own
 * `stringify` when it has one (as it does for graphql-jit's results), and a second
 * `JSON.stringify` of a large result cost as much as the first. Only for a result yoga writes as
 * it is (no errors, no extensions, which it rewrites); a plugin that replaces the result later
 * gets an object this function is not called for, so yoga serialises that one itself.
 */
function reuseText(result: ExecutionResult, text: string): void {
  if (result.errors?.length || result.extensions) return;
  (result as ExecutionResult & { stringify?: (value: unknown) => string }).stringify = (value) =>
    value === result ? text : JSON.stringify(value);
}

function isSingleResult(result: unknown): result is ExecutionResult {
  return typeof result === 'object' && result !== null && !(Symbol.asyncIterator in result);
}
