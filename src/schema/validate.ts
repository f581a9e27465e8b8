import type { z } from 'zod';
import { ValidationError } from './errors.js';

/** Parses `input` with `schema`, or throws one ValidationError listing every problem. */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ValidationError(
    result.error.issues.map((issue) => ({ field: issue.path.join('.') || 'input', message: issue.message })),
  );
}
