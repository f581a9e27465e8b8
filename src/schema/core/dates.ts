import { z } from 'zod';

// A date, or a date-time with seconds optional and a zone required: `Date` alone would read
// "1" as the year 2001 and a zoneless time in the server's own zone.
const ISO_8601 = /^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d{1,9})?)?(Z|[+-]\d\d:?\d\d))?$/i;

export const INSTANT_MESSAGE =
  'must be an ISO 8601 date or date-time with a zone, e.g. 2026-01-31 or 2026-01-31T12:00:00Z';

/** `Date` rolls 2026-02-30 over to March 2; a calendar date must exist as written. */
function isCalendarDate(text: string): boolean {
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  const probe = new Date(Date.UTC(year, month - 1, day));
  return probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
}

/** The instant an ISO 8601 text names, or null when it names none. */
export function parseInstant(value: unknown): Date | null {
  if (typeof value !== 'string' || !ISO_8601.test(value) || !isCalendarDate(value)) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * An instant as an operation takes it: a Date (GraphQL's DateTime scalar has parsed it) or
 * ISO 8601 text (REST), so that one rule serves every surface.
 */
export const instant = z.preprocess(
  (value) => (typeof value === 'string' ? (parseInstant(value) ?? value) : value),
  z.date({
    error: (issue) =>
      issue.input === undefined ? undefined : issue.input === null ? 'cannot be null' : INSTANT_MESSAGE,
  }),
);
