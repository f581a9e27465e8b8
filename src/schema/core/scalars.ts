import { GraphQLError, Kind } from 'graphql';
import { builder } from './builder.js';
import { INSTANT_MESSAGE, parseInstant } from './dates.js';

function parseDate(value: unknown): Date {
  const date = parseInstant(value);
  if (!date) throw new GraphQLError(INSTANT_MESSAGE);
  return date;
}

builder.scalarType('DateTime', {
  description:
    'An instant, as an ISO 8601 string in UTC (2026-01-31T12:00:00.000Z). As input, a date (midnight UTC) or a ' +
    'date-time with a zone (Z or +02:00).',
  serialize: (value) => value.toISOString(),
  parseValue: parseDate,
  parseLiteral: (ast) => parseDate(ast.kind === Kind.STRING ? ast.value : undefined),
});
