import { PothosValidationError } from '@pothos/core';
import type { GraphQLError } from 'graphql';
import { AppError } from './errors.js';

/**
 * The error a client may see for a failed resolver, or null when the failure is ours
 * (a bug, the database) and must be masked. One classification serves both surfaces.
 */
export function clientError(error: GraphQLError): AppError | null {
  const original = error.originalError;
  if (original instanceof AppError) return original;
  // Pothos rejects bad connection arguments (negative `first`, an undecodable cursor) itself.
  if (original instanceof PothosValidationError) return new AppError(original.message, 'BAD_USER_INPUT');
  return null;
}
