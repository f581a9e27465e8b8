import { GraphQLError } from 'graphql';

export interface FieldError {
  /** The input field, as the client named it (`title`, `projectId`). */
  field: string;
  message: string;
}

/**
 * Expected failures. They are GraphQLErrors so that, thrown from a query, they reach the client
 * with `extensions.code` instead of being masked; from a mutation with `errors: { types }`
 * the errors plugin turns them into members of the result union.
 */
export class AppError extends GraphQLError {
  constructor(message: string, readonly code: string, extensions: Record<string, unknown> = {}) {
    super(message, { extensions: { code, ...extensions } });
    this.name = new.target.name;
  }
}

export class ValidationError extends AppError {
  constructor(readonly fieldErrors: FieldError[]) {
    super(fieldErrors.map((e) => `${e.field}: ${e.message}`).join('; '), 'VALIDATION_FAILED', { fieldErrors });
  }
}

export class NotFoundError extends AppError {
  constructor(readonly resource: string) {
    super(`No ${resource} with that id exists in this organization.`, 'NOT_FOUND');
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super(message, 'FORBIDDEN');
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super(message, 'CONFLICT');
  }
}
