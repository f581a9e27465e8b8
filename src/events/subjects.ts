import type { Issue, Project } from '../generated/prisma/client.js';
import { IssueJson } from '../schema/issues/representation.js';
import { ProjectJson } from '../schema/projects/representation.js';
import { builder, transactionRowsOf } from '../db/sql-builder.js';
import { declaredSelection } from '../schema/core/column-select.js';
import { ISSUE_FIELD_NAMES, UPDATE_FIELDS } from '../schema/issues/columns.js';
import { PROJECT_FIELD_NAMES, PROJECT_TABLE, PROJECT_UPDATE_FIELDS } from '../schema/projects/columns.js';
import { issueSelection } from '../schema/issues/select.js';
import { type IssueLabels, issueLabelsJson } from '../schema/labels/issue-labels.js';
import { fieldChanges, type Change, type Tx } from './record.js';

/** The fields whose changes an issue's history records (as the GraphQL API names them): those an update changes. */
export const ISSUE_FIELDS = UPDATE_FIELDS;
/** Likewise for a project. */
const PROJECT_FIELDS = PROJECT_UPDATE_FIELDS;

export type IssueSnapshot = Issue & { project: { key: string }; labels: IssueLabels };
export type ProjectSnapshot = Project & { _count: { issues: number } };

/** The issue as webhooks show it: exactly its REST representation. */
export const issueData = (issue: IssueSnapshot) => IssueJson.present(issue);
const projectData = (project: ProjectSnapshot) => ProjectJson.present(project);

/** An issue with every declared column, its project's key and its labels, for a write that locks it (uuids as text). */
function issueWithProjectKey() {
  return builder
    .selectFrom('issues as i')
    .innerJoin('projects as p', 'p.id', 'i.project_id')
    .select([
      ...issueSelection('i', ISSUE_FIELD_NAMES, { uuidAsText: true }),
      'p.key as projectKey',
      issueLabelsJson('i').as('labels'),
    ]);
}

function toIssue({ projectKey, ...row }: Issue & { projectKey: string; labels: IssueLabels }): IssueSnapshot {
  return { ...row, project: { key: projectKey } };
}

/** An issue's labels as its history records them: their names, in order, comma-separated; null: none. */
const labelNames = (issue: IssueSnapshot | null): string | null =>
  issue?.labels.length ? issue.labels.map((entry) => entry.label.name).join(', ') : null;

/**
 * The issue as it is before a write, locked until the transaction ends (FOR UPDATE): concurrent
 * writes to one issue take turns, so the old values are the ones the write replaces and the
 * history's order is the commit order. Null when the organization has no such issue.
 */
export async function lockIssue(tx: Tx, orgId: string, id: string): Promise<IssueSnapshot | null> {
  const rows = await transactionRowsOf(
    tx,
    issueWithProjectKey().where('i.id', '=', id).where('i.org_id', '=', orgId).forUpdate('i'),
  );
  return rows[0] ? toIssue(rows[0]) : null;
}

/**
 * The organization's issues of `ids`, locked as lockIssue locks one, in id order: two bulk
 * writes over overlapping issues take their locks in the same order, so neither waits on the
 * other in a cycle. An id the organization has no issue of is absent from the answer.
 */
export async function lockIssues(tx: Tx, orgId: string, ids: readonly string[]): Promise<IssueSnapshot[]> {
  if (ids.length === 0) return [];
  const statement = issueWithProjectKey()
    .where('i.id', 'in', ids)
    .where('i.org_id', '=', orgId)
    .orderBy('i.id')
    .forUpdate('i');
  return (await transactionRowsOf(tx, statement)).map(toIssue);
}

/** Every issue of a project, locked, for a delete that takes them with it. */
export async function lockProjectIssues(tx: Tx, orgId: string, projectId: string): Promise<IssueSnapshot[]> {
  const statement = issueWithProjectKey()
    .where('i.project_id', '=', projectId)
    .where('i.org_id', '=', orgId)
    .orderBy('i.number')
    .forUpdate('i');
  return (await transactionRowsOf(tx, statement)).map(toIssue);
}

/** A project of an organization, by id or by key (the unique where of src/schema/projects/operations.ts). */
export type ProjectRef = { orgId_id: { orgId: string; id: string } } | { orgId_key: { orgId: string; key: string } };

/** A project's declared columns as a select list (src/schema/core/column-select.ts). */
const projectSelection = declaredSelection<Project>(PROJECT_TABLE);

/** The project before a write, locked as lockIssue locks an issue; with its issue count for the representation. */
export async function lockProject(tx: Tx, ref: ProjectRef): Promise<ProjectSnapshot | null> {
  const orgId = 'orgId_id' in ref ? ref.orgId_id.orgId : ref.orgId_key.orgId;
  const statement = builder
    .selectFrom('projects as p')
    .select(projectSelection('p', PROJECT_FIELD_NAMES, { uuidAsText: true }))
    .$if('orgId_id' in ref, (q) => q.where('p.id', '=', (ref as { orgId_id: { id: string } }).orgId_id.id))
    .$if('orgId_key' in ref, (q) => q.where('p.key', '=', (ref as { orgId_key: { key: string } }).orgId_key.key))
    .where('p.org_id', '=', orgId)
    .forUpdate();
  const project: Project | undefined = (await transactionRowsOf(tx, statement))[0];
  if (!project) return null;
  // Counted by a statement of its own, after the lock: a create that held the lock has committed
  // by now, and only a new statement's snapshot sees its issue (READ COMMITTED).
  const issues = await tx.issue.count({ where: { orgId, projectId: project.id } });
  return { ...project, _count: { issues } };
}

/** The change of an issue between two states (null: before it existed, after it was deleted). */
export function issueChange(
  type: 'issue.created' | 'issue.updated' | 'issue.deleted',
  before: IssueSnapshot | null,
  after: IssueSnapshot | null,
): Change {
  const issue = (after ?? before)!;
  return {
    type,
    subjectId: issue.id,
    projectId: issue.projectId,
    changes: [
      ...fieldChanges(ISSUE_FIELDS, before, after),
      ...fieldChanges(['labels'], { labels: labelNames(before) }, { labels: labelNames(after) }),
    ],
    data: issueData(issue),
  };
}

/** Likewise for a project. */
export function projectChange(
  type: 'project.created' | 'project.updated' | 'project.deleted',
  before: ProjectSnapshot | null,
  after: ProjectSnapshot | null,
): Change {
  const project = (after ?? before)!;
  return {
    type,
    subjectId: project.id,
    projectId: project.id,
    changes: fieldChanges(PROJECT_FIELDS, before, after),
    data: projectData(project),
  };
}

/** The values a write sets: its input without the fields left out. */
export function definedFields<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as Partial<T>;
}
