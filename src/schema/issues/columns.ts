import { z } from 'zod';
import type { DB } from '../../generated/kysely/types.js';
import type { Issue } from '../../generated/prisma/client.js';
import {
  type ColumnDeclaration,
  fieldsOf,
  type LoadedFieldOf,
  loadedColumnsOf,
  loadedFieldsOf,
  writtenFieldsOf,
} from '../core/column-declaration.js';
import { EX } from '../core/example-values.js';
import { notNull } from '../core/messages.js';
import { INT4_MAX, text, time, uuid } from '../core/representation.js';
import { storableString } from '../core/text.js';
import { uuid as uuidRule } from '../core/uuid.js';
import { projectRef } from '../projects/lookup.js';
import { enumValueName } from './enums.js';
import {
  DEFAULT_PRIORITY,
  DEFAULT_STATUS,
  DESCRIPTION_MAX,
  ISSUE_PRIORITIES,
  ISSUE_STATUSES,
  TITLE_MAX,
} from './workflow.js';

/**
 * The columns of the issues table, each declared once. Every list of issue columns comes from
 * here: the Prisma selection every issue row is loaded with (`ISSUE_COLUMNS`), the select lists
 * of the hand-written statements (src/schema/issues/list-sql.ts, src/schema/projects/issues-sql.ts, src/schema/issues/create.ts,
 * events/subjects.ts), the REST JSON and its OpenAPI schema, which webhooks send as `data` and
 * pages show (src/schema/issues/representation.ts), the plain fields of the GraphQL Issue object
 * (src/schema/issues/issue.ts), the create and update inputs (src/schema/issues/input.ts and
 * GraphQL's input types), the fields history records (src/events/subjects.ts) and the issue pages'
 * fields and forms (src/web/issue-fields.ts). The declaration is checked against the Prisma model and the generated table type:
 * a column of the model without an entry here, or an entry naming no SQL column, does not compile.
 */

/** A column's type, from which its GraphQL type (src/schema/issues/issue.ts) and its JSON value follow. */
export type ColumnKind = 'uuid' | 'uuids' | 'int' | 'text' | 'time' | 'status' | 'priority';

/** How the issue pages show a field and, when it is written, edit it (src/web/issue-fields.ts). */
interface IssuePageEntry {
  page?: {
    label: string;
    /**
     * text: one line; markdown: long text, shown rendered; number: an integer; select: the values of
     * its kind (status, priority); person: a member of the organization, or nobody when nullable;
     * project: one of the organization's projects.
     */
    control: 'text' | 'markdown' | 'number' | 'select' | 'person' | 'project';
    /** The issue page's heading or its body section; absent: a property in the sidebar. */
    place?: 'heading' | 'body';
  };
}

/**
 * An issue column's declaration: a column of the issues table, and (`page`, which needs a `json`
 * entry, what pages read) how the issue pages show it; absent: pages do not list it (the id and
 * key lead to the issue, the times are the page's byline).
 */
export type IssueColumnDeclaration = ColumnDeclaration<keyof DB['issues'] & string, ColumnKind> & IssuePageEntry;

const IssueStatusSchema = z.enum(ISSUE_STATUSES).meta({
  id: 'IssueStatus',
  description: 'Case-sensitive. In workflow order (the order of `sort=status`).',
  examples: [DEFAULT_STATUS],
});
const IssuePrioritySchema = z.enum(ISSUE_PRIORITIES).meta({
  id: 'IssuePriority',
  description: 'Case-sensitive. Most urgent first (the order of `sort=priority`).',
  examples: [DEFAULT_PRIORITY],
});

const oneOf = (values: readonly string[]) => `must be one of: ${values.join(', ')}`;

