import type { EnumRef, InputFieldRef } from '@pothos/core';
import { sql, type Expression, type SqlBool } from 'kysely';
import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.js';
import { builder } from '../core/builder.js';
import { instant as instantRule } from '../core/dates.js';
import { MAX_FILTER_VALUES } from './filter-limits.js';
import { escapeLike, insensitive, searchText } from '../core/search-text.js';
import { storableString } from '../core/text.js';
import { isUuid } from '../core/uuid.js';
import type { IssueField } from './columns.js';
import { issueColumn } from './select.js';
import { oneOf } from '../../db/sql-conditions.js';

/**
 * The kinds of condition an issue filter is made of. A kind is everything one filter field is on
 * every target: the rule of its value (zod, with the messages every surface shows), its GraphQL
 * input field, its Prisma conditions, its SQL conditions on an aliased table, and its REST list
 * parameter when it has one. The filter itself (src/schema/issues/filter.ts) is a table of these.
 *
 * A kind's Prisma and SQL conditions select the same issues, and both are empty for a value that
 * asks for nothing (an empty comparator): the filter's and/or/not rules count on it, and the
 * property tests (test/issue-aggregates.test.ts, test/hand-written-sql.test.ts) check it.
 */

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
type InputFields = PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>;

/** The list's query parameter for a filter field: its name, its description, and whether it is a list (repeated or comma-separated). */
export interface RestParameter {
  name: string;
  description: string;
  list: boolean;
}

export interface FilterField<Value> {
  /** The rule a value obeys. */
  readonly rule: z.ZodType<Value>;
  /** The field of the GraphQL input type IssueFilter. */
  readonly graphql: (t: InputFields) => InputFieldRef<Types, unknown>;
  /** The Prisma conditions a value stands for, AND-ed (none when it asks for nothing). */
  readonly where: (value: Value) => Prisma.IssueWhereInput[];
  /** The same conditions in SQL, on the issue columns of the table aliased `alias`. */
  readonly sql: (value: Value, alias: string) => Expression<SqlBool>[];
  /** The fields the conditions read. */
  readonly reads: readonly IssueField[];
  /** The REST list's query parameter, for the fields the list offers. */
  readonly rest?: RestParameter;
}

/** What every entry of the filter says in words: its GraphQL description, and its REST parameter's name and description. */
interface Wording {
  description: string;
  rest?: { name: string; description: string };
}

/** One Prisma condition on one field (the field's filter type follows from its name). */
const on = <F extends IssueField>(field: F, filter: Prisma.IssueWhereInput[F]) =>
  ({ [field]: filter }) as Prisma.IssueWhereInput;
const rest = (wording: Wording, list = false): RestParameter | undefined => wording.rest && { ...wording.rest, list };

const tooManyValues = `must have at most ${MAX_FILTER_VALUES} values`;

/** Any of these values of an enumerated column (status, priority): a GraphQL enum list, a REST list parameter. */
export function anyOf(
  field: IssueField,
  allowed: readonly string[],
  type: EnumRef<Types, string>,
  wording: Wording,
): FilterField<string[]> {
  return {
    rule: z
      .array(z.string().meta({ enum: [...allowed] }))
      .max(MAX_FILTER_VALUES, tooManyValues)
      .refine((values) => values.every((v) => allowed.includes(v)), `must each be one of: ${allowed.join(', ')}`),
    graphql: (t) => t.field({ type: [type], required: false, description: wording.description }),
    where: (values) => [on(field, { in: values })],
    sql: (values, alias) => [oneOf(issueColumn(alias, field), values)],
    reads: [field],
    rest: rest(wording, true),
  };
}

/** One user id, or `none` for no one (a nullable reference such as the assignee). */
export function idOrNone(field: IssueField, wording: Wording): FilterField<string> {
  return {
    rule: z
      .string()
      .refine((value) => value === 'none' || isUuid(value), 'must be a UUID or none')
      .meta({ maxLength: 36 }),
    graphql: (t) => t.string({ required: false, description: wording.description }),
    where: (id) => [on(field, id === 'none' ? null : id)],
    sql: (id, alias) => [
      id === 'none'
        ? sql<SqlBool>`${issueColumn(alias, field)} IS NULL`
        : sql<SqlBool>`${issueColumn(alias, field)} = ${id}::uuid`,
    ],
    reads: [field],
    rest: rest(wording),
  };
}

/** A case-insensitive substring of any of these text columns (`%` and `_` match themselves). */
export function substring(fields: readonly IssueField[], wording: Wording): FilterField<string> {
  return {
    rule: searchText,
    graphql: (t) => t.string({ required: false, description: wording.description }),
    where: (text) => [{ OR: fields.map((field) => on(field, insensitive('contains', text))) }],
    sql: (text, alias) => {
      const pattern = `%${escapeLike(text)}%`;
      return [
        sql<SqlBool>`(${sql.join(
          fields.map((field) => sql`${issueColumn(alias, field)} ILIKE ${pattern}`),
          sql` OR `,
        )})`,
      ];
    },
    reads: fields,
    rest: rest(wording),
  };
}

