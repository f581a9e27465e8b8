import { z } from 'zod';
import type { Project } from '../../generated/prisma/client.js';
import { jsonExampleOf, jsonFieldsOf, type JsonShape, placedAfter } from '../core/column-json.js';
import { INT4_MAX, representation, type Field } from '../core/representation.js';
import { PROJECT_TABLE } from './columns.js';

/**
 * The project as REST answers it, webhooks send it (`data`) and pages show it: the fields of the
 * column declaration that have a `json` entry (src/schema/projects/columns.ts), and the number of
 * its issues.
 */

export type ProjectRow = Project & { _count: { issues: number } };

/** The JSON of a project, by the declaration: what a page receives from the REST list. */
export type ProjectJsonShape = JsonShape<typeof PROJECT_TABLE> & { issue_count: number };

const ISSUE_COUNT: Field<ProjectRow> = {
  schema: z.int().min(0).max(INT4_MAX).meta({ description: 'How many issues the project has now.' }),
  select: { _count: { select: { issues: true } } },
  value: (row) => row._count.issues,
};

const columns = jsonFieldsOf<ProjectRow>(PROJECT_TABLE);

// The issue count follows the key.
export const ProjectJson = representation<ProjectRow>(
  'Project',
  'A project of the organization.',
  placedAfter(columns, 'key', { issue_count: ISSUE_COUNT }),
);

/** The fields of a project that name it, where a list of projects goes with another resource (an organization). */
const SUMMARY: readonly (keyof ProjectJsonShape)[] = ['id', 'name', 'key'];

export const ProjectSummaryJson = representation<ProjectRow>(
  'ProjectSummary',
  'A project, briefly.',
  Object.fromEntries(SUMMARY.map((name) => [name, columns[name]!])),
);

/** The example project of the API reference, from the declared examples. */
export const PROJECT_EXAMPLE = placedAfter(jsonExampleOf(PROJECT_TABLE), 'key', {
  issue_count: 12,
}) as ProjectJsonShape;
