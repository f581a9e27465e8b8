import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.js';
import { builder } from '../core/builder.js';
import { IssuePriorityEnum, IssueStatusEnum } from './enums.js';
import {
  anyOf,
  idOrNone,
  instant,
  intComparisons,
  substring,
  textComparisons,
  type FilterField,
  type RestParameter,
} from './filter-fields.js';
import type { IssueField } from './columns.js';
import { MAX_FILTER_BRANCHES, MAX_FILTER_DEPTH, MAX_FILTER_VALUES, MAX_FILTERS } from './filter-limits.js';
import { ISSUE_PRIORITIES, ISSUE_STATUSES } from './workflow.js';
import { anyLabel } from '../labels/filter.js';

/**
 * The issue filter, once: each entry is a field of the GraphQL input `IssueFilter`, a key of the
 * zod rule every surface validates with, a Prisma condition, an SQL condition (the hand-written
 * list statement and the aggregates), and, when it names a REST parameter, a query parameter of
 * `GET /api/issues` and a control of the issues page. Adding a filter is adding an entry here
 * (and a value for it to test/support/issue-world.ts, which the compiler asks for).
 */
export const ISSUE_FILTER = {
  status: anyOf('status', ISSUE_STATUSES, IssueStatusEnum, {
    description: 'Any of these statuses.',
    rest: {
      name: 'status',
      description: 'Any of these statuses: repeat the parameter or separate values with commas (`status=a,b`).',
    },
  }),
  priority: anyOf('priority', ISSUE_PRIORITIES, IssuePriorityEnum, {
    description: 'Any of these priorities.',
    rest: {
      name: 'priority',
      description: 'Any of these priorities: repeat the parameter or separate values with commas (`priority=a,b`).',
    },
  }),
  label: anyLabel(
    'Carrying any of these labels, by name (any case).',
    'Carrying any of these labels, by name (any case): repeat the parameter or separate names with commas (`label=bug,ui`).',
  ),
  assigneeId: idOrNone('assigneeId', {
    description: 'Assigned to this user id, or "none" for unassigned issues.',
    rest: { name: 'assignee_id', description: 'Assigned to this user id, or `none` for unassigned issues.' },
  }),
  q: substring(['title', 'description'], {
    description: 'Case-insensitive substring of the title or the description (1 to 100 characters).',
    rest: {
      name: 'q',
      description:
        'Case-insensitive substring of the title or the description, 1 to 100 characters (`%` and `_` are plain characters).',
    },
  }),
  title: textComparisons('title', { description: 'Comparisons with the title.' }),
  number: intComparisons('number', { description: 'The issue number (the 12 of WEB-12).' }),
  createdAfter: instant('createdAt', '>', {
    description: 'Created strictly after this instant.',
    rest: { name: 'created_after', description: 'Created after, strictly.' },
  }),
  createdBefore: instant('createdAt', '<', {
    description: 'Created strictly before this instant.',
    rest: { name: 'created_before', description: 'Created before, strictly.' },
  }),
  updatedAfter: instant('updatedAt', '>', {
    description: 'Last changed strictly after this instant.',
    rest: { name: 'updated_after', description: 'Last changed after, strictly.' },
  }),
  updatedBefore: instant('updatedAt', '<', {
    description: 'Last changed strictly before this instant.',
    rest: { name: 'updated_before', description: 'Last changed before, strictly.' },
  }),
};

type IssueFilterEntries = typeof ISSUE_FILTER;
export type IssueFilterField = keyof IssueFilterEntries;
type ValueOf<Entry> = Entry extends FilterField<infer Value> ? Value : never;

/** A filter: any of the entries' values, and filters combined (and: all hold; or: one holds; not: it does not hold). */
export interface IssueFilterShape extends FilterValues {
  and?: IssueFilterShape[] | null;
  or?: IssueFilterShape[] | null;
  not?: IssueFilterShape | null;
}
type FilterValues = { [Name in IssueFilterField]?: ValueOf<IssueFilterEntries[Name]> | null };

const ENTRIES = Object.entries(ISSUE_FILTER) as [IssueFilterField, FilterField<unknown>][];

/** The entries offered as query parameters of the REST list (and as the issues page's controls), in the table's order. */
export const ISSUE_FILTER_PARAMETERS: (RestParameter & { field: IssueFilterField; rule: z.ZodType })[] =
  ENTRIES.flatMap(([field, entry]) => (entry.rest ? [{ field, rule: entry.rule, ...entry.rest }] : []));

