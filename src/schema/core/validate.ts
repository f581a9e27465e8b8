import type { z } from 'zod';
import { ValidationError, type FieldError } from './errors.js';

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  date: 'a date-time',
  array: 'a list',
  object: 'an object',
};

/**
 * Messages for the mistakes every field can have, written once for every operation; a field's
 * own message (its limits, its allowed values) wins over these.
 */
export const messages: z.core.$ZodErrorMap = (issue) => {
  // A missing field is missing whatever type it should have had.
  if (issue.input === undefined && issue.code !== 'unrecognized_keys' && issue.code !== 'custom') return 'is required';
  if (issue.code === 'invalid_type') {
    if (issue.input === null) return 'cannot be null';
    return `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
  }
  if (issue.code === 'unrecognized_keys') return 'is not a known field';
  return undefined;
};

/**
 * Parses `input` with `schema`, or throws one ValidationError listing every problem. `items`:
 * the input's lists of a bulk call's items, whose mistakes carry the item's index.
 */
export function validate<S extends z.ZodType>(schema: S, input: unknown, items?: readonly string[]): z.output<S> {
  const result = schema.safeParse(input, { error: messages });
  if (result.success) return result.data;
  throw new ValidationError(fieldErrors(result.error, items));
}

/**
 * Every issue of a zod error as a field error; an unknown key is named by its own path. A
 * mistake inside an entry of a top-level list named in `items` also carries that entry's index.
 */
export function fieldErrors(error: z.ZodError, items?: readonly string[]): FieldError[] {
  return error.issues.flatMap((issue) => {
    const at = issue.path.map(String);
    const [list, position] = issue.path;
    const index =
      typeof list === 'string' && items?.includes(list) === true && typeof position === 'number'
        ? { index: position }
        : {};
    if (issue.code === 'unrecognized_keys')
      return issue.keys.map((key) => ({ field: [...at, key].join('.'), message: issue.message, ...index }));
    return [{ field: at.join('.') || 'input', message: issue.message, ...index }];
  });
}
