import { z } from 'zod';
import type { Context } from '../../context.js';
import { transactionRowsOf } from '../../db/sql-builder.js';
import { announceEvents, writeWithEvents } from '../../events/record.js';
import { definedFields, issueChange, lockIssues } from '../../events/subjects.js';
import { BULK_MAX } from '../core/bulk.js';
import { type FieldError, ValidationError } from '../core/errors.js';
import { defineOperation } from '../core/operation.js';
import { chargeItems } from '../core/rate-limit.js';
import { selectionCovered } from '../core/selection.js';
import { activeOrgId } from '../people/viewer.js';
import { projectIdsOf } from '../projects/lookup.js';
import { changeIssueLabels } from '../labels/issue-labels.js';
import { labelIdsOf, labelRefs, labelsIn, labelsNamed, type LabelsNamed } from '../labels/lookup.js';
import { type CreatedIssue, issueCreate } from './create.js';
import { checkAssignee, CreateIssue, UpdateIssue } from './input.js';
import { issueIdsOf } from './lookup.js';
import type { IssueQuery } from './operations.js';

/** Labels a bulk change adds to and takes off every issue it names, by id or name (an addition wins over a removal). */
const LabelsChange = z.strictObject({ add: labelRefs.optional(), remove: labelRefs.optional() });

/**
 * The change a bulk call makes to every issue it names, from the update's own rules
 * (src/schema/issues/input.ts) and the labels' (src/schema/labels/lookup.ts): the fields a
 * list's action bar sets. Absent fields stay as they are; null clears the assignee.
 */
export const IssuesChange = UpdateIssue.pick({ status: true, priority: true, assigneeId: true }).extend({
  labels: LabelsChange.optional(),
});

const ITEMS_MESSAGE = `must hold between 1 and ${BULK_MAX} items`;
export const itemsOf = <T extends z.ZodType>(item: T) =>
  z.array(item).min(1, ITEMS_MESSAGE).max(BULK_MAX, ITEMS_MESSAGE);

/** An issue named in a bulk change: its id or its key (WEB-12, any case). */
export const issueRef = z.string().min(1, 'is required').max(36, 'must be an issue id or key');

/**
 * A bulk call: `ids` with one `change` for all of them, or `issues`, a list of new issues; each
 * item checked by the single issue's rules, every mistake named with its item's index.
 */
const BulkIssues = z
  .strictObject({
    ids: itemsOf(issueRef).optional(),
    change: IssuesChange.optional(),
    issues: itemsOf(CreateIssue).optional(),
  })
  .superRefine((input, ctx) => {
    const at = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message, input });
    if (input.issues) {
      if (input.ids || input.change) at('issues', 'cannot be sent with ids or change: one call creates or changes');
      return;
    }
    if (!input.ids) at('ids', 'is required (or issues, to create)');
    if (!input.change) at('change', 'is required with ids');
    else if (!changesSomething(input.change)) at('change', 'must set at least one field');
  });

type NewIssue = z.output<typeof CreateIssue>;
type Change = z.output<typeof IssuesChange>;

/** Whether a change sets a field or names a label to add or remove. */
function changesSomething({ labels, ...fields }: Change): boolean {
  return (
    Object.values(fields).some((value) => value !== undefined) || !!labels?.add?.length || !!labels?.remove?.length
  );
}

/** The labels' ids a change names (its references, each error named under `change.labels`), or a field error list. */
async function labelIdsOfChange(ctx: Context, orgId: string, labels: Change['labels'], errors: FieldError[]) {
  const ids = async (refs: readonly string[] | undefined, field: string) => {
    try {
      return await labelIdsOf(ctx.prisma, orgId, refs ?? [], field);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      errors.push(...error.fieldErrors);
      return [];
    }
  };
  return {
    add: await ids(labels?.add, 'change.labels.add'),
    remove: await ids(labels?.remove, 'change.labels.remove'),
  };
}

const byIndex = (errors: FieldError[]) => errors.sort((a, b) => (a.index ?? -1) - (b.index ?? -1));

export const bulkIssues = defineOperation({
  name: 'bulkIssues',
  description:
    `Changes up to ${BULK_MAX} issues the same way (status, priority, assignee, labels added and removed), or creates up to ${BULK_MAX}: ` +
    'all or nothing, in one transaction, with one history entry and one webhook event per issue changed. ' +
    'Every bad item is reported at once, with its index. Needs the role member or above.',
  kind: 'write',
  access: { role: 'member' },
  input: BulkIssues,
  items: ['ids', 'issues'],
  async run(ctx, input, query: IssueQuery) {
    await chargeItems(ctx, input.issues?.length ?? input.ids?.length ?? 0);
    const orgId = activeOrgId(ctx);
    if (input.issues) return createAll(ctx, orgId, input.issues, query);
    return updateAll(ctx, orgId, input.ids ?? [], input.change ?? {}, query);
  },
});

/** The issues of `ids` as `query` selects them, in the order of `ids`. */
async function readInOrder(ctx: Context, orgId: string, ids: string[], query: IssueQuery): Promise<CreatedIssue[]> {
  const select = query.select ? { ...query.select, id: true } : undefined;
  const rows = await ctx.prisma.issue.findMany({ ...(select ? { select } : {}), where: { orgId, id: { in: ids } } });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []) as CreatedIssue[];
}

