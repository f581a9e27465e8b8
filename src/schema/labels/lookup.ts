import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { NotFoundError, ValidationError } from '../core/errors.js';
import { notNull } from '../core/messages.js';
import { storableString } from '../core/text.js';
import { isUuid } from '../core/uuid.js';
import { LABEL_NAME_MAX, nameKeyOf } from './columns.js';
import { ISSUE_LABELS_MAX } from './issue-labels.js';

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

/**
 * The ids of the labels `refs` name, in their order (duplicates once). Every ref that names no
 * label of the organization is a field error of `field` (`labels.2`), all reported at once.
 */
export async function labelIdsOf(db: Db, orgId: string, refs: readonly string[], field: string): Promise<string[]> {
  if (refs.length === 0) return [];
  const ids = refs.filter(isUuid).map((ref) => ref.toLowerCase());
  const keys = refs.filter((ref) => !isUuid(ref)).map(nameKeyOf);
  const found = await db.label.findMany({
    where: {
      orgId,
      OR: [...(ids.length ? [{ id: { in: ids } }] : []), ...(keys.length ? [{ nameKey: { in: keys } }] : [])],
    },
    select: { id: true, nameKey: true },
  });
  const byRef = new Map<string, string>();
  for (const label of found) {
    byRef.set(label.id, label.id);
    byRef.set(label.nameKey, label.id);
  }
  // Ids and name keys are both lowercase.
  const errors = refs.flatMap((ref, i) =>
    byRef.has(nameKeyOf(ref)) ? [] : [{ field: `${field}.${i}`, message: 'names no label of this organization' }],
  );
  if (errors.length) throw new ValidationError(errors);
  return [...new Set(refs.map((ref) => byRef.get(nameKeyOf(ref))!))];
}
