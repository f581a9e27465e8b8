import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { roleAtLeast } from '../auth/principal.js';
import type { Context } from '../context.js';
import { aggregateIssues, weekStartOf } from '../schema/issues/aggregates.js';
import { ISSUE_STATUSES } from '../schema/issues/workflow.js';
import { membersOf, namesOf, WORKFLOW } from './org-data.js';
import { issueListData } from './issues.js';
import { orgPage, orgView, type OrgPage, type PageRequest } from './org-page.js';
import { assetSet, JS } from '../views/static-assets.js';
import { Response } from '../http/fetch-api.js';
import { PATHS } from '../http/surfaces.js';

/**
 * GET /orgs/:slug: the organization's dashboard, the default page after sign-in. Every figure
 * is a GROUP BY in the database (the aggregateIssues operation the GraphQL API also serves),
 * never rows loaded and counted here; the two short lists are the issue list's operation.
 * Charts are drawn by Chart.js, served by the service (no CDN), from data embedded in the page
 * as JSON (not script); each chart is also a table, readable without JavaScript.
 */

const OPEN = ISSUE_STATUSES.filter((s) => s !== 'Done' && s !== 'Canceled');

// The package's exports list neither its UMD build nor package.json: found next to its CommonJS entry (dist/).
const chartJsDist = dirname(createRequire(import.meta.url).resolve('chart.js'));

const charts = assetSet(PATHS.chartAssets, [
  { name: 'chart.umd.min.js', file: join(chartJsDist, 'chart.umd.min.js'), type: JS },
  { name: 'dashboard.js', file: fileURLToPath(new URL('./assets/dashboard.js', import.meta.url)), type: JS },
] as const);

/** Chart.js and our drawing script, or null for a path outside /assets/charts/. */
export const serveChartAssets = (request: Request, path: string) => charts.serve(request, path);

/** The weekly series' length. */
const WEEKS = 12;

/** A chart and its table: a row per label, a number per series. */
interface Chart {
  id: string;
  title: string;
  kind: 'bar' | 'line';
  /**
   * Where each colour comes from, all defined once in app.css: a bar per status or per priority
   * (--status-*, --priority-*, the colours of the list's badges), or a colour per series (--series-*).
   */
  colorBy: 'status' | 'priority' | 'series';
  column: string;
  series: string[];
  rows: [string, ...number[]][];
}

/** The dashboard's figures; each call is one GROUP BY statement (two with the weekly completions). */
async function dashboardData(p: OrgPage, now = new Date()) {
  const ctx = p.ctx;
  const weekStart = weekStartOf(now);
  const [open, all, members] = await Promise.all([
    aggregateIssues.call(ctx, { filter: { status: [...OPEN] }, groupBy: ['priority', 'assignee'] }, undefined),
    // Completed: moved to Done, per week, from the issue history (src/events).
    aggregateIssues.call(ctx, { groupBy: ['status', 'createdWeek', 'completedWeek'], weeks: WEEKS }, undefined),
    membersOf(p),
  ]);
  const names = namesOf(members);
  const unassigned = open.byAssignee?.find((a) => a.assigneeId === null)?.count ?? 0;
  const day = (date: Date) => date.toISOString().slice(0, 10);
  const created = new Map((all.createdPerWeek ?? []).map((w) => [day(w.weekStart), w.count]));
  const completed = new Map((all.completedPerWeek ?? []).map((w) => [day(w.weekStart), w.count]));
  const weeks = [...new Set([...created.keys(), ...completed.keys()])].sort();
  return {
    /** No issue at all yet: the page offers to create the first one instead of empty charts. */
    empty: all.total === 0,
    counts: {
      open: open.total,
      inProgress: all.byStatus?.find((s) => s.status === 'In Progress')?.count ?? 0,
      doneThisWeek: completed.get(day(weekStart)) ?? 0,
      unassigned,
    },
    charts: [
      {
        id: 'by-status',
        title: 'Issues by status',
        kind: 'bar',
        colorBy: 'status',
        column: 'Status',
        series: ['Issues'],
        rows: (all.byStatus ?? []).map((s) => [s.status, s.count]),
      },
      {
        id: 'by-priority',
        title: 'Open issues by priority',
        kind: 'bar',
        colorBy: 'priority',
        column: 'Priority',
        series: ['Issues'],
        rows: (open.byPriority ?? []).map((s) => [s.priority, s.count]),
      },
      {
        id: 'workload',
        title: 'Open issues by assignee (workload)',
        kind: 'bar',
        colorBy: 'series',
        column: 'Assignee',
        series: ['Issues'],
        rows: (open.byAssignee ?? []).map((a) => [
          a.assigneeId ? (names[a.assigneeId] ?? 'former member') : 'Unassigned',
          a.count,
        ]),
      },
      {
        id: 'created-completed-per-week',
        title: `Created and completed per week (last ${WEEKS} weeks)`,
        kind: 'line',
        colorBy: 'series',
        column: 'Week of',
        series: ['Created', 'Completed'],
        rows: weeks.map((week) => [week, created.get(week) ?? 0, completed.get(week) ?? 0]),
      },
    ] as Chart[],
  };
}

async function shortList(p: OrgPage, query: string) {
  return (await issueListData(p, new URL(`${p.base}/issues?${query}`, p.ctx.config.baseUrl))).issues;
}

export async function showDashboard(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const openStatuses = encodeURIComponent(OPEN.join(','));
  const [data, oldest, recent, members] = await Promise.all([
    dashboardData(p),
    shortList(p, `status=${openStatuses}&sort=created_at&direction=asc&limit=5`),
    shortList(p, 'sort=updated_at&direction=desc&limit=5'),
    membersOf(p),
  ]);
  // In a <script type="application/json">, only "</" could end the element early.
  const json = JSON.stringify(data.charts).replace(/</g, '\\u003c');
  return orgView(p, 'dashboard', {
    title: `Dashboard · ${p.org.name}`,
    section: 'Dashboard',
    ...data,
    json,
    oldest,
    recent,
    openStatuses,
    names: namesOf(members),
    workflow: WORKFLOW,
    canEdit: roleAtLeast(p.org.role, 'member'),
    // No issue yet: no charts to draw.
    scripts: data.empty ? [] : [charts.urls['chart.umd.min.js'], charts.urls['dashboard.js']],
  });
}
