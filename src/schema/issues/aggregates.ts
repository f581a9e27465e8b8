import { sql, type Expression, type SqlBool } from 'kysely';
import { z } from 'zod';
import type { Context } from '../../context.js';
import { directSql } from '../../db/direct-sql.js';
import { builder, rowsOf } from '../../db/sql-builder.js';
import { NotFoundError } from '../core/errors.js';
import { filterReads, IssueFilter, type IssueFilterShape } from './filter.js';
import type { IssueField } from './columns.js';
import { issueFilterConditions } from './filter-sql.js';
import { defineOperation } from '../core/operation.js';
import { optionalProjectIdOf, projectRef } from '../projects/lookup.js';
import { activeOrgId } from '../people/viewer.js';
import { ISSUE_PRIORITIES, ISSUE_STATUSES, type IssuePriority, type IssueStatus } from './workflow.js';

/**
 * Counts of issues for dashboards, grouped in the database (GROUP BY GROUPING SETS: one
 * statement, one pass over the filtered issues, whatever the number of groupings).
 *
 * The web dashboard and the GraphQL field `issueAggregates` call the same operation:
 *
 * ```ts
 * const stats = await aggregateIssues.call(ctx, {
 *   filter: { status: ['Todo', 'In Progress'] },  // the issue list's filter (and/or/not), optional
 *   projectId,                                     // optional: one project's issues
 *   groupBy: ['status', 'priority', 'createdWeek'], // what to count by; the total always comes
 *   weeks: 12,                                     // the weekly series' length, default 12
 * }, undefined);
 * stats.total;          // 42
 * stats.byStatus;       // [{ status: 'Backlog', count: 3 }, ...] every status, workflow order
 * stats.createdPerWeek; // [{ weekStart: Date (Monday 00:00 UTC), count: 5 }, ...] oldest first
 * // groupBy 'completedWeek' gives stats.completedPerWeek: issues moved to Done, per week
 * ```
 *
 * `ctx` is the request's context (a session's principal on the pages); the rules are those of
 * the list: any role of the organization, its issues only, the same filter.
 */
export const ISSUE_GROUPINGS = ['status', 'priority', 'assignee', 'project', 'createdWeek', 'completedWeek'] as const;
export type IssueGrouping = (typeof ISSUE_GROUPINGS)[number];

/** byAssignee and byProject list the groups with the most issues, at most this many. */
export const GROUPS_MAX = 100;

export const WEEKS_DEFAULT = 12;
/** Two years of weeks: a series a chart can still show. */
export const WEEKS_MAX = 104;

export interface WeekCount {
  /** Monday 00:00 UTC of the week (ISO weeks). */
  weekStart: Date;
  count: number;
}

export interface IssueAggregates {
  /** Issues matching the filter. */
  total: number;
  /** Every status in workflow order, zeros included (when grouped by status). */
  byStatus?: { status: IssueStatus; count: number }[];
  /** Every priority, most urgent first, zeros included. */
  byPriority?: { priority: IssuePriority; count: number }[];
  /** Assignees with at least one issue, most issues first (at most GROUPS_MAX); `null` counts the unassigned. */
  byAssignee?: { assigneeId: string | null; count: number }[];
  /** Projects with at least one issue, most issues first (at most GROUPS_MAX). */
  byProject?: { projectId: string; count: number }[];
  /** Issues created in each of the last `weeks` weeks (the current one last), zeros included. */
  createdPerWeek?: WeekCount[];
  /**
   * Issues moved to Done in each of the last `weeks` weeks, from the issue history (an issue
   * moved to Done twice in a week counts once). The filter applies to the issues as they are now.
   */
  completedPerWeek?: WeekCount[];
}

const weeksMessage = `must be between 1 and ${WEEKS_MAX}`;

export const AggregateIssuesInput = z.strictObject({
  projectId: projectRef.nullish(),
  filter: IssueFilter.nullish(),
  groupBy: z
    .array(z.enum(ISSUE_GROUPINGS, { error: `must each be one of: ${ISSUE_GROUPINGS.join(', ')}` }))
    .max(ISSUE_GROUPINGS.length, `must have at most ${ISSUE_GROUPINGS.length} values`)
    .nullish(),
  weeks: z
    .number({ error: weeksMessage })
    .int(weeksMessage)
    .min(1, weeksMessage)
    .max(WEEKS_MAX, weeksMessage)
    .nullish(),
});

