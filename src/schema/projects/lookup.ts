import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { NotFoundError } from '../core/errors.js';
import { notNull } from '../core/messages.js';
import { PROJECT_KEY_PATTERN } from './fields.js';
import { isUuid } from '../core/uuid.js';

/**
 * A project named in an input: its id or its key (`WEB`, any case), wherever a project is named
 * (a path, a body's `project_id`, a filter, a GraphQL argument, a tool's argument), so what
 * `GET /projects/WEB` accepts, `POST /issues` accepts too. The longest form is an id.
 */
export const projectRef = z
  .string(notNull('must be a string'))
  .refine(
    (value) => isUuid(value) || PROJECT_KEY_PATTERN.test(value.toUpperCase()),
    'must be a project id (UUID) or key (such as WEB)',
  )
  .meta({ maxLength: 36, description: 'The project: its id or its key (`WEB`, any case).', example: 'WEB' });

/**
 * The unique where of a project of the caller's organization, named by its id or its key (WEB,
 * any case), as issues are by id or key. Text that is neither names no project.
 */
export function projectWhere(orgId: string, idOrKey: string) {
  if (isUuid(idOrKey)) return { orgId_id: { orgId, id: idOrKey } };
  const key = idOrKey.toUpperCase();
  if (PROJECT_KEY_PATTERN.test(key)) return { orgId_key: { orgId, key } };
  throw new NotFoundError('project');
}

/**
 * The id of that project. A key is looked up in the organization (NotFoundError when it names
 * none there); an id is returned as it is, and the caller's own `orgId` condition decides
 * whether it is ours (no extra query on the usual path).
 */
export async function projectIdOf(db: Db, orgId: string, idOrKey: string): Promise<string> {
  if (isUuid(idOrKey)) return idOrKey;
  const project = await db.project.findUnique({ where: projectWhere(orgId, idOrKey), select: { id: true } });
  if (!project) throw new NotFoundError('project');
  return project.id;
}

/** The same for an optional reference: absent stays absent. */
export async function optionalProjectIdOf<T extends string | null | undefined>(
  db: Db,
  orgId: string,
  idOrKey: T,
): Promise<string | T> {
  return idOrKey ? projectIdOf(db, orgId, idOrKey) : idOrKey;
}

/**
 * The ids of the projects `refs` name (ids or keys), in their order, in one statement: null where
 * a reference names no project of the organization.
 */
export async function projectIdsOf(db: Db, orgId: string, refs: readonly string[]): Promise<(string | null)[]> {
  const ids = refs.filter(isUuid).map((ref) => ref.toLowerCase());
  const keys = refs.filter((ref) => !isUuid(ref)).map((ref) => ref.toUpperCase());
  const projects = await db.project.findMany({
    where: { orgId, OR: [{ id: { in: ids } }, { key: { in: keys } }] },
    select: { id: true, key: true },
  });
  const byRef = new Map(
    projects.flatMap((project) => [[project.id, project.id] as const, [project.key, project.id] as const]),
  );
  return refs.map((ref) => byRef.get(isUuid(ref) ? ref.toLowerCase() : ref.toUpperCase()) ?? null);
}
