import { z } from 'zod';
import type { Prisma } from '../generated/prisma/client.js';
import { builder } from './builder.js';
import { IssuePriorityEnum, IssueStatusEnum } from './issue-enums.js';
import { instant } from './dates.js';
import { insensitive, searchText } from './search-text.js';
import { isUuid } from './uuid.js';
import { ISSUE_PRIORITIES, ISSUE_STATUSES } from './workflow.js';
import { storableString } from './text.js';

/** How deep and/or/not may nest, and how many branches one level may have. */
export const MAX_FILTER_DEPTH = 4;
export const MAX_FILTER_BRANCHES = 10;
/**
 * How many filters one filter may hold in all (itself and every nested one), and how many values
 * one list (`status`, `priority`, `number.in`) may have. Every value is a bind parameter, and
 * PostgreSQL takes at most 65,535 in a statement: these bounds keep a filter far under that.
 */
export const MAX_FILTERS = 50;
export const MAX_FILTER_VALUES = 100;

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

export interface IssueFilterShape {
  status?: string[] | null;
  priority?: string[] | null;
  assigneeId?: string | null;
  q?: string | null;
  title?: { equals?: string | null; contains?: string | null; startsWith?: string | null } | null;
  number?: { eq?: number | null; gt?: number | null; gte?: number | null; lt?: number | null; lte?: number | null; in?: number[] | null } | null;
  createdAfter?: Date | null;
  createdBefore?: Date | null;
  updatedAfter?: Date | null;
  updatedBefore?: Date | null;
  and?: IssueFilterShape[] | null;
  or?: IssueFilterShape[] | null;
  not?: IssueFilterShape | null;
}

export const IssueFilterInput = builder.inputRef<IssueFilterShape>('IssueFilter').implement({
  description:
    `Every given condition must hold. and, or and not combine filters (nested at most ${MAX_FILTER_DEPTH} deep, ` +
    `${MAX_FILTER_BRANCHES} per list, ${MAX_FILTERS} in all); lists of values have at most ${MAX_FILTER_VALUES}.`,
  fields: (t) => ({
    status: t.field({ type: [IssueStatusEnum], required: false, description: 'Any of these statuses.' }),
    priority: t.field({ type: [IssuePriorityEnum], required: false, description: 'Any of these priorities.' }),
    assigneeId: t.string({ required: false, description: 'Assigned to this user id, or "none" for unassigned issues.' }),
    q: t.string({ required: false, description: 'Case-insensitive substring of the title or the description (1 to 100 characters).' }),
    title: t.field({ type: TextComparatorInput, required: false, description: 'Comparisons with the title.' }),
    number: t.field({ type: IntComparatorInput, required: false, description: 'The issue number (the 12 of WEB-12).' }),
    createdAfter: t.field({ type: 'DateTime', required: false, description: 'Created strictly after this instant.' }),
    createdBefore: t.field({ type: 'DateTime', required: false, description: 'Created strictly before this instant.' }),
    updatedAfter: t.field({ type: 'DateTime', required: false, description: 'Last changed strictly after this instant.' }),
    updatedBefore: t.field({ type: 'DateTime', required: false, description: 'Last changed strictly before this instant.' }),
    and: t.field({ type: [IssueFilterInput], required: false, description: 'All of these.' }),
    or: t.field({ type: [IssueFilterInput], required: false, description: 'At least one of these.' }),
    not: t.field({ type: IssueFilterInput, required: false, description: 'Not this.' }),
  }),
});

const tooManyValues = `must have at most ${MAX_FILTER_VALUES} values`;

const anyOf = (allowed: readonly string[]) =>
  z
    .array(z.string().meta({ enum: [...allowed] }))
    .max(MAX_FILTER_VALUES, tooManyValues)
    .refine((values) => values.every((v) => allowed.includes(v)), `must each be one of: ${allowed.join(', ')}`);

const text = storableString().min(1, 'must not be empty').max(100, 'must be at most 100 characters');

const Comparators = {
  title: z.object({ equals: text.nullish(), contains: text.nullish(), startsWith: text.nullish() }).nullish(),
  number: z
    .object({
      eq: z.number().int().nullish(),
      gt: z.number().int().nullish(),
      gte: z.number().int().nullish(),
      lt: z.number().int().nullish(),
      lte: z.number().int().nullish(),
      in: z.array(z.number().int()).max(MAX_FILTER_VALUES, tooManyValues).nullish(),
    })
    .nullish(),
};

/** The rules of the simple filter fields, which the REST list's parameters use too. */
export const FilterFields = {
  status: anyOf(ISSUE_STATUSES),
  priority: anyOf(ISSUE_PRIORITIES),
  assigneeId: z
    .string()
    .refine((value) => value === 'none' || isUuid(value), 'must be a UUID or none')
    .meta({ maxLength: 36 }),
  q: searchText,
};

