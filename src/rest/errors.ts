import { type AppError, ValidationError } from '../schema/core/errors.js';
import { restFieldName } from './inputs.js';
import { problems } from '../http/problem.js';

/**
 * An operation's error as a REST problem: its field errors named as the REST client named the
 * fields (an operation names them as GraphQL does). Any other error is answered as it is.
 */
export function problemFrom(error: AppError, names: Record<string, string> = {}): AppError {
  if (error instanceof ValidationError) {
    return problems.validation(error.fieldErrors.map((e) => ({ ...e, field: restFieldName(e.field, names) })));
  }
  return error;
}
