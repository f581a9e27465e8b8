import { z } from 'zod';
import { lockOrganization } from '../../db/row-locks.js';
import { writeWithEvents } from '../../events/record.js';
import { issueChange, lockIssue, type IssueSnapshot } from '../../events/subjects.js';
import { Prisma } from '../../generated/prisma/client.js';
import { createShape, updateShape } from '../core/column-input.js';
import { ConflictError, NotFoundError } from '../core/errors.js';
import { defineOperation } from '../core/operation.js';
import { nonEmpty, selectionCovered } from '../core/selection.js';
import { issueIdOf } from '../issues/lookup.js';
import { activeOrgId } from '../people/viewer.js';
import type { Context } from '../../context.js';
import { LABEL_TABLE, nameKeyOf } from './columns.js';
import { changeIssueLabels, type IssueLabelChange } from './issue-labels.js';
import { labelIdOf, labelIdsOf, labelRef, labelRefs, labelWhere } from './lookup.js';

/** The most labels an organization has: its whole list is one answer. */
export const LABELS_PER_ORG_MAX = 200;

/** The Prisma selection a surface wants for each label. */
export interface LabelQuery {
  select?: Prisma.LabelSelect;
}

/** An issue's changed labels: the issue as the selection wants it. */
export interface IssueLabelsQuery {
  select?: Prisma.IssueSelect;
}

/** Who manages labels: managers and above. Everyone of the organization reads them, and members attach them. */
const managers = { role: 'manager' } as const;

/** A write to one label: a clash of names on the unique (org, name_key) index is a ConflictError, a missing label a NotFoundError. */
async function labelWrite<T>(write: () => Promise<T>, name?: string): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError) {
      if (name && error.code === 'P2002')
        throw new ConflictError(`Another label of this organization is already named ${name} (whatever the case).`);
      if (error.code === 'P2025') throw new NotFoundError('label');
    }
    throw error;
  }
}

export const listLabels = defineOperation({
  name: 'listLabels',
  description: `The labels of the organization, by name; at most ${LABELS_PER_ORG_MAX}.`,
  kind: 'read',
  access: { role: 'viewer' },
  input: z.strictObject({}),
  run: (ctx, _input, query: LabelQuery) =>
    ctx.prisma.label.findMany({
      ...query,
      where: { orgId: activeOrgId(ctx) },
      orderBy: { nameKey: 'asc' },
      take: LABELS_PER_ORG_MAX,
    }),
});

export const getLabel = defineOperation({
  name: 'getLabel',
  description: "One label of the caller's organization, by id or name (any case); NOT_FOUND for any other.",
  kind: 'read',
  access: { role: 'viewer' },
  input: z.strictObject({ id: labelRef }),
  async run(ctx, { id }, query: LabelQuery) {
    const label = await ctx.prisma.label.findUnique({ ...query, where: labelWhere(activeOrgId(ctx), id) });
    if (!label) throw new NotFoundError('label');
    return label;
  },
});

export const createLabel = defineOperation({
  name: 'createLabel',
  description:
    'Creates a label of the organization (its name unique whatever the case). ' +
    `At most ${LABELS_PER_ORG_MAX} per organization (else CONFLICT). Needs the role manager or above.`,
  kind: 'write',
  access: managers,
  input: z.strictObject(createShape(LABEL_TABLE)),
  async run(ctx, input, query: LabelQuery) {
    const orgId = activeOrgId(ctx);
    return labelWrite(
      () =>
        ctx.prisma.$transaction(async (tx) => {
          // The organization's row lock serialises its creations: two cannot both see 199 and make a 201st.
          await lockOrganization(tx, orgId);
          if ((await tx.label.count({ where: { orgId } })) >= LABELS_PER_ORG_MAX) {
            throw new ConflictError(
              `This organization already has ${LABELS_PER_ORG_MAX} labels, the most it may have. Delete one first.`,
              'CONFLICT',
              { limit: LABELS_PER_ORG_MAX },
            );
          }
          return tx.label.create({ ...nonEmpty(query), data: { ...input, orgId, nameKey: nameKeyOf(input.name) } });
        }),
      input.name,
    );
  },
});

