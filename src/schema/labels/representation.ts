import { z } from 'zod';
import type { Label } from '../../generated/prisma/client.js';
import { jsonExampleOf, jsonFieldsOf, type JsonShape } from '../core/column-json.js';
import { EX } from '../core/example-values.js';
import { representation, type Field } from '../core/representation.js';
import { LABEL_TABLE } from './columns.js';
import { ISSUE_LABELS_MAX, ISSUE_LABELS_SELECT, type IssueLabels, labelSummaries } from './issue-labels.js';

/**
 * The label as REST answers it and pages show it (the fields of the column declaration that have
 * a `json` entry, src/schema/labels/columns.ts), and what an issue's JSON shows of its labels.
 */

export type LabelJsonShape = JsonShape<typeof LABEL_TABLE>;

const columns = jsonFieldsOf<Label>(LABEL_TABLE);

export const LabelJson = representation<Label>(
  'Label',
  'A label of the organization, which its issues carry.',
  columns,
);

/** The example label of the API reference, from the declared examples. */
export const LABEL_EXAMPLE = jsonExampleOf(LABEL_TABLE) as LabelJsonShape;

/** The fields of a label an issue shows with it. */
const SUMMARY = ['id', 'name', 'color'] as const;

/** An issue's labels: its id, name and color, by name. */
export const LabelSummaryJson = representation<IssueLabels[number]['label']>(
  'LabelSummary',
  'A label an issue carries.',
  Object.fromEntries(SUMMARY.map((name) => [name, columns[name]!])) as Record<string, Field<never>>,
);

/** The `labels` field of the issue JSON (src/schema/issues/representation.ts). */
export const LABELS_FIELD: Field<{ labels: IssueLabels }> = {
  schema: z
    .array(LabelSummaryJson.schema)
    .max(ISSUE_LABELS_MAX)
    .meta({ description: `The labels it carries, by name (at most ${ISSUE_LABELS_MAX}).` }),
  select: { labels: ISSUE_LABELS_SELECT },
  value: (row) => labelSummaries(row.labels),
};

export const LABELS_EXAMPLE = [{ id: EX.labelId, name: LABEL_EXAMPLE.name, color: LABEL_EXAMPLE.color }];
