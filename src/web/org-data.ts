import { ProjectJson, type ProjectJsonShape } from '../schema/projects/representation.js';
import { listProjects } from '../schema/projects/operations.js';
import { listMembers, type Member } from '../schema/organizations/team.js';
import { ISSUE_PRIORITIES, ISSUE_STATUSES } from '../schema/issues/workflow.js';
import type { OrgPage } from './org-page.js';

/** What several pages of an organization show: its projects, its people, the workflow's values. */

export type ProjectView = ProjectJsonShape;

export async function projectsOf(p: OrgPage): Promise<ProjectView[]> {
  const rows = await listProjects.call(p.ctx, {}, { select: ProjectJson.select });
  return rows.map((row) => ProjectJson.present(row as never) as ProjectView);
}

export const membersOf = (p: OrgPage): Promise<Member[]> => listMembers.call(p.ctx, {}, undefined);

/** The names of the organization's owners: whom a member asks for what their role does not allow. */
export const ownerNames = (members: Pick<Member, 'name' | 'role'>[]) =>
  members.filter((m) => m.role === 'owner').map((m) => m.name);

/** "ask an owner: Olivia Owner" (or owners), the next step a page names where the caller may not act. */
export async function askAnOwner(p: OrgPage): Promise<string> {
  const names = ownerNames(await membersOf(p));
  return names.length ? `ask ${names.length > 1 ? 'an owner' : 'the owner'}: ${names.join(', ')}` : 'ask an owner';
}

export const WORKFLOW = { statuses: ISSUE_STATUSES, priorities: ISSUE_PRIORITIES };

/** Names by user id, for showing assignees. */
export const namesOf = (members: Member[]) => Object.fromEntries(members.map((m) => [m.userId, m.name]));