function filterSchema(depth: number): z.ZodType<IssueFilterShape> {
  const nested = depth < MAX_FILTER_DEPTH ? filterSchema(depth + 1) : z.never({ error: `filters nest at most ${MAX_FILTER_DEPTH} deep` });
  const branches = z.array(nested).max(MAX_FILTER_BRANCHES, `must have at most ${MAX_FILTER_BRANCHES} filters`).nullish();
  return z.object({
    status: FilterFields.status.nullish(),
    priority: FilterFields.priority.nullish(),
    assigneeId: FilterFields.assigneeId.nullish(),
    q: FilterFields.q.nullish(),
    ...Comparators,
    createdAfter: instant.nullish(),
    createdBefore: instant.nullish(),
    updatedAfter: instant.nullish(),
    updatedBefore: instant.nullish(),
    and: branches,
    or: branches,
    not: nested.nullish(),
  }) as z.ZodType<IssueFilterShape>;
}

/** How many filters `filter` holds, itself included (its depth is already bounded). */
function filterCount(filter: IssueFilterShape): number {
  let count = 1;
  for (const branch of [...(filter.and ?? []), ...(filter.or ?? []), ...(filter.not ? [filter.not] : [])]) count += filterCount(branch);
  return count;
}

export const IssueFilter = filterSchema(1).refine((filter) => filterCount(filter) <= MAX_FILTERS, {
  error: `must hold at most ${MAX_FILTERS} filters in all (nested ones included)`,
});

/** The Prisma conditions of a validated filter (AND-ed by the caller). */
export function issueFilterWhere(filter: IssueFilterShape): Prisma.IssueWhereInput[] {
  const where: Prisma.IssueWhereInput[] = [];
  if (filter.status) where.push({ status: { in: filter.status } });
  if (filter.priority) where.push({ priority: { in: filter.priority } });
  if (filter.assigneeId) where.push({ assigneeId: filter.assigneeId === 'none' ? null : filter.assigneeId });
  if (filter.q) where.push({ OR: [{ title: insensitive('contains', filter.q) }, { description: insensitive('contains', filter.q) }] });
  if (filter.title?.equals) where.push({ title: insensitive('equals', filter.title.equals) });
  if (filter.title?.contains) where.push({ title: insensitive('contains', filter.title.contains) });
  if (filter.title?.startsWith) where.push({ title: insensitive('startsWith', filter.title.startsWith) });
  if (filter.number) {
    const { eq, gt, gte, lt, lte } = filter.number;
    const number: Prisma.IntFilter<'Issue'> = {};
    if (eq != null) number.equals = eq;
    if (gt != null) number.gt = gt;
    if (gte != null) number.gte = gte;
    if (lt != null) number.lt = lt;
    if (lte != null) number.lte = lte;
    if (filter.number.in) number.in = filter.number.in;
    // An empty comparator is no condition, and must not count as one (see below).
    if (Object.keys(number).length) where.push({ number });
  }
  if (filter.createdAfter || filter.createdBefore) {
    where.push({ createdAt: { gt: filter.createdAfter ?? undefined, lt: filter.createdBefore ?? undefined } });
  }
  if (filter.updatedAfter || filter.updatedBefore) {
    where.push({ updatedAt: { gt: filter.updatedAfter ?? undefined, lt: filter.updatedBefore ?? undefined } });
  }
  // A filter without conditions holds for every issue. Prisma drops such an empty filter instead
  // of reading it as true (within OR it then counts as false: `or: [{}]` matched nothing, and
  // `not: {}` everything), so empty branches are decided here.
  if (filter.and?.length) {
    // Branches that hold for every issue add nothing; every condition pushed is then a real one.
    const branches = filter.and.map(issueFilterWhere).filter((branch) => branch.length > 0);
    if (branches.length) where.push({ AND: branches.map((branch) => ({ AND: branch })) });
  }
  if (filter.or?.length) {
    const branches = filter.or.map(issueFilterWhere);
    // One branch that holds for every issue makes the OR hold for every issue: no condition.
    if (branches.every((branch) => branch.length > 0)) where.push({ OR: branches.map((branch) => ({ AND: branch })) });
  }
  if (filter.not) {
    const negated = issueFilterWhere(filter.not);
    where.push(negated.length ? { NOT: { AND: negated } } : NO_ISSUE);
  }
  return where;
}

/** A condition no issue meets (Prisma reads `in: []` as false). */
const NO_ISSUE: Prisma.IssueWhereInput = { id: { in: [] } };
