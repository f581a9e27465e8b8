import { builder } from './builder.js';
import {
  type AppError,
  ConflictError,
  ForbiddenError,
  MAX_FIELD_ERRORS,
  NotFoundError,
  RateLimitedError,
  ValidationError,
  type FieldError,
} from './errors.js';
import { fixedList } from './list-bounds.js';

const ErrorInterface = builder.interfaceRef<AppError>('Error').implement({
  description: 'Why an operation was refused: every error type of a result union implements it.',
  fields: (t) => ({
    message: t.exposeString('message', { description: 'What went wrong, in a sentence for people.' }),
    code: t.exposeString('code', { description: 'Stable machine-readable code, e.g. VALIDATION_FAILED.' }),
  }),
});

const FieldErrorType = builder.objectRef<FieldError>('FieldError').implement({
  description: 'One mistake of the input: where, and what is wrong with it.',
  fields: (t) => ({
    field: t.exposeString('field', {
      description: 'The input field, as a dot-separated path (title, filter.status, groupBy.0).',
    }),
    message: t.exposeString('message', { description: 'What is wrong with it, e.g. "must not be empty".' }),
    index: t.int({
      nullable: true,
      description: 'In a bulk mutation (createIssues, updateIssues): the position of the item at fault, from 0.',
      resolve: (error) => error.index ?? null,
    }),
  }),
});

builder.objectType(ValidationError, {
  name: 'ValidationError',
  description: 'The input breaks a rule (code VALIDATION_FAILED); nothing was written.',
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof ValidationError,
  fields: (t) => ({
    fieldErrors: t.field({
      type: [FieldErrorType],
      description: `Every mistake of the input at once (at most ${MAX_FIELD_ERRORS}).`,
      complexity: fixedList(MAX_FIELD_ERRORS),
      resolve: (error) => error.fieldErrors,
    }),
  }),
});

builder.objectType(NotFoundError, {
  name: 'NotFoundError',
  description:
    'What the operation names does not exist, or is not visible to the caller (code NOT_FOUND): the two are not told apart.',
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof NotFoundError,
  fields: (t) => ({
    resource: t.exposeString('resource', { description: 'What was not found: issue, project, API key, webhook ...' }),
  }),
});

builder.objectType(ForbiddenError, {
  name: 'ForbiddenError',
  description: "The caller's role or credential does not allow the operation (code FORBIDDEN).",
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof ForbiddenError,
  fields: () => ({}),
});

builder.objectType(ConflictError, {
  name: 'ConflictError',
  description:
    'The change clashes with the current state (a key already in use, a project that still has issues, ' +
    'a bound reached).',
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof ConflictError,
  fields: (t) => ({
    limit: t.int({
      nullable: true,
      description: 'For a bound reached (codes ending in _LIMIT_REACHED): how many the bound allows. Null otherwise.',
      resolve: (error) => (typeof error.extensions.limit === 'number' ? error.extensions.limit : null),
    }),
  }),
});

builder.objectType(RateLimitedError, {
  name: 'RateLimitedError',
  description: 'Too many operations of this kind in a short time (code RATE_LIMITED): retry after retryAfter seconds.',
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof RateLimitedError,
  fields: (t) => ({
    retryAfter: t.int({
      description: 'Seconds to wait before retrying.',
      resolve: (error) => Number(error.retryAfterSeconds),
    }),
  }),
});
