import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { directSql } from '../src/db/direct-sql.js';
import { parseTimestamptz, Timestamp } from '../src/db/timestamps.js';
import { startTestApp, type TestApp } from './support/app.js';

/**
 * DirectSql reads a timestamptz with its own parser (src/db/timestamps.ts): the same instant
 * and the same ISO 8601 text as Prisma's and node-postgres' readings, on both databases, for the
 * form PostgreSQL writes in a UTC session and for every form it hands to node-postgres' parser.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** Times at random over years 1000 to 9999, with 0 to 3 digits of milliseconds, and edges. */
function times(): string[] {
  const edges = [
    '1000-01-01 00:00:00+00',
    '9999-12-31 23:59:59.999+00',
    '2026-11-27 17:10:11.5+00',
    '2026-11-27 17:10:11.05+00',
    '2026-11-27 17:10:11.005+00',
    '2024-02-29 12:00:00+00',
  ];
  const random = Array.from({ length: 500 }, () => {
    const ms = Date.UTC(1000, 0, 1) + Math.floor(Math.random() * (Date.UTC(9999, 11, 31) - Date.UTC(1000, 0, 1)));
    // Whole seconds, tenths, hundredths and milliseconds, as PostgreSQL then writes 0 to 3 digits.
    return new Date(ms - (ms % [1000, 100, 10, 1][Math.floor(Math.random() * 4)]!)).toISOString();
  });
  return [...edges, ...random];
}

describe('a timestamptz read by DirectSql', () => {
  test("is the instant and the text of Prisma's reading, in the database's own writing", async () => {
    const values = times();
    const text = 'select v::timestamptz(3) as t, v::timestamptz(3)::text as written from unnest($1::text[]) as v';
    const direct = await directSql(t.app.db.prisma).rows<{ t: Date; written: string }>({ text, values: [values] });
    const prisma = await t.app.db.prisma.$queryRawUnsafe<{ t: Date }[]>(text, values);
    expect(direct).toHaveLength(values.length);
    for (const [i, row] of direct.entries()) {
      expect(row.t, row.written).toBeInstanceOf(Timestamp);
      expect(row.t.getTime(), row.written).toBe(prisma[i]!.t.getTime());
      expect(row.t.toISOString(), row.written).toBe(prisma[i]!.t.toISOString());
      expect(JSON.stringify(row), row.written).toBe(JSON.stringify({ t: prisma[i]!.t, written: row.written }));
    }
  });

  test("every other form goes to node-postgres' parser: another zone, microseconds, years out of 1000 to 9999, BC, infinity", () => {
    const driver = pg.types.getTypeParser(1184, 'text') as (text: string) => Date;
    const forms = [
      '2026-11-27 22:40:11.648+05:30',
      '2026-11-27 09:10:11-08',
      '2026-11-27 17:10:11.648+00:00',
      '2026-11-27 17:10:11.648123+00',
      '0099-01-01 00:00:00+00',
      '0999-12-31 23:59:59.9+00',
      '12026-01-01 00:00:00+00',
      '0044-03-15 12:00:00+00 BC',
      'infinity',
      '-infinity',
    ];
    for (const form of forms) {
      const ours = parseTimestamptz(form);
      expect(ours, form).not.toBeInstanceOf(Timestamp);
      expect(ours.valueOf(), form).toBe(driver(form).valueOf());
    }
  });
});