/** Creates every issue of `items` in one transaction, each by the single create's statement. */
async function createAll(ctx: Context, orgId: string, items: NewIssue[], query: IssueQuery) {
  const projectIds = await projectIdsOf(
    ctx.prisma,
    orgId,
    items.map((item) => item.projectId),
  );
  const assignees = [...new Set(items.flatMap((item) => (item.assigneeId ? [item.assigneeId] : [])))];
  const members = new Set(
    assignees.length
      ? (
          await ctx.prisma.membership.findMany({
            where: { orgId, userId: { in: assignees } },
            select: { userId: true },
          })
        ).map((member) => member.userId)
      : [],
  );
  // Every item's labels with one statement.
  const labelsFound = await labelsNamed(
    ctx.prisma,
    orgId,
    items.flatMap((item) => item.labels ?? []),
  );
  const labelsOfItem = (found: LabelsNamed, index: number) => {
    const { labels, errors } = labelsIn(found, items[index]!.labels ?? [], `issues.${index}.labels`);
    return { labels, errors: errors.map((error) => ({ ...error, index })) };
  };
  const errors: FieldError[] = [];
  const labels = items.map((item, index) => {
    if (!projectIds[index])
      errors.push({ index, field: `issues.${index}.projectId`, message: 'names no project in this organization' });
    if (item.assigneeId && !members.has(item.assigneeId))
      errors.push({ index, field: `issues.${index}.assigneeId`, message: 'must be a member of the organization' });
    const carried = labelsOfItem(labelsFound, index);
    errors.push(...carried.errors);
    return carried.labels;
  });
  if (errors.length) throw new ValidationError(errors);
  const creates = items.map((item, index) =>
    issueCreate(ctx, orgId, { ...item, projectId: projectIds[index]! }, labels[index]!),
  );
  const { result: done } = await writeWithEvents(ctx, orgId, async (tx) => {
    const results = [];
    for (const [index, create] of creates.entries()) {
      const row = (await transactionRowsOf(tx, create.statement))[0];
      // The project, the assignee's membership or a label went away since they were checked.
      if (!row) {
        const gone = labelsOfItem(await labelsNamed(tx, orgId, items[index]!.labels ?? []), index).errors;
        const field = `issues.${index}.projectId`;
        throw new ValidationError(
          gone.length ? gone : [{ index, field, message: 'names no project in this organization' }],
        );
      }
      results.push(create.done(row));
    }
    return { result: results, changes: [] };
  });
  announceEvents(ctx, {
    events: done.flatMap((created) => created.events),
    queued: done.reduce((sum, created) => sum + created.queued, 0),
  });
  const issues = done.map((created) => created.issue);
  if (issues.every((issue) => selectionCovered(query.select, issue))) return issues;
  return readInOrder(
    ctx,
    orgId,
    issues.map((issue) => issue.id),
    query,
  );
}

/** Makes `change` to every issue `refs` names, in one transaction, the issues locked in id order. */
async function updateAll(ctx: Context, orgId: string, refs: string[], change: Change, query: IssueQuery) {
  const ids = await issueIdsOf(ctx.prisma, orgId, refs);
  const errors: FieldError[] = [];
  const first = new Map<string, number>();
  ids.forEach((id, index) => {
    const field = `ids.${index}`;
    if (!id) errors.push({ index, field, message: 'names no issue in this organization' });
    else if (first.has(id)) errors.push({ index, field, message: `names the same issue as ids.${first.get(id)}` });
    else first.set(id, index);
  });
  try {
    await checkAssignee(ctx.prisma, orgId, change.assigneeId);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    errors.push(...error.fieldErrors.map((e) => ({ ...e, field: `change.${e.field}` })));
  }
  const labels = await labelIdsOfChange(ctx, orgId, change.labels, errors);
  if (errors.length) throw new ValidationError(byIndex(errors));
  const unique = ids as string[];
  const { labels: _labels, ...fields } = change;
  await writeWithEvents(ctx, orgId, async (tx) => {
    const before = new Map((await lockIssues(tx, orgId, unique)).map((issue) => [issue.id, issue]));
    const gone = unique.flatMap((id, index) =>
      before.has(id) ? [] : [{ index, field: `ids.${index}`, message: 'names no issue in this organization' }],
    );
    if (gone.length) throw new ValidationError(gone);
    // The time is set here, not by Prisma, so the webhook payloads show the one written.
    const data = { ...definedFields(fields), updatedAt: new Date() };
    await tx.issue.updateMany({ where: { orgId, id: { in: unique } }, data });
    const labelled =
      labels.add.length || labels.remove.length ? await changeIssueLabels(tx, orgId, unique, labels) : null;
    const changes = unique.map((id) => {
      const issue = before.get(id)!;
      const after = { ...issue, ...data };
      if (labelled?.changed.has(id))
        Object.assign(after, { labels: labelled.labels.get(id)!, updatedAt: labelled.updatedAt });
      return issueChange('issue.updated', issue, after);
    });
    return { result: null, changes };
  });
  return readInOrder(ctx, orgId, unique, query);
}
