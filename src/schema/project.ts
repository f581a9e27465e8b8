import { builder } from './builder.js';
import { boundedList, connectionPage, firstArg, LIST_BOUNDS } from './list-bounds.js';
import { ConflictError, NotFoundError, RateLimitedError, ValidationError } from './errors.js';
import { NodeRef } from './node.js';
import { IssueConnection } from './issue.js';
import { PROJECT_NAME_MAX } from './project-fields.js';
import * as ops from './project-operations.js';

export const ProjectRef = builder.prismaObject('Project', {
  interfaces: [NodeRef],
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    key: t.exposeString('key', { description: 'Short uppercase key, unique in the organization; issue keys read KEY-123.' }),
    issueCount: t.relationCount('issues', { description: 'How many issues the project has now.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    organization: t.relation('org'),
    issues: t.relatedConnection('issues', {
      cursor: 'id',
      defaultSize: 50,
      maxSize: 100,
      complexity: connectionPage(50, 100),
      query: { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] },
      totalCount: true,
      description: 'The issues of the project, newest first.',
    }, IssueConnection),
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
  fields: (t) => ({
    name: t.string({ description: `1 to ${PROJECT_NAME_MAX} characters.` }),
    key: t.string({ description: '2 to 10 letters or digits, starting with a letter; stored in uppercase. Unique in the organization.' }),
  }),
});

const UpdateProjectInput = builder.inputType('UpdateProjectInput', {
  description: 'Fields left out stay as they are. A new key renames every issue key of the project.',
  fields: (t) => ({
    name: t.string({ required: false }),
    key: t.string({ required: false }),
  }),
});

builder.mutationField('createProject', (t) =>
  t.prismaField({
    type: 'Project',
    description: ops.createProject.description,
    errors: { types: [ValidationError, ConflictError, RateLimitedError] },
    args: { input: t.arg({ type: CreateProjectInput, required: true }) },
    resolve: (query, _root, args, ctx) => ops.createProject.call(ctx, args.input, query),
  }),
);

builder.mutationField('updateProject', (t) =>
  t.prismaField({
    type: 'Project',
    description: ops.updateProject.description,
    errors: { types: [ValidationError, NotFoundError, ConflictError, RateLimitedError] },
    args: { id: t.arg.id({ required: true, description: 'The id or the key (WEB, any case).' }), input: t.arg({ type: UpdateProjectInput, required: true }) },
    resolve: (query, _root, args, ctx) => ops.updateProject.call(ctx, { ...args.input, id: args.id }, query),
  }),
);

builder.mutationField('deleteProject', (t) =>
  t.field({
    type: 'ID',
    description: ops.deleteProject.description,
    errors: { types: [NotFoundError, ConflictError, RateLimitedError] },
    args: {
      id: t.arg.id({ required: true, description: 'The id or the key (WEB, any case).' }),
      force: t.arg.boolean({ required: false, description: 'Also delete the issues of the project.' }),
    },
    resolve: (_root, args, ctx) => ops.deleteProject.call(ctx, args, undefined),
  }),
);
