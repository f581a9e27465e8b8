import { builder } from '../core/builder.js';
import { columnFields, inputFields } from '../core/column-graphql.js';
import { boundedList, connectionPage, firstArg, LIST_BOUNDS } from '../core/list-bounds.js';
import { ConflictError, NotFoundError, RateLimitedError, ValidationError } from '../core/errors.js';
import { NodeRef } from '../core/node.js';
import { IssueConnection, IssueRef } from '../issues/issue.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../issues/operations.js';
import { issueSelection, projectIssues } from './issues-connection.js';
import { PROJECT_COLUMNS, PROJECT_FIELD_NAMES, PROJECT_TABLE } from './columns.js';
import * as ops from './operations.js';
import { outcome } from '../core/outcome.js';

builder.prismaObject('Project', {
  description: 'A project of the organization: it holds issues, numbered in it (KEY-1, KEY-2, ...).',
  interfaces: [NodeRef],
  select: PROJECT_COLUMNS,
  fields: (t) => ({
    ...columnFields(t, PROJECT_TABLE, PROJECT_FIELD_NAMES),
    // Not the column of that name (the last number handed out): how many issues there are now.
    issueCount: t.relationCount('issues', { description: 'How many issues the project has now.' }),
    organization: t.relation('org', { description: 'The organization it belongs to.' }),
    // Batched over every project of the response (src/schema/projects/issues-connection.ts, over the
    // operations of src/schema/projects/issues-operations.ts): one statement per request for the
    // pages, whatever the number of projects.
    issues: t.connection(
      {
        type: IssueRef,
        complexity: connectionPage(PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX),
        description: 'The issues of the project, newest first.',
        resolve: (project, args, ctx, info) => projectIssues(ctx, project.id, args, issueSelection(ctx, info, args)),
      },
      IssueConnection,
    ),
  }),
});

builder.queryField('projects', (t) =>
  t.prismaField({
    type: ['Project'],
    description: ops.listProjects.description,
    args: { first: t.arg.int(firstArg(LIST_BOUNDS.projects)) },
    complexity: boundedList(LIST_BOUNDS.projects),
    resolve: (query, _root, args, ctx) => ops.listProjects.call(ctx, args, query),
  }),
);

builder.queryField('project', (t) =>
  t.prismaField({
    type: 'Project',
    description: ops.getProject.description,
    args: { id: t.arg.id({ required: true, description: 'The id or the key (WEB, any case).' }) },
    resolve: (query, _root, args, ctx) => ops.getProject.call(ctx, args, query),
  }),
);

const CreateProjectInput = builder.inputType('CreateProjectInput', {
  description: 'A new project: its name and key.',
  fields: (t) => inputFields(t, PROJECT_TABLE, 'create'),
});

const UpdateProjectInput = builder.inputType('UpdateProjectInput', {
  description: 'Fields left out stay as they are. A new key renames every issue key of the project.',
  fields: (t) => inputFields(t, PROJECT_TABLE, 'update'),
});

builder.mutationField('createProject', (t) =>
  t.prismaField({
    type: 'Project',
    description: ops.createProject.description,
    errors: outcome('createProject', 'The created project.', [ValidationError, ConflictError, RateLimitedError]),
    args: { input: t.arg({ type: CreateProjectInput, required: true, description: 'Its name and key.' }) },
    resolve: (query, _root, args, ctx) => ops.createProject.call(ctx, args.input, query),
  }),
);

builder.mutationField('updateProject', (t) =>
  t.prismaField({
    type: 'Project',
    description: ops.updateProject.description,
    errors: outcome('updateProject', 'The project as changed.', [
      ValidationError,
      NotFoundError,
      ConflictError,
      RateLimitedError,
    ]),
    args: {
      id: t.arg.id({ required: true, description: 'The id or the key (WEB, any case).' }),
      input: t.arg({ type: UpdateProjectInput, required: true, description: 'The fields to change.' }),
    },
    resolve: (query, _root, args, ctx) => ops.updateProject.call(ctx, { ...args.input, id: args.id }, query),
  }),
);

builder.mutationField('deleteProject', (t) =>
  t.field({
    type: 'ID',
    description: ops.deleteProject.description,
    errors: outcome('deleteProject', 'The id of the deleted project.', [
      NotFoundError,
      ConflictError,
      RateLimitedError,
    ]),
    args: {
      id: t.arg.id({ required: true, description: 'The id or the key (WEB, any case).' }),
      force: t.arg.boolean({ required: false, description: 'Also delete the issues of the project.' }),
    },
    resolve: (_root, args, ctx) => ops.deleteProject.call(ctx, args, undefined),
  }),
);
