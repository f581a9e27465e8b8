import type { Db } from '../../db/client.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { NotFoundError } from '../core/errors.js';
import { isUuid } from '../core/uuid.js';

const ISSUE_KEY = /^([A-Za-z][A-Za-z0-9]{1,9})-([1-9]\d{0,8})$/;

/** The issue `WEB-12` names: project key (any case) and number. */
export function parseIssueKey(text: string): { projectKey: string; number: number } | null {
  const match = ISSUE_KEY.exec(text);
  return match ? { projectKey: match[1]!.toUpperCase(), number: Number(match[2]) } : null;
}

/**
 * The issue of the caller's organization named by its id or its key (WEB-12). Text that is
 * neither names no issue: NotFoundError, as for an issue that does not exist.
 */
export function issueWhere(orgId: string, idOrKey: string): Prisma.IssueWhereInput {
  if (isUuid(idOrKey)) return { orgId, id: idOrKey };
  const key = parseIssueKey(idOrKey);
  if (key) return { orgId, number: key.number, project: { key: key.projectKey } };
  throw new NotFoundError('issue');
}

/**
 * The id of that issue, for writes, which need a unique where. A key is looked up (NotFoundError
 * when it names none here); an id is returned as it is, and the write's own `orgId` condition
 * decides whether it is ours.
 */
export async function issueIdOf(db: Db, orgId: string, idOrKey: string): Promise<string> {
  if (isUuid(idOrKey)) return idOrKey;
  const issue = await db.issue.findFirst({ where: issueWhere(orgId, idOrKey), select: { id: true } });
  if (!issue) throw new NotFoundError('issue');
  return issue.id;
}

/**
 * The ids of the issues `refs` name (ids or keys), in their order, in at most two statements: null
 * where a reference names no issue of the organization. An id is checked here too, since a bulk
 * write names every missing item at once.
 */
export async function issueIdsOf(db: Db, orgId: string, refs: readonly string[]): Promise<(string | null)[]> {
  const ids = refs.filter(isUuid).map((ref) => ref.toLowerCase());
  const keys = refs.filter((ref) => !isUuid(ref)).flatMap((ref) => parseIssueKey(ref) ?? []);
  const [byId, byKey] = await Promise.all([
    ids.length ? db.issue.findMany({ where: { orgId, id: { in: ids } }, select: { id: true } }) : [],
    keys.length
      ? db.issue.findMany({
          where: { orgId, OR: keys.map((key) => ({ number: key.number, project: { key: key.projectKey } })) },
          select: { id: true, number: true, project: { select: { key: true } } },
        })
      : [],
  ]);
  const found = new Set(byId.map((issue) => issue.id));
  const keyed = new Map(byKey.map((issue) => [`${issue.project.key}-${issue.number}`, issue.id]));
  return refs.map((ref) => {
    if (isUuid(ref)) return found.has(ref.toLowerCase()) ? ref.toLowerCase() : null;
    const key = parseIssueKey(ref);
    return key ? (keyed.get(`${key.projectKey}-${key.number}`) ?? null) : null;
  });
}