/** The groupings of the issues themselves (one GROUPING SETS statement); completedWeek reads the history. */
type IssueColumnGrouping = Exclude<IssueGrouping, 'completedWeek'>;

/** The fields issue_counts holds (besides the organization and the project), under the issues' column names. */
const COUNTED_FIELDS: ReadonlySet<IssueField> = new Set(['status', 'priority', 'assigneeId']);

/** The column each grouping groups by, in the statement's inner select. */
const GROUP_COLUMN: Record<IssueColumnGrouping, string> = {
  status: 'status',
  priority: 'priority',
  assignee: 'assignee_id',
  project: 'project_id',
  createdWeek: 'created_week',
};

const WEEK_MS = 7 * 24 * 3600 * 1000;

/** Monday 00:00 UTC of the week holding `instant`: what date_trunc('week', ..., 'UTC') gives. */
export function weekStartOf(instant: Date): Date {
  const day = new Date(Date.UTC(instant.getUTCFullYear(), instant.getUTCMonth(), instant.getUTCDate()));
  const sinceMonday = (day.getUTCDay() + 6) % 7;
  return new Date(day.getTime() - sinceMonday * 24 * 3600 * 1000);
}

/** The starts of the last `weeks` weeks up to the one holding `now`, oldest first. */
function weekStarts(now: Date, weeks: number): Date[] {
  const current = weekStartOf(now).getTime();
  return Array.from({ length: weeks }, (_, i) => new Date(current - (weeks - 1 - i) * WEEK_MS));
}

type Row = { count: number; value: string | Date | null } & Record<`g_${IssueColumnGrouping}`, number | undefined>;

export const aggregateIssues = defineOperation({
  name: 'aggregateIssues',
  description:
    "Counts of the issues matching `filter` (the issue list's filter; one project's issues when projectId is given): " +
    'the total, and per status, priority, assignee, project, week of creation or week of completion (moved to Done), computed in the database.',
  kind: 'read',
  access: { role: 'viewer' },
  input: AggregateIssuesInput,
  async run(ctx, given): Promise<IssueAggregates> {
    const orgId = activeOrgId(ctx);
    const input = { ...given, projectId: await optionalProjectIdOf(ctx.prisma, orgId, given.projectId) };
    const groupings = [...new Set(input.groupBy ?? [])];
    const weeks = weekStarts(new Date(), input.weeks ?? WEEKS_DEFAULT);
    const fromCounts = answeredByCounts(input, groupings);
    const weekly = groupings.includes('createdWeek') && fromCounts;
    const columns = groupings.filter(
      (g): g is IssueColumnGrouping => g !== 'completedWeek' && !(g === 'createdWeek' && fromCounts),
    );
    const [rows, created, completed] = await Promise.all([
      groupedCounts(ctx, orgId, input, columns, weeks[0]!, fromCounts),
      weekly ? createdPerWeek(ctx, orgId, input, weeks) : undefined,
      groupings.includes('completedWeek') ? completedPerWeek(ctx, orgId, input, weeks) : undefined,
    ]);
    const result = collect(rows, columns, weeks);
    if (created) result.createdPerWeek = created;
    if (completed) result.completedPerWeek = completed;
    // As for the list: only an empty result needs to tell "no issues" from "no such project here".
    if (input.projectId && result.total === 0) {
      const project = await ctx.prisma.project.findFirst({
        where: { id: input.projectId, orgId },
        select: { id: true },
      });
      if (!project) throw new NotFoundError('project');
    }
    return result;
  },
});

/**
 * Whether the counts kept by the database answer the request (prisma/schema.prisma: IssueCount,
 * IssueWeekCount; triggers on `issues` keep them): a filter that names only the columns those
 * rows hold (status, priority, assignee; and/or/not of such filters), and weeks of creation
 * only for the whole organization or a project (the weekly rows hold no other column). Then a
 * dashboard's counts read a few hundred rows instead of scanning every issue of the
 * organization; any other filter counts the issues themselves with the same conditions, so
 * both ways give the same answer (test/issue-aggregates.test.ts runs both).
 */
