import { GraphQLError, Kind } from 'graphql';
import { builder } from './builder.js';

function parseDate(value: unknown): Date {
  const date = typeof value === 'string' ? new Date(value) : new Date(NaN);
  if (typeof value !== 'string' || Number.isNaN(date.getTime())) {
    throw new GraphQLError('DateTime must be an ISO 8601 string, e.g. 2026-01-31T12:00:00Z');
  }
  return date;
}

builder.scalarType('DateTime', {
  description: 'An instant, as an ISO 8601 string in UTC (2026-01-31T12:00:00.000Z).',
  serialize: (value) => value.toISOString(),
  parseValue: parseDate,
  parseLiteral: (ast) => parseDate(ast.kind === Kind.STRING ? ast.value : undefined),
});
