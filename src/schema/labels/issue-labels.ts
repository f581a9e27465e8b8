import { sql, type RawBuilder } from 'kysely';
import { lockOrgRows } from '../../db/row-locks.js';
import type { Tx } from '../../events/record.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { ConflictError, NotFoundError } from '../core/errors.js';

/**
 * The labels of issues: what an issue shows of them, how a statement loads them with the issue,
 * and the one write that changes them, for one issue or many in a transaction of the caller's.
 */

/** The most labels one issue carries. */
export const ISSUE_LABELS_MAX = 20;

/** What an issue shows of a label. */
export interface LabelSummary {
  id: string;
  name: string;
  color: string;
}

/** An issue's labels as loaded with it: Prisma's shape of the relation, which the hand-written statements give too. */
export type IssueLabels = { label: LabelSummary }[];

/** The Prisma selection of an issue's labels, by name (names are unique in an organization whatever their case). */
export const ISSUE_LABELS_SELECT = {
  select: { label: { select: { id: true, name: true, color: true } } },
  orderBy: { label: { nameKey: 'asc' } },
} as const satisfies Prisma.Issue$labelsArgs;

/**
 * The same in SQL, for a statement that loads an issue by hand to change it (the locks of
 * writes): a JSON array in the same shape and order, from the issue of the table aliased
 * `alias`. The issue's primary key leads issue_labels' primary key, so each issue costs one
 * index range. A page of issues reads issueLabelIdsText instead.
 */
export function issueLabelsJson(alias: string): RawBuilder<IssueLabels> {
  return sql<IssueLabels>`coalesce((select json_agg(json_build_object('label', json_build_object('id', l.id, 'name', l.name, 'color', l.color)) order by l.name_key) from issue_labels il join labels l on l.id = il.label_id where il.issue_id = ${sql.ref(`${alias}.id`)}), '[]'::json)`;
}

/** The summaries of loaded labels. */
export const labelSummaries = (labels: IssueLabels): LabelSummary[] => labels.map((entry) => entry.label);

/** What changes: labels to add and labels to remove (ids of the organization's labels); `replace`: remove every other label. */
export interface IssueLabelChange {
  add?: readonly string[];
  remove?: readonly string[];
  replace?: boolean;
}

/** What changeIssueLabels did: each issue's labels after it, and the issues whose labels changed (their updated_at is `updatedAt`). */
export interface IssueLabelsChanged {
  labels: Map<string, IssueLabels>;
  changed: Set<string>;
  updatedAt: Date;
}

/**
 * Changes the labels of many issues of organization `orgId` inside the caller's transaction `tx`:
 * the same additions and removals on each (an addition wins over a removal of the same label).
 * It locks the issues (FOR UPDATE; a caller that already holds the locks loses nothing), so
 * concurrent changes of one issue take turns and the bound holds: an issue that would carry
 * more than ISSUE_LABELS_MAX labels fails the whole change (ConflictError, code CONFLICT with the `limit`),
 * as does an issue or a label that is not the organization's (NotFoundError). Issues whose labels
 * changed get a new updated_at. Events are the caller's: issueChange (src/events/subjects.ts)
 * records the labels' change from snapshots that hold them.
 *
 * ```ts
 * await writeWithEvents(ctx, orgId, async (tx) => {
 *   const before = await lockIssue(tx, orgId, id);
 *   const { labels, updatedAt } = await changeIssueLabels(tx, orgId, [id], { add: [bugId], remove: [uiId] });
 *   const after = { ...before, labels: labels.get(id)!, updatedAt };
 *   return { result: after, changes: [issueChange('issue.updated', before, after)] };
 * });
 * ```
 */
export async function changeIssueLabels(
  tx: Tx,
  orgId: string,
  issueIds: readonly string[],
  change: IssueLabelChange,
): Promise<IssueLabelsChanged> {
  const ids = [...new Set(issueIds)].sort();
  const add = [...new Set(change.add ?? [])];
  const remove = new Set(change.remove ?? []);
  const updatedAt = new Date();
  if (ids.length === 0) return { labels: new Map(), changed: new Set(), updatedAt };
  if ((await lockOrgRows(tx, 'issues', orgId, ids, 'update')) !== ids.length) throw new NotFoundError('issue');
  // Every label to add held until the transaction ends: a label deleted meanwhile is a 404 here,
  // not a foreign-key error at the insert below.
  if (add.length && (await lockOrgRows(tx, 'labels', orgId, add, 'key share')) !== add.length)
    throw new NotFoundError('label');

  const current = await tx.issueLabel.findMany({
    where: { orgId, issueId: { in: ids } },
    select: { issueId: true, labelId: true },
  });
  const before = new Map(ids.map((id) => [id, new Set<string>()]));
  for (const row of current) before.get(row.issueId)!.add(row.labelId);

  const removed = [...remove].filter((id) => !add.includes(id));
  const changed = new Set<string>();
  for (const [issueId, had] of before) {
    const after = new Set(change.replace ? add : [...[...had].filter((id) => !removed.includes(id)), ...add]);
    if (after.size > ISSUE_LABELS_MAX) {
      throw new ConflictError(
        `An issue carries at most ${ISSUE_LABELS_MAX} labels; this change would give one ${after.size}. Remove some first.`,
        'CONFLICT',
        { limit: ISSUE_LABELS_MAX },
      );
    }
    if (after.size !== had.size || [...after].some((id) => !had.has(id))) changed.add(issueId);
  }

  if (change.replace) {
    await tx.issueLabel.deleteMany({ where: { orgId, issueId: { in: ids }, labelId: { notIn: add } } });
  } else if (removed.length) {
    await tx.issueLabel.deleteMany({ where: { orgId, issueId: { in: ids }, labelId: { in: removed } } });
  }
  if (add.length) {
    await tx.issueLabel.createMany({
      data: ids.flatMap((issueId) => add.map((labelId) => ({ orgId, issueId, labelId }))),
      skipDuplicates: true,
    });
  }
  if (changed.size) await tx.issue.updateMany({ where: { orgId, id: { in: [...changed] } }, data: { updatedAt } });

  const rows = await tx.issueLabel.findMany({
    where: { orgId, issueId: { in: ids } },
    select: { issueId: true, ...ISSUE_LABELS_SELECT.select },
    orderBy: ISSUE_LABELS_SELECT.orderBy,
  });
  const labels = new Map<string, IssueLabels>(ids.map((id) => [id, []]));
  for (const row of rows) labels.get(row.issueId)!.push({ label: row.label });
  return { labels, changed, updatedAt };
}

/**
 * Whether a Prisma selection of an issue's labels (`select.labels`) asks for no more than
 * issueLabelsJson gives: nothing, or the labels' id, name and color in its order.
 */
export function issueLabelsCovered(wanted: unknown): boolean {
  if (wanted === undefined || wanted === false) return true;
  if (typeof wanted !== 'object' || wanted === null) return false;
  const { select, orderBy, ...other } = wanted as { select?: { label?: unknown }; orderBy?: unknown };
  if (Object.keys(other).length || JSON.stringify(orderBy) !== JSON.stringify(ISSUE_LABELS_SELECT.orderBy))
    return false;
  if (!select || Object.keys(select).some((key) => key !== 'label')) return false;
  const label = select.label as { select?: Record<string, unknown> } | undefined;
  return (
    !!label?.select &&
    Object.keys(label).length === 1 &&
    Object.entries(label.select).every(
      ([field, on]) => !on || (on === true && field in ISSUE_LABELS_SELECT.select.label.select),
    )
  );
}
