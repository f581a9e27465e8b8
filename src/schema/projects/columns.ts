import { z } from 'zod';
import type { DB } from '../../generated/kysely/types.js';
import type { Project } from '../../generated/prisma/client.js';
import { type ColumnDeclaration, fieldsOf, loadedColumnsOf, writtenFieldsOf } from '../core/column-declaration.js';
import { EX } from '../core/example-values.js';
import { notNull } from '../core/messages.js';
import { text, time, uuid } from '../core/representation.js';
import { storableString } from '../core/text.js';
import { PROJECT_KEY_MAX, PROJECT_KEY_PATTERN, PROJECT_NAME_MAX } from './fields.js';

/**
 * The columns of the projects table, each declared once (src/schema/core/column-declaration.ts).
 * Every list of project columns comes from here: the Project object's base selection
 * (`PROJECT_COLUMNS`) and plain fields and the input types (src/schema/projects/project.ts), the
 * REST JSON and its OpenAPI schema, which webhooks send as `data` and pages show
 * (src/schema/projects/representation.ts), the inputs of createProject and updateProject
 * (src/schema/projects/operations.ts), the select list of the statement that locks a project and
 * the fields its history records (src/events/subjects.ts). The declaration is checked against the
 * Prisma model and the generated table type: a column of the model without an entry here, or an
 * entry naming no SQL column, does not compile.
 */

/** A project column's declaration: a column of the projects table. */
type ProjectColumnDeclaration = ColumnDeclaration<keyof DB['projects'] & string, 'uuid' | 'int' | 'text' | 'time'>;

// In the order the representations list them (the JSON's `issue_count` follows `key`). Only the
// id comes with every row: a project is most often only named (an issue's project, a node), and
// its other columns are selected when a query asks for them.
export const PROJECT_TABLE = {
  id: {
    column: 'id',
    kind: 'uuid',
    nullable: false,
    loaded: true,
    json: { name: 'id', schema: uuid('The project id.'), example: EX.projectId },
    graphql: { description: 'The project id.' },
  },
  orgId: { column: 'org_id', kind: 'uuid', nullable: false, loaded: false },
  name: {
    column: 'name',
    kind: 'text',
    nullable: false,
    loaded: false,
    json: { name: 'name', schema: text(PROJECT_NAME_MAX, `1 to ${PROJECT_NAME_MAX} characters.`), example: 'Website' },
    graphql: { description: 'Its display name.' },
    write: {
      rule: storableString(notNull('must be a string'))
        .trim()
        .min(1, 'must not be empty')
        .max(PROJECT_NAME_MAX, `must be at most ${PROJECT_NAME_MAX} characters`),
      create: { required: true, description: `1 to ${PROJECT_NAME_MAX} characters.` },
      update: { description: `A new name, 1 to ${PROJECT_NAME_MAX} characters.` },
    },
  },
  key: {
    column: 'key',
    kind: 'text',
    nullable: false,
    loaded: false,
    json: {
      name: 'key',
      schema: text(PROJECT_KEY_MAX, 'Uppercase, unique in the organization; issue keys read `KEY-12`.').regex(
        PROJECT_KEY_PATTERN,
      ),
      example: 'WEB',
    },
    graphql: { description: 'Short uppercase key, unique in the organization; issue keys read KEY-123.' },
    write: {
      // Not trimmed: a key is an identifier, and " WEB" is a mistake to report, not to mend.
      rule: z
        .string(notNull('must be a string'))
        .toUpperCase()
        .regex(PROJECT_KEY_PATTERN, 'must be 2 to 10 letters or digits, starting with a letter')
        // The pattern is the check; the bound it implies is written out for OpenAPI.
        .meta({ maxLength: PROJECT_KEY_MAX }),
      create: {
        required: true,
        description:
          '2 to 10 letters or digits, starting with a letter; stored in uppercase. Unique in the organization.',
      },
      update: {
        description: 'A new key: 2 to 10 letters or digits, starting with a letter; unique in the organization.',
      },
    },
  },
  // The last issue number handed out (src/schema/issues/create.ts), never shown: the JSON's
  // `issue_count` and GraphQL's `issueCount` are how many issues the project has now.
  issueCount: { column: 'issue_count', kind: 'int', nullable: false, loaded: false },
  createdAt: {
    column: 'created_at',
    kind: 'time',
    nullable: false,
    loaded: false,
    json: { name: 'created_at', schema: time('Creation time (ISO 8601, UTC).'), example: EX.created },
    graphql: { description: 'When it was created.' },
  },
  updatedAt: {
    column: 'updated_at',
    kind: 'time',
    nullable: false,
    loaded: false,
    json: { name: 'updated_at', schema: time('Last change (ISO 8601, UTC).'), example: EX.updated },
    graphql: { description: 'When it or its issue numbering last changed.' },
  },
} as const satisfies { [Field in keyof Project]: ProjectColumnDeclaration };

/** The project fields in declaration order. */
export const PROJECT_FIELD_NAMES = fieldsOf(PROJECT_TABLE);

/** The columns every Project row is loaded with, as a Prisma selection (the Project object's base selection). */
export const PROJECT_COLUMNS = loadedColumnsOf(PROJECT_TABLE);

/** The fields updateProject changes (and a project's history records), in declaration order. */
export const PROJECT_UPDATE_FIELDS = writtenFieldsOf(PROJECT_TABLE, 'update');