export const IssueFilterInput = builder.inputRef<IssueFilterShape>('IssueFilter').implement({
  description:
    `Every given condition must hold. and, or and not combine filters (nested at most ${MAX_FILTER_DEPTH} deep, ` +
    `${MAX_FILTER_BRANCHES} per list, ${MAX_FILTERS} in all); lists of values have at most ${MAX_FILTER_VALUES}.`,
  // The entries' fields are built from the table, which TypeScript cannot match to the shape key by key.
  fields: (t) =>
    ({
      ...Object.fromEntries(ENTRIES.map(([field, entry]) => [field, entry.graphql(t)])),
      and: t.field({ type: [IssueFilterInput], required: false, description: 'All of these.' }),
      or: t.field({ type: [IssueFilterInput], required: false, description: 'At least one of these.' }),
      not: t.field({ type: IssueFilterInput, required: false, description: 'Not this.' }),
    }) as never,
});

function filterSchema(depth: number): z.ZodType<IssueFilterShape> {
  const nested =
    depth < MAX_FILTER_DEPTH
      ? filterSchema(depth + 1)
      : z.never({ error: `filters nest at most ${MAX_FILTER_DEPTH} deep` });
  const branches = z
    .array(nested)
    .max(MAX_FILTER_BRANCHES, `must have at most ${MAX_FILTER_BRANCHES} filters`)
    .nullish();
  return z.object({
    ...Object.fromEntries(ENTRIES.map(([field, entry]) => [field, entry.rule.nullish()])),
    and: branches,
    or: branches,
    not: nested.nullish(),
  }) as z.ZodType<IssueFilterShape>;
}

/** How many filters `filter` holds, itself included (its depth is already bounded). */
function filterCount(filter: IssueFilterShape): number {
  let count = 1;
  for (const branch of [...(filter.and ?? []), ...(filter.or ?? []), ...(filter.not ? [filter.not] : [])])
    count += filterCount(branch);
  return count;
}

export const IssueFilter = filterSchema(1).refine((filter) => filterCount(filter) <= MAX_FILTERS, {
  error: `must hold at most ${MAX_FILTERS} filters in all (nested ones included)`,
});

/** How a target (Prisma, SQL) writes the conditions of a filter and combines them. */
export interface FilterTarget<Condition> {
  conditions(entry: FilterField<unknown>, value: unknown): Condition[];
  all(branches: Condition[][]): Condition;
  any(branches: Condition[][]): Condition;
  none(conditions: Condition[]): Condition;
  /** A condition no issue meets. */
  never: Condition;
}

/**
 * The conditions of a validated filter (AND-ed by the caller) on a target; none when it holds for
 * every issue. A filter without conditions holds for every issue; Prisma drops such an empty
 * filter instead of reading it as true (within OR it then counts as false: `or: [{}]` matched
 * nothing, and `not: {}` everything), so empty branches are decided here, the same for every target.
 */
export function compileFilter<Condition>(filter: IssueFilterShape, target: FilterTarget<Condition>): Condition[] {
  const where: Condition[] = [];
  for (const [field, entry] of ENTRIES) {
    const value = filter[field];
    if (value != null) where.push(...target.conditions(entry, value));
  }
  if (filter.and?.length) {
    // Branches that hold for every issue add nothing; every condition pushed is then a real one.
    const branches = filter.and.map((branch) => compileFilter(branch, target)).filter((branch) => branch.length > 0);
    if (branches.length) where.push(target.all(branches));
  }
  if (filter.or?.length) {
    const branches = filter.or.map((branch) => compileFilter(branch, target));
    // One branch that holds for every issue makes the OR hold for every issue: no condition.
    if (branches.every((branch) => branch.length > 0)) where.push(target.any(branches));
  }
  if (filter.not) {
    const negated = compileFilter(filter.not, target);
    where.push(negated.length ? target.none(negated) : target.never);
  }
  return where;
}

const PRISMA: FilterTarget<Prisma.IssueWhereInput> = {
  conditions: (entry, value) => entry.where(value),
  all: (branches) => ({ AND: branches.map((branch) => ({ AND: branch })) }),
  any: (branches) => ({ OR: branches.map((branch) => ({ AND: branch })) }),
  none: (conditions) => ({ NOT: { AND: conditions } }),
  // Prisma reads `in: []` as false.
  never: { id: { in: [] } },
};

/** The Prisma conditions of a validated filter (AND-ed by the caller). */
export function issueFilterWhere(filter: IssueFilterShape): Prisma.IssueWhereInput[] {
  return compileFilter(filter, PRISMA);
}

/** The fields a filter's conditions read, at any depth. */
export function filterReads(filter: IssueFilterShape): Set<IssueField> {
  const reads = new Set<IssueField>();
  const visit = (f: IssueFilterShape) => {
    for (const [field, entry] of ENTRIES) if (f[field] != null) for (const read of entry.reads) reads.add(read);
    for (const branch of [...(f.and ?? []), ...(f.or ?? []), ...(f.not ? [f.not] : [])]) visit(branch);
  };
  visit(filter);
  return reads;
}
