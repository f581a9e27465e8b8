import { GraphQLError, Kind } from 'graphql';
import { builder } from './builder.js';

// A date, or a date-time with seconds optional and a zone required: `Date` alone would read
// "1" as the year 2001 and a zoneless time in the server's own zone.
const ISO_8601 = /^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d{1,9})?)?(Z|[+-]\d\d:?\d\d))?$/i;

/** `Date` rolls 2026-02-30 over to March 2; a calendar date must exist as written. */
function isCalendarDate(text: string): boolean {
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  const probe = new Date(Date.UTC(year, month - 1, day));
  return probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
}

function parseDate(value: unknown): Date {
  const valid = typeof value === 'string' && ISO_8601.test(value) && isCalendarDate(value);
  const date = valid ? new Date(value) : new Date(NaN);
  if (Number.isNaN(date.getTime())) {
    throw new GraphQLError('must be an ISO 8601 date or date-time with a zone, e.g. 2026-01-31 or 2026-01-31T12:00:00Z');
  }
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
