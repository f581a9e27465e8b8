import pg from 'pg';

/**
 * How DirectSql's statements (src/db/direct-sql.ts) read a timestamptz. A 100-issue page holds
 * 200 of them, and the drivers' way (node-postgres' postgres-date: a regular expression, parseInt
 * and Date.UTC per value; then toISOString for the JSON) took about 0.6 µs each, 15% of the page
 * read's CPU (BENCH_QUICK_PROFILE=1 npm run bench:quick -- rest_read). No library parses the one
 * form PostgreSQL writes faster, so this does, by hand: a UTC session writes
 * `2026-11-27 17:10:11.648+00` (at most 3 digits of fraction in our timestamptz(3) columns), whose
 * digits are at fixed places, and whose ISO 8601 form is the same text with a `T`, three digits
 * and a `Z`. Both come out at once, in about 0.1 µs: the Date, and that text for toISOString.
 * Any other form (another session zone, a year before 1000 or after 9999, microseconds, infinity)
 * goes to node-postgres' parser.
 */

/**
 * A Date read from the database that knows its ISO 8601 text already. It is a Date in every way
 * (instanceof, getTime, comparisons, JSON); a row's times are never changed in place, which is
 * what keeps the text true.
 */
export class Timestamp extends Date {
  constructor(
    time: number,
    private readonly iso: string,
  ) {
    super(time);
  }
  override toISOString(): string {
    return this.iso;
  }
}

const TIMESTAMPTZ = 1184;
const driverParse = pg.types.getTypeParser(TIMESTAMPTZ, 'text') as (text: string) => Date;
/** The two digits at `at` as a number. */
const twoDigits = (text: string, at: number) => (text.charCodeAt(at) - 48) * 10 + text.charCodeAt(at + 1) - 48;
const DIGITS = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,3})?\+00$/;

/** A timestamptz as PostgreSQL writes it, as a Date (a Timestamp when it has the usual form). */
export function parseTimestamptz(text: string): Date {
  // 22 characters without a fraction, 24 to 26 with one; DIGITS rules out everything else.
  if (text.length > 26 || text.length < 22 || !DIGITS.test(text)) return driverParse(text);
  // Date.UTC reads the years 0 to 99 as 1900 to 1999: a year that starts with 0 is the driver's.
  if (text.charCodeAt(0) === 48) return driverParse(text);
  const fraction = text.length > 22 ? text.slice(20, -3).padEnd(3, '0') : '000';
  const time = Date.UTC(
    twoDigits(text, 0) * 100 + twoDigits(text, 2),
    twoDigits(text, 5) - 1,
    twoDigits(text, 8),
    twoDigits(text, 11),
    twoDigits(text, 14),
    twoDigits(text, 17),
    Number(fraction),
  );
  return new Timestamp(time, `${text.slice(0, 10)}T${text.slice(11, 19)}.${fraction}Z`);
}

/** The parsers of DirectSql's statements on node-postgres (a query's `types`). */
export const nodePostgresTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMPTZ && format !== 'binary'
      ? parseTimestamptz
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** The same on PGlite (a query's `parsers`). */
export const pgliteParsers = { [TIMESTAMPTZ]: parseTimestamptz };
