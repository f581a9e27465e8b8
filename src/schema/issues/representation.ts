import type { z } from 'zod';
import type { Issue } from '../../generated/prisma/client.js';
import { ISSUE_FIELD_NAMES, ISSUE_TABLE, type IssueField } from './columns.js';
import { PROJECT_KEY_MAX } from '../projects/fields.js';
import { representation, text, type Field } from '../core/representation.js';

/**
 * The issue as REST answers it, webhooks send it (`data`) and pages show it: the fields of the
 * column declaration that have a `json` entry (src/schema/issues/columns.ts), and the issue's key.
 */

/** `WEB-12`: a project key, a dash and an issue number (at most PostgreSQL's int4, 10 digits). */
export const ISSUE_KEY_MAX = PROJECT_KEY_MAX + 1 + 10;

/** An issue row with its project's key, which the representation reads. */
export type IssueSource = Issue & { project: { key: string } };

type IssueTable = typeof ISSUE_TABLE;
type Json<F extends IssueField> = IssueTable[F] extends { json: infer J extends { name: string; schema: z.ZodType } }
  ? J
  : never;

/** The JSON of an issue, by the declaration: what a page receives from the REST list. */
export type IssueJsonShape = { key: string } & {
  -readonly [F in IssueField as Json<F>['name']]: z.output<Json<F>['schema']>;
};

const KEY_FIELD: Field<IssueSource> = {
  schema: text(ISSUE_KEY_MAX, 'The project key and the number: `WEB-12`. Changes when the project key does.'),
  select: { number: true, project: { select: { key: true } } },
  value: (row) => `${row.project.key}-${row.number}`,
};

/** The shown columns in declaration order, with their JSON field: the value as it is, a time in ISO 8601 UTC with milliseconds. */
const shown = ISSUE_FIELD_NAMES.flatMap((field) => {
  const declared: { kind: string; json?: { name: string; schema: z.ZodType; example: unknown } } = ISSUE_TABLE[field];
  if (!declared.json) return [];
  const { name, schema, example } = declared.json;
  const value =
    declared.kind === 'time'
      ? (row: IssueSource) => (row[field] as Date | null)?.toISOString() ?? null
      : (row: IssueSource) => row[field];
  const json: Field<IssueSource> = { schema, select: { [field]: true }, value };
  return [{ name, json, example }];
});

// The key follows the id.
const [id, ...rest] = shown;

export const IssueJson = representation<IssueSource>('Issue', 'An issue. Times are ISO 8601 in UTC.', {
  [id!.name]: id!.json,
  key: KEY_FIELD,
  ...Object.fromEntries(rest.map(({ name, json }) => [name, json])),
});

/** The example issue of the API reference, from the declared examples. */
export const ISSUE_EXAMPLE = {
  [id!.name]: id!.example,
  key: 'WEB-12',
  ...Object.fromEntries(rest.map(({ name, example }) => [name, example])),
} as IssueJsonShape;
