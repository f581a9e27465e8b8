import { z } from 'zod';
import { writeWithEvents } from '../../events/record.js';
import { definedFields, lockProject, lockProjectIssues, issueChange, projectChange } from '../../events/subjects.js';
import { Prisma } from '../../generated/prisma/client.js';
import { ROUTE_POLICIES } from '../../limits/policy.js';
import { ConflictError, NotFoundError } from '../core/errors.js';
import { defineOperation } from '../core/operation.js';
import { nonEmpty, selectionCovered } from '../core/selection.js';
import { projectWhere } from './lookup.js';
import { activeOrgId } from '../people/viewer.js';
import { firstInput, LIST_BOUNDS } from '../core/list-bounds.js';
import { createShape, updateShape } from '../core/column-input.js';
import { PROJECT_TABLE } from './columns.js';

/** The Prisma selection a surface wants for each project. */
export interface ProjectQuery {
  select?: Prisma.ProjectSelect;
}

const projectId = z.string().min(1, 'is required');

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

const projectWrites = { policy: ROUTE_POLICIES.projectWrite };

export const listProjects = defineOperation({
  name: 'listProjects',
  description: `Projects of the organization the caller acts in, by key; at most ${LIST_BOUNDS.projects}.`,
  kind: 'read',
  access: { role: 'viewer' },
  input: z.strictObject({ first: firstInput(LIST_BOUNDS.projects) }),
  run: (ctx, input, query: ProjectQuery) =>
    ctx.prisma.project.findMany({
      ...query,
      where: { orgId: activeOrgId(ctx) },
      orderBy: [{ key: 'asc' }],
      take: input.first ?? LIST_BOUNDS.projects,
    }),
});

export const getProject = defineOperation({
  name: 'getProject',
  description: "One project of the caller's organization (NOT_FOUND for any other).",
  kind: 'read',
  access: { role: 'viewer' },
  input: z.strictObject({ id: projectId }),
  async run(ctx, { id }, query: ProjectQuery) {
    const project = await ctx.prisma.project.findUnique({ ...query, where: projectWhere(activeOrgId(ctx), id) });
    if (!project) throw new NotFoundError('project');
    return project;
  },
});

export const createProject = defineOperation({
  name: 'createProject',
  description: 'Creates a project. Needs the role manager or above.',
  kind: 'write',
  access: { role: 'manager' },
  rateLimit: projectWrites,
  input: z.strictObject(createShape(PROJECT_TABLE)),
  async run(ctx, input, query: ProjectQuery) {
    const orgId = activeOrgId(ctx);
    const { result: project } = await projectWrite(
      () =>
        writeWithEvents(ctx, orgId, async (tx) => {
          const project = { ...(await tx.project.create({ data: { orgId, ...input } })), _count: { issues: 0 } };
          return { result: project, changes: [projectChange('project.created', null, project)] };
        }),
      input.key,
    );
    if (selectionCovered(query.select, project)) return project;
    return ctx.prisma.project.findUniqueOrThrow({ ...nonEmpty(query), where: { id: project.id } });
  },
});

export const updateProject = defineOperation({
  name: 'updateProject',
  description:
    'Renames a project or changes its key (which renames every issue key of the project). Needs the role manager or above.',
  kind: 'write',
  access: { role: 'manager' },
  rateLimit: projectWrites,
  input: z.strictObject({ id: projectId, ...updateShape(PROJECT_TABLE) }),
  async run(ctx, { id, ...input }, query: ProjectQuery) {
    const orgId = activeOrgId(ctx);
    const where = projectWhere(orgId, id);
    const { result } = await projectWrite(
      () =>
        writeWithEvents(ctx, orgId, async (tx) => {
          const before = await lockProject(tx, where);
          if (!before) throw new NotFoundError('project');
          const data = { ...definedFields(input), updatedAt: new Date() };
          const project = await tx.project.update({ ...nonEmpty(query), where, data });
          return { result: project, changes: [projectChange('project.updated', before, { ...before, ...data })] };
        }),
      input.key,
    );
    return result;
  },
});

export const deleteProject = defineOperation({
  name: 'deleteProject',
  description:
    'Deletes a project; returns its id. A project that still has issues is a CONFLICT unless force is true, ' +
    'which deletes the issues with it. Needs the role manager or above.',
  kind: 'write',
  access: { role: 'manager' },
  rateLimit: projectWrites,
  input: z.strictObject({ id: projectId, force: z.boolean({ error: 'must be true or false' }).nullish() }),
  async run(ctx, { id, force }) {
    const orgId = activeOrgId(ctx);
    const where = projectWhere(orgId, id);
    const { result } = await projectWrite(() =>
      writeWithEvents(ctx, orgId, async (tx) => {
        // The project's row lock also holds off createIssue (which updates that row first), so
        // no issue can be added between this count and the delete.
        const before = await lockProject(tx, where);
        if (!before) throw new NotFoundError('project');
        const count = before._count.issues;
        if (count > 0 && !force) {
          throw new ConflictError(
            `The project has ${count} issue${count === 1 ? '' : 's'}. Delete them first, or delete with force to remove them with the project.`,
          );
        }
        const issues = count > 0 ? await lockProjectIssues(tx, orgId, before.id) : [];
        // The issues go with it (ON DELETE CASCADE), in this transaction; each records its delete.
        await tx.project.delete({ where, select: { id: true } });
        return {
          result: before.id,
          changes: [
            ...issues.map((issue) => issueChange('issue.deleted', issue, null)),
            projectChange('project.deleted', before, null),
          ],
        };
      }),
    );
    return result;
  },
});
