import { z } from 'zod';
import { Prisma } from '../generated/prisma/client.js';
import { ROUTE_POLICIES } from '../limits/policy.js';
import { ConflictError, NotFoundError } from './errors.js';
import { notNull } from './messages.js';
import { defineOperation } from './operation.js';
import { nonEmpty } from './selection.js';
import { isUuid } from './uuid.js';
import { activeOrgId } from './viewer.js';
import { firstInput, LIST_BOUNDS } from './list-bounds.js';
import { storableString } from './text.js';

export const PROJECT_NAME_MAX = 100;
export const PROJECT_KEY_PATTERN = /^[A-Z][A-Z0-9]{1,9}$/;

/** The Prisma selection a surface wants for each project. */
export interface ProjectQuery {
  select?: Prisma.ProjectSelect;
}

const name = storableString(notNull('must be a string'))
  .trim()
  .min(1, 'must not be empty')
  .max(PROJECT_NAME_MAX, `must be at most ${PROJECT_NAME_MAX} characters`);
// Not trimmed: a key is an identifier, and " WEB" is a mistake to report, not to mend.
const key = z
  .string(notNull('must be a string'))
  .toUpperCase()
  .regex(PROJECT_KEY_PATTERN, 'must be 2 to 10 letters or digits, starting with a letter');

const projectId = z.string().min(1, 'is required');

/**
 * The unique where of a project of the caller's organization, named by its id or its key (WEB,
 * any case), as issues are by id or key. Text that is neither names no project.
 */
function projectWhere(orgId: string, idOrKey: string) {
  if (isUuid(idOrKey)) return { orgId_id: { orgId, id: idOrKey } };
  const key = idOrKey.toUpperCase();
  if (PROJECT_KEY_PATTERN.test(key)) return { orgId_key: { orgId, key } };
  throw new NotFoundError('project');
}

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
  input: z.strictObject({ name, key }),
  run: (ctx, input, query: ProjectQuery) =>
    projectWrite(() => ctx.prisma.project.create({ ...nonEmpty(query), data: { orgId: activeOrgId(ctx), ...input } }), input.key),
});

export const updateProject = defineOperation({
  name: 'updateProject',
  description: 'Renames a project or changes its key (which renames every issue key of the project). Needs the role manager or above.',
  kind: 'write',
  access: { role: 'manager' },
  rateLimit: projectWrites,
  input: z.strictObject({ id: projectId, name: name.optional(), key: key.optional() }),
  run: (ctx, { id, ...changes }, query: ProjectQuery) =>
    projectWrite(
      () => ctx.prisma.project.update({ ...nonEmpty(query), where: projectWhere(activeOrgId(ctx), id), data: changes }),
      changes.key,
    ),
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
    return projectWrite(() =>
      ctx.prisma.$transaction(async (tx) => {
        // createIssue updates the project row before inserting, so holding that row's lock
        // means no issue can be added between this count and the delete.
        const { id: projectId } = await tx.project.update({ where, data: { updatedAt: new Date() }, select: { id: true } });
        const issues = await tx.issue.count({ where: { orgId, projectId } });
        if (issues > 0 && !force) {
          throw new ConflictError(
            `The project has ${issues} issue${issues === 1 ? '' : 's'}. Delete them first, or delete with force to remove them with the project.`,
          );
        }
        // The issues go with it (ON DELETE CASCADE), in this transaction.
        await tx.project.delete({ where, select: { id: true } });
        return projectId;
      }),
    );
  },
});
