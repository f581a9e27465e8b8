import { z } from 'zod';
import type { Project } from '../../generated/prisma/client.js';
import { PROJECT_KEY_MAX, PROJECT_KEY_PATTERN, PROJECT_NAME_MAX } from './fields.js';
import { column, INT4_MAX, representation, text, timeColumn, uuid } from '../core/representation.js';

/** The project as REST answers it, webhooks send it (`data`) and pages show it. */

export type ProjectRow = Project & { _count: { issues: number } };
const projectSummary = {
  id: column<ProjectRow, 'id'>('id', uuid('The project id.')),
  name: column<ProjectRow, 'name'>('name', text(PROJECT_NAME_MAX, `1 to ${PROJECT_NAME_MAX} characters.`)),
  key: column<ProjectRow, 'key'>(
    'key',
    text(PROJECT_KEY_MAX, 'Uppercase, unique in the organization; issue keys read `KEY-12`.').regex(
      PROJECT_KEY_PATTERN,
    ),
  ),
};

export const ProjectJson = representation<ProjectRow>('Project', 'A project of the organization.', {
  ...projectSummary,
  issue_count: {
    schema: z.int().min(0).max(INT4_MAX).meta({ description: 'How many issues the project has now.' }),
    select: { _count: { select: { issues: true } } },
    value: (row) => row._count.issues,
  },
  created_at: timeColumn('createdAt', 'Creation time (ISO 8601, UTC).'),
  updated_at: timeColumn('updatedAt', 'Last change (ISO 8601, UTC).'),
});

export const ProjectSummaryJson = representation<ProjectRow>('ProjectSummary', 'A project, briefly.', projectSummary);
