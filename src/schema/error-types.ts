import { builder } from './builder.js';
import { AppError, ConflictError, ForbiddenError, MAX_FIELD_ERRORS, NotFoundError, RateLimitedError, ValidationError, type FieldError } from './errors.js';
import { fixedList } from './list-bounds.js';

export const ErrorInterface = builder.interfaceRef<AppError>('Error').implement({
  fields: (t) => ({
    message: t.exposeString('message'),
    code: t.exposeString('code', { description: 'Stable machine-readable code, e.g. VALIDATION_FAILED.' }),
  }),
});

const FieldErrorType = builder.objectRef<FieldError>('FieldError').implement({
  fields: (t) => ({
    field: t.exposeString('field'),
    message: t.exposeString('message'),
  }),
});

builder.objectType(ValidationError, {
  name: 'ValidationError',
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof ValidationError,
  fields: (t) => ({
    fieldErrors: t.field({ type: [FieldErrorType], complexity: fixedList(MAX_FIELD_ERRORS), resolve: (error) => error.fieldErrors }),
  }),
});

builder.objectType(NotFoundError, {
  name: 'NotFoundError',
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof NotFoundError,
  fields: (t) => ({ resource: t.exposeString('resource') }),
});

builder.objectType(ForbiddenError, {
  name: 'ForbiddenError',
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof ForbiddenError,
  fields: () => ({}),
});

builder.objectType(ConflictError, {
  name: 'ConflictError',
  description: 'The change clashes with the current state (a key already in use, a project that still has issues).',
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof ConflictError,
  fields: () => ({}),
});

builder.objectType(RateLimitedError, {
  name: 'RateLimitedError',
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof RateLimitedError,
  fields: (t) => ({
    retryAfter: t.int({ description: 'Seconds to wait before retrying.', resolve: (error) => Number(error.retryAfterSeconds) }),
  }),
});
