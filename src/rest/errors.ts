import { AppError, statusForCode, ValidationError } from '../schema/errors.js';
import { restFieldName } from './inputs.js';
import { HttpProblem, problems } from './problem.js';

/**
 * An operation's error as a REST problem: its status from its stable code, field errors named
 * as the REST client named the fields, and the headers the error asks for (Retry-After, a
 * WWW-Authenticate challenge).
 */
export function problemFrom(error: AppError, names: Record<string, string> = {}): HttpProblem {
  if (error instanceof ValidationError) {
    return problems.validation(error.fieldErrors.map((e) => ({ field: restFieldName(e.field, names), message: e.message })));
  }
  const { retryAfter, http } = error.extensions as { retryAfter?: number; http?: { headers?: Record<string, string> } };
  const headers: Record<string, string> = { ...http?.headers };
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  return new HttpProblem(statusForCode(error.code), error.code, error.message, undefined, headers);
}
