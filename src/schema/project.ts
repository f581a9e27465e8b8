import { z } from 'zod';
import { Prisma } from '../generated/prisma/client.js';
import { ROUTE_POLICIES } from '../limits/policy.js';
import { builder } from './builder.js';
import { NodeRef } from './node.js';
import { limitOperation } from './rate-limit.js';
import { ConflictError, NotFoundError, RateLimitedError, ValidationError } from './errors.js';
import { notNull } from './messages.js';
import { nonEmpty } from './selection.js';
import { isUuid } from './uuid.js';
import { validate } from './validate.js';
import { activeOrgId } from './viewer.js';

export const PROJECT_NAME_MAX = 100;

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
      query: { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] },
      description: 'Newest first.',
    }),
  }),
});

/** The unique where of a project of the caller's organization; an id that is not a UUID names none. */
function projectWhere(orgId: string, id: string) {
  if (!isUuid(id)) throw new NotFoundError('project');
  return { orgId_id: { orgId, id } };
}

builder.queryField('projects', (t) =>
  t.prismaField({
    type: ['Project'],
    description: 'Projects of the organization the caller acts in, by key.',
    authScopes: { role: 'viewer' },
    resolve: (query, _root, _args, ctx) =>
      ctx.prisma.project.findMany({ ...query, where: { orgId: activeOrgId(ctx) }, orderBy: [{ key: 'asc' }] }),
  }),
);

builder.queryField('project', (t) =>
  t.prismaField({
    type: 'Project',
    description: "One project of the caller's organization (NOT_FOUND for any other).",
    authScopes: { role: 'viewer' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const project = await ctx.prisma.project.findUnique({ ...query, where: projectWhere(activeOrgId(ctx), args.id) });
      if (!project) throw new NotFoundError('project');
      return project;
    },
  }),
);

const name = z
  .string(notNull('must be a string'))
  .trim()
  .min(1, 'must not be empty')
  .max(PROJECT_NAME_MAX, `must be at most ${PROJECT_NAME_MAX} characters`);
const key = z
  .string(notNull('must be a string'))
  .trim()
  .toUpperCase()
  .regex(/^[A-Z][A-Z0-9]{1,9}$/, 'must be 2 to 10 letters or digits, starting with a letter');

const CreateProject = z.object({ name, key });
const UpdateProject = z.object({ name: name.optional(), key: key.optional() });

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

function isPrismaError(error: unknown, code: string): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === code;
}

/**
 * Runs a write to one project: a project that is not there is a NotFoundError and, when the
 * write sets `key`, a clash on the unique (org, key) index is a ConflictError. The index, not a
 * prior lookup, decides, so concurrent writes of one key leave exactly one winner.
 */
async function projectWrite<T>(write: () => Promise<T>, key?: string): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (key && isPrismaError(error, 'P2002')) {
      throw new ConflictError(`Another project in this organization already has the key ${key}.`);
    }
    if (isPrismaError(error, 'P2025')) throw new NotFoundError('project');
    throw error;
  }
}

builder.mutationField('createProject', (t) =>
  t.prismaField({
    type: 'Project',
    description: 'Creates a project. Needs the role manager or above.',
    authScopes: { role: 'manager' },
    errors: { types: [ValidationError, ConflictError, RateLimitedError] },
    args: { input: t.arg({ type: CreateProjectInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const orgId = activeOrgId(ctx);
      await limitOperation(ctx, ROUTE_POLICIES.projectWrite);
      const input = validate(CreateProject, args.input);
      return projectWrite(() => ctx.prisma.project.create({ ...nonEmpty(query), data: { orgId, ...input } }), input.key);
    },
  }),
);

builder.mutationField('updateProject', (t) =>
  t.prismaField({
    type: 'Project',
    description: 'Renames a project or changes its key. Needs the role manager or above.',
    authScopes: { role: 'manager' },
    errors: { types: [ValidationError, NotFoundError, ConflictError, RateLimitedError] },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateProjectInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const orgId = activeOrgId(ctx);
      await limitOperation(ctx, ROUTE_POLICIES.projectWrite);
      const input = validate(UpdateProject, args.input);
      const where = projectWhere(orgId, args.id);
      return projectWrite(() => ctx.prisma.project.update({ ...nonEmpty(query), where, data: input }), input.key);
    },
  }),
);

builder.mutationField('deleteProject', (t) =>
  t.field({
    type: 'ID',
    description:
      'Deletes a project; returns its id. A project that still has issues is a CONFLICT unless force is true, ' +
      'which deletes the issues with it. Needs the role manager or above.',
    authScopes: { role: 'manager' },
    errors: { types: [NotFoundError, ConflictError, RateLimitedError] },
    args: {
      id: t.arg.id({ required: true }),
      force: t.arg.boolean({ required: false, description: 'Also delete the issues of the project.' }),
    },
    resolve: async (_root, args, ctx) => {
      const orgId = activeOrgId(ctx);
      await limitOperation(ctx, ROUTE_POLICIES.projectWrite);
      const where = projectWhere(orgId, args.id);
      await projectWrite(() =>
        ctx.prisma.$transaction(async (tx) => {
          // createIssue updates the project row before inserting, so holding that row's lock
          // means no issue can be added between this count and the delete.
          await tx.project.update({ where, data: { updatedAt: new Date() }, select: { id: true } });
          const issues = await tx.issue.count({ where: { orgId, projectId: args.id } });
          if (issues > 0 && !args.force) {
            throw new ConflictError(
              `The project has ${issues} issue${issues === 1 ? '' : 's'}. Delete them first, or delete with force to remove them with the project.`,
            );
          }
          // The issues go with it (ON DELETE CASCADE), in this transaction.
          await tx.project.delete({ where, select: { id: true } });
        }),
      );
      return args.id;
    },
  }),
);
