import { z } from 'zod';
import type { Db } from '../../db/client.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { type FieldError, NotFoundError, ValidationError } from '../core/errors.js';
import { notNull } from '../core/messages.js';
import { storableString } from '../core/text.js';
import { isUuid } from '../core/uuid.js';
import { LABEL_NAME_MAX, nameKeyOf } from './columns.js';
import { ISSUE_LABELS_MAX, type LabelSummary } from './issue-labels.js';

/**
 * A label named in an input: its id or its name (any case), wherever a label is named (a path,
 * a list of labels to attach, a GraphQL argument, a tool's argument). A name that reads as a
 * UUID is taken for an id.
 */
export const labelRef = storableString(notNull('must be a string'))
  .trim()
  .min(1, 'must not be empty')
  .max(LABEL_NAME_MAX, `must be a label id or a name of at most ${LABEL_NAME_MAX} characters`)
  .meta({ description: 'A label: its id or its name (any case).', example: 'bug' });

/** The labels an issue is given or relieved of, by id or name: at most as many as an issue carries. */
export const labelRefs = z
  .array(labelRef, notNull('must be a list of label ids or names'))
  .max(ISSUE_LABELS_MAX, `must name at most ${ISSUE_LABELS_MAX} labels`);

/** The where of one label of the organization, by id or name; the unique (org, name_key) or (org, id). */
export function labelWhere(orgId: string, idOrName: string) {
  return isUuid(idOrName)
    ? { orgId_id: { orgId, id: idOrName } }
    : { orgId_nameKey: { orgId, nameKey: nameKeyOf(idOrName) } };
}

/** The id of one label of the organization (NotFoundError when it names none there). */
export async function labelIdOf(db: Db, orgId: string, idOrName: string): Promise<string> {
  const label = await db.label.findUnique({ where: labelWhere(orgId, idOrName), select: { id: true } });
  if (!label) throw new NotFoundError('label');
  return label.id;
}

/** The organization's labels some refs name, each under its id and its name key (both lowercase), in name order. */
export type LabelsNamed = Map<string, LabelSummary>;

/** The organization's labels that any of `refs` names (in a transaction of the caller's or not): one statement for every list of refs a write holds. */
export async function labelsNamed(
  db: Prisma.TransactionClient,
  orgId: string,
  refs: readonly string[],
): Promise<LabelsNamed> {
  const found: LabelsNamed = new Map();
  if (refs.length === 0) return found;
  const ids = refs.filter(isUuid).map((ref) => ref.toLowerCase());
  const keys = refs.filter((ref) => !isUuid(ref)).map(nameKeyOf);
  const labels = await db.label.findMany({
    where: {
      orgId,
      OR: [...(ids.length ? [{ id: { in: ids } }] : []), ...(keys.length ? [{ nameKey: { in: keys } }] : [])],
    },
    select: { id: true, nameKey: true, name: true, color: true },
    // The order an issue shows its labels in (ISSUE_LABELS_SELECT): the database's, whose collation decides.
    orderBy: { nameKey: 'asc' },
  });
  for (const { nameKey, ...label } of labels) {
    found.set(label.id, label);
    found.set(nameKey, label);
  }
  return found;
}

/**
 * The labels `refs` name among those found (duplicates once), in name order as an issue shows
 * them, or the field errors of those that name none: `labels.2` when `field` is `labels`.
 */
export function labelsIn(
  found: LabelsNamed,
  refs: readonly string[],
  field: string,
): { labels: LabelSummary[]; errors: FieldError[] } {
  const errors = refs.flatMap((ref, i) =>
    found.has(nameKeyOf(ref)) ? [] : [{ field: `${field}.${i}`, message: 'names no label of this organization' }],
  );
  const named = new Set(refs.flatMap((ref) => found.get(nameKeyOf(ref)) ?? []));
  return { labels: [...new Set(found.values())].filter((label) => named.has(label)), errors };
}

/**
 * The ids of the labels `refs` name (duplicates once). Every ref that names no label of the
 * organization is a field error of `field` (`labels.2`), all reported at once.
 */
export async function labelIdsOf(db: Db, orgId: string, refs: readonly string[], field: string): Promise<string[]> {
  const { labels, errors } = labelsIn(await labelsNamed(db, orgId, refs), refs, field);
  if (errors.length) throw new ValidationError(errors);
  return labels.map((label) => label.id);
}
