import { aggregateIssues } from '../schema/issues/aggregates.js';
import { ISSUE_STATUSES } from '../schema/issues/workflow.js';
import type { OrgPage } from './org-page.js';

/** Open issues (not Done, not Canceled) per project id: one GROUP BY (the aggregates operation). */
export async function openCountsByProject(p: OrgPage): Promise<Record<string, number>> {
  const open = ISSUE_STATUSES.filter((s) => s !== 'Done' && s !== 'Canceled');
  const counts = await aggregateIssues.call(p.ctx, { filter: { status: open }, groupBy: ['project'] }, undefined);
  return Object.fromEntries((counts.byProject ?? []).map((c) => [c.projectId, c.count]));
}