export const updateLabel = defineOperation({
  name: 'updateLabel',
  description: 'Renames a label or changes its color or description. Needs the role manager or above.',
  kind: 'write',
  access: managers,
  input: z.strictObject({ id: labelRef, ...updateShape(LABEL_TABLE) }),
  async run(ctx, { id, ...input }, query: LabelQuery) {
    const orgId = activeOrgId(ctx);
    const data = { ...input, ...(input.name === undefined ? {} : { nameKey: nameKeyOf(input.name) }) };
    return labelWrite(
      () => ctx.prisma.label.update({ ...nonEmpty(query), where: labelWhere(orgId, id), data }),
      input.name,
    );
  },
});

export const deleteLabel = defineOperation({
  name: 'deleteLabel',
  description: 'Deletes a label and takes it off every issue; returns its id. Needs the role manager or above.',
  kind: 'write',
  access: managers,
  input: z.strictObject({ id: labelRef }),
  async run(ctx, { id }) {
    const orgId = activeOrgId(ctx);
    const labelId = await labelIdOf(ctx.prisma, orgId, id);
    await labelWrite(() =>
      ctx.prisma.label.delete({ where: { orgId_id: { orgId, id: labelId } }, select: { id: true } }),
    );
    return labelId;
  },
});

const issueId = z.string().min(1, 'is required');

/** Changes one issue's labels and records the change (issue.updated, with `labels` in its changes). */
async function changeOneIssue(
  ctx: Context,
  idOrKey: string,
  refs: { add?: readonly string[]; remove?: readonly string[]; replace?: boolean },
  query: IssueLabelsQuery,
) {
  const orgId = activeOrgId(ctx);
  const id = await issueIdOf(ctx.prisma, orgId, idOrKey);
  const change: IssueLabelChange = {
    add: await labelIdsOf(ctx.prisma, orgId, refs.add ?? [], 'labels'),
    remove: await labelIdsOf(ctx.prisma, orgId, refs.remove ?? [], 'labels'),
    replace: refs.replace,
  };
  const { result } = await writeWithEvents(ctx, orgId, async (tx) => {
    const before = await lockIssue(tx, orgId, id);
    if (!before) throw new NotFoundError('issue');
    const { labels, changed, updatedAt } = await changeIssueLabels(tx, orgId, [id], change);
    const after: IssueSnapshot = changed.has(id) ? { ...before, labels: labels.get(id)!, updatedAt } : before;
    return { result: after, changes: [issueChange('issue.updated', before, after)] };
  });
  // The snapshot answers a selection of its columns and its labels; anything else is read.
  if (selectionCovered(query.select, result)) return result;
  return ctx.prisma.issue.findUniqueOrThrow({ ...nonEmpty(query), where: { id } });
}

const describeIssue = 'The issue: its id or key (WEB-12).';

export const addIssueLabels = defineOperation({
  name: 'addIssueLabels',
  description:
    'Adds labels (ids or names) to an issue; those it carries stay. ' +
    'An issue carries at most 20 labels (else CONFLICT). Needs the role member or above.',
  kind: 'write',
  access: { role: 'member' },
  input: z.strictObject({ id: issueId.meta({ description: describeIssue }), labels: labelRefs }),
  run: (ctx, { id, labels }, query: IssueLabelsQuery) => changeOneIssue(ctx, id, { add: labels }, query),
});

export const removeIssueLabels = defineOperation({
  name: 'removeIssueLabels',
  description: 'Takes labels (ids or names) off an issue. Needs the role member or above.',
  kind: 'write',
  access: { role: 'member' },
  input: z.strictObject({ id: issueId.meta({ description: describeIssue }), labels: labelRefs }),
  run: (ctx, { id, labels }, query: IssueLabelsQuery) => changeOneIssue(ctx, id, { remove: labels }, query),
});

export const setIssueLabels = defineOperation({
  name: 'setIssueLabels',
  description:
    "Replaces an issue's labels with these (ids or names; none: no labels), at most 20. Needs the role member or above.",
  kind: 'write',
  access: { role: 'member' },
  input: z.strictObject({ id: issueId.meta({ description: describeIssue }), labels: labelRefs }),
  run: (ctx, { id, labels }, query: IssueLabelsQuery) => changeOneIssue(ctx, id, { add: labels, replace: true }, query),
});
