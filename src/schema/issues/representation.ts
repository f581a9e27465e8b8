import type { Issue } from '../../generated/prisma/client.js';
import { jsonExampleOf, jsonFieldsOf, type JsonShape, placedAfter } from '../core/column-json.js';
import { ISSUE_TABLE } from './columns.js';
import { PROJECT_KEY_MAX } from '../projects/fields.js';
import { representation, text, type Field } from '../core/representation.js';
import { LABELS_FIELD, LABELS_EXAMPLE } from '../labels/representation.js';
import type { IssueLabels } from '../labels/issue-labels.js';

/**
 * The issue as REST answers it, webhooks send it (`data`) and pages show it: the fields of the
 * column declaration that have a `json` entry (src/schema/issues/columns.ts), and the issue's key.
 */

/** `WEB-12`: a project key, a dash and an issue number (at most PostgreSQL's int4, 10 digits). */
export const ISSUE_KEY_MAX = PROJECT_KEY_MAX + 1 + 10;

/** An issue row with its project's key and its labels, which the representation reads. */
export type IssueSource = Issue & { project: { key: string }; labels: IssueLabels };

/** The JSON of an issue, by the declaration: what a page receives from the REST list. */
export type IssueJsonShape = { key: string; labels: { id: string; name: string; color: string }[] } & JsonShape<
  typeof ISSUE_TABLE
>;

const KEY_FIELD: Field<IssueSource> = {
  schema: text(ISSUE_KEY_MAX, 'The project key and the number: `WEB-12`. Changes when the project key does.'),
  select: { number: true, project: { select: { key: true } } },
  value: (row) => `${row.project.key}-${row.number}`,
};

// The key follows the id; the labels follow the assignee.
export const IssueJson = representation<IssueSource>(
  'Issue',
  'An issue. Times are ISO 8601 in UTC.',
  placedAfter(placedAfter(jsonFieldsOf<IssueSource>(ISSUE_TABLE), 'id', { key: KEY_FIELD }), 'assignee_id', {
    labels: LABELS_FIELD,
  }),
);

/** The example issue of the API reference, from the declared examples. */
export const ISSUE_EXAMPLE = placedAfter(
  placedAfter(jsonExampleOf(ISSUE_TABLE), 'id', { key: 'WEB-12' }),
  'assignee_id',
  {
    labels: LABELS_EXAMPLE,
  },
) as IssueJsonShape;