const TextComparatorInput = builder.inputType('TextComparator', {
  description: 'Case-insensitive comparisons with a text; every given one must hold.',
  fields: (t) => ({
    equals: t.string({ required: false, description: 'Equal to this text, ignoring case.' }),
    contains: t.string({ required: false, description: 'Containing this text, ignoring case.' }),
    startsWith: t.string({ required: false, description: 'Starting with this text, ignoring case.' }),
  }),
});

const IntComparatorInput = builder.inputType('IntComparator', {
  description: 'Comparisons with a number; every given one must hold.',
  fields: (t) => ({
    eq: t.int({ required: false, description: 'Equal to this number.' }),
    gt: t.int({ required: false, description: 'Greater than this number.' }),
    gte: t.int({ required: false, description: 'Greater than or equal to this number.' }),
    lt: t.int({ required: false, description: 'Less than this number.' }),
    lte: t.int({ required: false, description: 'Less than or equal to this number.' }),
    in: t.intList({ required: false, description: `One of these numbers (at most ${MAX_FILTER_VALUES}).` }),
  }),
});

const comparedText = storableString().min(1, 'must not be empty').max(100, 'must be at most 100 characters');
const TEXT_PATTERNS = {
  equals: (text: string) => text,
  contains: (text: string) => `%${text}%`,
  startsWith: (text: string) => `${text}%`,
};
type TextComparisons = { [Match in keyof typeof TEXT_PATTERNS]?: string | null };

/** Case-insensitive comparisons with a text column (equals, contains, startsWith; every given one holds). */
export function textComparisons(field: IssueField, wording: Wording): FilterField<TextComparisons> {
  const given = (value: TextComparisons) =>
    (Object.keys(TEXT_PATTERNS) as (keyof TextComparisons)[]).filter((match) => value[match]);
  return {
    rule: z.object({
      equals: comparedText.nullish(),
      contains: comparedText.nullish(),
      startsWith: comparedText.nullish(),
    }),
    graphql: (t) => t.field({ type: TextComparatorInput, required: false, description: wording.description }),
    where: (value) => given(value).map((match) => on(field, insensitive(match, value[match]!))),
    sql: (value, alias) =>
      given(value).map(
        (match) => sql<SqlBool>`${issueColumn(alias, field)} ILIKE ${TEXT_PATTERNS[match](escapeLike(value[match]!))}`,
      ),
    reads: [field],
    rest: rest(wording),
  };
}

const INT_OPERATORS = {
  eq: ['equals', '='],
  gt: ['gt', '>'],
  gte: ['gte', '>='],
  lt: ['lt', '<'],
  lte: ['lte', '<='],
} as const;
type IntComparisons = { [Operator in keyof typeof INT_OPERATORS]?: number | null } & { in?: number[] | null };

/** Comparisons with an integer column (eq, gt, gte, lt, lte, in; every given one holds). */
export function intComparisons(field: IssueField, wording: Wording): FilterField<IntComparisons> {
  const given = (value: IntComparisons) =>
    (Object.keys(INT_OPERATORS) as (keyof typeof INT_OPERATORS)[]).filter((op) => value[op] != null);
  return {
    rule: z.object({
      eq: z.number().int().nullish(),
      gt: z.number().int().nullish(),
      gte: z.number().int().nullish(),
      lt: z.number().int().nullish(),
      lte: z.number().int().nullish(),
      in: z.array(z.number().int()).max(MAX_FILTER_VALUES, tooManyValues).nullish(),
    }),
    graphql: (t) => t.field({ type: IntComparatorInput, required: false, description: wording.description }),
    where: (value) => {
      const filter: Prisma.IntFilter<'Issue'> = Object.fromEntries(
        given(value).map((op) => [INT_OPERATORS[op][0], value[op]]),
      );
      if (value.in) filter.in = value.in;
      // An empty comparator asks for nothing, and must not count as a condition.
      return Object.keys(filter).length ? [on(field, filter)] : [];
    },
    // int8: a number past int4's range is then a comparison, not an error.
    sql: (value, alias) => [
      ...given(value).map(
        (op) => sql<SqlBool>`${issueColumn(alias, field)} ${sql.raw(INT_OPERATORS[op][1])} ${value[op]}::int8`,
      ),
      ...(value.in ? [oneOf(issueColumn(alias, field), value.in, '::int8')] : []),
    ],
    reads: [field],
    rest: rest(wording),
  };
}

/** Strictly after (`>`) or strictly before (`<`) an instant, on a timestamp column. */
export function instant(field: IssueField, comparison: '>' | '<', wording: Wording): FilterField<Date> {
  const iso =
    'ISO 8601: a date (`2026-01-31`, midnight UTC) or a date-time with a zone (`2026-01-31T12:00:00Z`, `...+02:00`).';
  return {
    rule: instantRule,
    graphql: (t) => t.field({ type: 'DateTime', required: false, description: wording.description }),
    where: (at) => [on(field, comparison === '>' ? { gt: at } : { lt: at })],
    sql: (at, alias) => [sql<SqlBool>`${issueColumn(alias, field)} ${sql.raw(comparison)} ${at}::timestamptz`],
    reads: [field],
    rest: wording.rest && { name: wording.rest.name, description: `${wording.rest.description} ${iso}`, list: false },
  };
}