export function answeredByCounts(input: z.output<typeof AggregateIssuesInput>, groupings: IssueGrouping[]): boolean {
  const filter = input.filter ?? {};
  if (!countsHold(filter)) return false;
  return !groupings.includes('createdWeek') || issueFilterConditions(filter, 'i').length === 0;
}

/** Whether every condition of `filter`, at any depth, reads only what issue_counts holds. */
function countsHold(filter: IssueFilterShape): boolean {
  return [...filterReads(filter)].every((field) => COUNTED_FIELDS.has(field));
}

async function groupedCounts(
  ctx: Context,
  orgId: string,
  input: z.output<typeof AggregateIssuesInput>,
  groupings: IssueColumnGrouping[],
  firstWeek: Date,
  fromCounts: boolean,
): Promise<Row[]> {
  // A row of issue_counts stands for `count` issues of its group; the columns a countable filter
  // names are the same in both tables. (Weeks never come from issue_counts: answeredByCounts.)
  const filtered = fromCounts
    ? builder
        .selectFrom('issue_counts as i')
        .select(['i.status', 'i.priority', 'i.assignee_id', 'i.project_id', 'i.count as issues'])
        .where((eb) => eb.and(issueConditions(orgId, input)))
    : builder
        .selectFrom('issues as i')
        .select([
          'i.status',
          'i.priority',
          'i.assignee_id',
          'i.project_id',
          sql<number>`1`.as('issues'),
          sql<Date | null>`CASE WHEN i.created_at >= ${firstWeek}::timestamptz THEN date_trunc('week', i.created_at, 'UTC') END`.as(
            'created_week',
          ),
        ])
        .where((eb) => eb.and(issueConditions(orgId, input)));
  // One output column per grouping would make every row wide; each grouping set fills `value`
  // instead, and GROUPING() tells which set a row belongs to (1: not grouped by that column).
  const grouping = (g: IssueColumnGrouping) => sql<number>`GROUPING(${sql.ref(GROUP_COLUMN[g])})`;
  const value = groupings.length
    ? sql<
        string | null
      >`COALESCE(${sql.join(groupings.map((g) => sql`CASE WHEN ${grouping(g)} = 0 THEN ${valueText(g)} END`))})`
    : sql<null>`NULL`;
  const sets = sql.join([sql`()`, ...groupings.map((g) => sql`(${sql.ref(GROUP_COLUMN[g])})`)]);
  const query = builder
    .selectFrom(filtered.as('filtered'))
    .select([
      sql<number>`COALESCE(sum(issues), 0)::int`.as('count'),
      value.as('value'),
      ...groupings.map((g) => grouping(g).as(`g_${g}`)),
    ])
    .groupBy(sql`GROUPING SETS (${sets})`);
  return rowsOf(directSql(ctx.prisma), query);
}

/** Issues created per week, from the weekly counts (the whole organization, or one project). */
async function createdPerWeek(
  ctx: Context,
  orgId: string,
  input: z.output<typeof AggregateIssuesInput>,
  weeks: Date[],
): Promise<WeekCount[]> {
  let query = builder
    .selectFrom('issue_week_counts as w')
    .select(['w.week', sql<number>`sum(w.count)::int`.as('count')])
    .where('w.org_id', '=', orgId)
    .where('w.week', '>=', weeks[0]!)
    .groupBy('w.week');
  if (input.projectId) query = query.where('w.project_id', '=', input.projectId);
  return weekSeries(await rowsOf(directSql(ctx.prisma), query), weeks);
}

/** A count for every week of `weeks`, zeros included, from the weeks that have one. */
function weekSeries(rows: { week: Date; count: number }[], weeks: Date[]): WeekCount[] {
  const counts = new Map(rows.map((row) => [new Date(row.week).getTime(), row.count]));
  return weeks.map((weekStart) => ({ weekStart, count: counts.get(weekStart.getTime()) ?? 0 }));
}