// In the order the representations list them (the JSON's `key` and GraphQL's `key` follow `id`).
export const ISSUE_TABLE = {
  id: {
    column: 'id',
    kind: 'uuid',
    nullable: false,
    loaded: true,
    json: { name: 'id', schema: uuid('The issue id.'), example: EX.issueId },
    graphql: { description: 'The issue id (a UUID).' },
  },
  orgId: { column: 'org_id', kind: 'uuid', nullable: false, loaded: false },
  projectId: {
    column: 'project_id',
    kind: 'uuid',
    nullable: false,
    loaded: true,
    json: { name: 'project_id', schema: uuid('The project it belongs to.'), example: EX.projectId },
    graphql: { description: 'The project the issue belongs to.' },
    write: {
      rule: projectRef,
      create: {
        required: true,
        description: 'The project to create it in (of your organization): its id or its key (`WEB`, any case).',
      },
    },
    page: { label: 'Project', control: 'project' },
  },
  number: {
    column: 'number',
    kind: 'int',
    nullable: false,
    loaded: true,
    json: {
      name: 'number',
      schema: z
        .int()
        .min(1)
        .max(INT4_MAX)
        .meta({ description: 'Sequence number in the project: no gaps, no duplicates, never reused.' }),
      example: 12,
    },
    graphql: { description: 'Sequence number within the project (the 123 of KEY-123).' },
  },
  title: {
    column: 'title',
    kind: 'text',
    nullable: false,
    loaded: true,
    json: {
      name: 'title',
      schema: text(TITLE_MAX, `1 to ${TITLE_MAX} characters.`),
      example: 'Fix the login redirect loop',
    },
    graphql: { description: 'A one-line summary.', textCost: TITLE_MAX },
    write: {
      rule: storableString(notNull('must be a string'))
        .trim()
        .min(1, 'must not be empty')
        .max(TITLE_MAX, `must be at most ${TITLE_MAX} characters`),
      create: { required: true, description: `A one-line summary, 1 to ${TITLE_MAX} characters.` },
      update: { description: `A new summary, 1 to ${TITLE_MAX} characters.` },
    },
    page: { label: 'Title', control: 'text', place: 'heading' },
  },
  status: {
    column: 'status',
    kind: 'status',
    nullable: false,
    loaded: true,
    json: { name: 'status', schema: IssueStatusSchema, example: 'In Progress' },
    graphql: { description: 'Where the issue stands in the workflow.' },
    write: {
      rule: z.enum(ISSUE_STATUSES, notNull(oneOf(ISSUE_STATUSES))),
      create: { default: DEFAULT_STATUS, description: `Default ${enumValueName(DEFAULT_STATUS)}.` },
      update: { description: 'A new status.' },
    },
    page: { label: 'Status', control: 'select' },
  },
  priority: {
    column: 'priority',
    kind: 'priority',
    nullable: false,
    loaded: true,
    json: { name: 'priority', schema: IssuePrioritySchema, example: 'high' },
    graphql: { description: 'How urgent the issue is.' },
    write: {
      rule: z.enum(ISSUE_PRIORITIES, notNull(oneOf(ISSUE_PRIORITIES))),
      create: { default: DEFAULT_PRIORITY, description: `Default ${enumValueName(DEFAULT_PRIORITY)}.` },
      update: { description: 'A new priority.' },
    },
    page: { label: 'Priority', control: 'select' },
  },
  description: {
    column: 'description',
    kind: 'text',
    nullable: true,
    loaded: false,
    json: {
      name: 'description',
      schema: z
        .string()
        .max(DESCRIPTION_MAX)
        .nullable()
        .meta({ description: `Free text, at most ${DESCRIPTION_MAX.toLocaleString('en')} characters; null: none.` }),
      example: 'Signing in from /settings sends the browser back and forth.',
    },
    graphql: { description: 'The details, as written (plain text); null when none.', textCost: DESCRIPTION_MAX },
    write: {
      rule: storableString().max(DESCRIPTION_MAX, `must be at most ${DESCRIPTION_MAX} characters`),
      create: { description: `The details, up to ${DESCRIPTION_MAX.toLocaleString('en')} characters.` },
      update: { description: 'New details; null clears them.' },
    },
    page: { label: 'Description', control: 'markdown', place: 'body' },
  },
  assigneeId: {
    column: 'assignee_id',
    kind: 'uuid',
    nullable: true,
    loaded: true,
    json: {
      name: 'assignee_id',
      schema: z.uuid().nullable().meta({ description: 'A user id (see `GET /people/search`); null: unassigned.' }),
      example: EX.userId,
    },
    graphql: { description: 'The user working on it; null when unassigned.' },
    write: {
      rule: uuidRule,
      create: { description: 'A member of the organization.' },
      update: { description: 'A member of the organization.' },
    },
    page: { label: 'Assignee', control: 'person' },
  },
  createdAt: {
    column: 'created_at',
    kind: 'time',
    nullable: false,
    loaded: true,
    json: { name: 'created_at', schema: time('Creation time.'), example: EX.created },
    graphql: { description: 'When it was created.' },
  },
  updatedAt: {
    column: 'updated_at',
    kind: 'time',
    nullable: false,
    loaded: true,
    json: { name: 'updated_at', schema: time('Last change.'), example: EX.updated },
    graphql: { description: 'When it last changed.' },
  },
  // Not a field of the issue's representations, which show `labels`: a copy of issue_labels that
  // triggers keep, which a page of issues reads (issueLabelIdsText, src/schema/labels/issue-labels.ts).
  labelIds: { column: 'label_ids', kind: 'uuids', nullable: false, loaded: false },
} as const satisfies { [Field in keyof Issue]: IssueColumnDeclaration };

type IssueTable = typeof ISSUE_TABLE;
/** An issue field (Prisma's name, camelCase). */
export type IssueField = keyof IssueTable;
/** The fields every issue row is loaded with. */
export type LoadedField = LoadedFieldOf<IssueTable>;

/** The issue fields in declaration order. */
export const ISSUE_FIELD_NAMES: readonly IssueField[] = fieldsOf(ISSUE_TABLE);
/** Those loaded with every row, in declaration order. */
export const LOADED_FIELDS = loadedFieldsOf(ISSUE_TABLE);

/** The columns every Issue row is loaded with, as a Prisma selection (the Issue object's base selection): the short ones a list shows; not the description. */
export const ISSUE_COLUMNS = loadedColumnsOf(ISSUE_TABLE);

/** An issue row with those columns. */
export type IssueRow = Pick<Issue, LoadedField>;

/** The fields createIssue writes, in declaration order. */
export const CREATE_FIELDS = writtenFieldsOf(ISSUE_TABLE, 'create');
/** The fields updateIssue changes (and an issue's history records), in declaration order. */
export const UPDATE_FIELDS = writtenFieldsOf(ISSUE_TABLE, 'update');