/** The conditions of the operation's input on the issues (or their counts) aliased `i`: the organization, the project, the filter. */
function issueConditions(orgId: string, input: z.output<typeof AggregateIssuesInput>): Expression<SqlBool>[] {
  const where = [sql<SqlBool>`${sql.ref('i.org_id')} = ${orgId}::uuid`];
  if (input.projectId) where.push(sql<SqlBool>`${sql.ref('i.project_id')} = ${input.projectId}::uuid`);
  return [...where, ...(input.filter ? issueFilterConditions(input.filter, 'i') : [])];
}

/**
 * Issues moved to Done per week, of issues that match the filter now: the weeks of completion
 * the database derives from the history (issue_completions, kept by a trigger on `events`: one
 * row per issue and week, however often it reached Done that week; gone with the issue). For
 * the whole organization or a project, the rows are counted as they are; under a filter, each
 * row's issue is looked up by its key and checked.
 */
async function completedPerWeek(
  ctx: Context,
  orgId: string,
  input: z.output<typeof AggregateIssuesInput>,
  weeks: Date[],
): Promise<WeekCount[]> {
  const filter = input.filter ? issueFilterConditions(input.filter, 'i') : [];
  let query = builder
    .selectFrom('issue_completions as c')
    .select(['c.week', sql<number>`count(*)::int`.as('count')])
    .where('c.org_id', '=', orgId)
    .where('c.week', '>=', weeks[0]!)
    .groupBy('c.week');
  if (input.projectId) query = query.where('c.project_id', '=', input.projectId);
  if (filter.length) {
    query = query.where(({ exists, selectFrom, and }) =>
      exists(
        selectFrom('issues as i')
          .select(sql`1`.as('one'))
          .where(and([sql<SqlBool>`i.id = c.issue_id`, ...filter])),
      ),
    );
  }
  return weekSeries(await rowsOf(directSql(ctx.prisma), query), weeks);
}

/** Every group's value as text, so that one column holds them all (weeks as ISO 8601 instants). */
function valueText(grouping: IssueColumnGrouping) {
  if (grouping === 'createdWeek')
    return sql<string>`to_char(created_week AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
  return sql<string>`${sql.ref(GROUP_COLUMN[grouping])}::text`;
}
function collect(rows: Row[], groupings: IssueColumnGrouping[], weeks: Date[]): IssueAggregates {
  const counts = new Map<IssueColumnGrouping, Map<string | null, number>>(groupings.map((g) => [g, new Map()]));
  let total = 0;
  for (const row of rows) {
    const grouping = groupings.find((g) => row[`g_${g}`] === 0);
    if (!grouping) total = row.count;
    else counts.get(grouping)!.set(row.value === null ? null : String(row.value), row.count);
  }
  const countOf = (g: IssueColumnGrouping, value: string | null) => counts.get(g)?.get(value) ?? 0;
  // Most issues first; equal counts in the order of their ids, so that the answer is stable.
  const byCount = <T extends { count: number }>(list: T[], id: (item: T) => string | null) =>
    list.sort((a, b) => b.count - a.count || (id(a) ?? '').localeCompare(id(b) ?? '')).slice(0, GROUPS_MAX);
  const result: IssueAggregates = { total };
  for (const grouping of groupings) {
    const found = [...counts.get(grouping)!.entries()];
    if (grouping === 'status')
      result.byStatus = ISSUE_STATUSES.map((status) => ({ status, count: countOf('status', status) }));
    if (grouping === 'priority')
      result.byPriority = ISSUE_PRIORITIES.map((priority) => ({ priority, count: countOf('priority', priority) }));
    if (grouping === 'assignee')
      result.byAssignee = byCount(
        found.map(([assigneeId, count]) => ({ assigneeId, count })),
        (a) => a.assigneeId,
      );
    if (grouping === 'project')
      result.byProject = byCount(
        found.map(([projectId, count]) => ({ projectId: projectId!, count })),
        (p) => p.projectId,
      );
    // Issues created before the window fall in the NULL week, which no series shows.
    if (grouping === 'createdWeek')
      result.createdPerWeek = weeks.map((weekStart) => ({
        weekStart,
        count: countOf('createdWeek', weekStart.toISOString().replace('.000Z', 'Z')),
      }));
  }
  return result;
}
