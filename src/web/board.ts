import type { Context } from '../context.js';
import { roleAtLeast } from '../auth/principal.js';
import { ISSUE_PAGE, newIssueForm } from './issue-fields.js';
import { issueListData } from './issues.js';
import { labelsOf } from './labels.js';
import { membersOf, namesOf, projectsOf, WORKFLOW } from './org-data.js';
import { orgPage, orgView, type PageRequest } from './org-page.js';
import { Response } from '../http/fetch-api.js';

/**
 * GET /orgs/:slug/board: a column per status, the most urgent issues first. Each card has one
 * "Move to…" menu: without JavaScript a form of buttons posting to the issue's status route
 * (src/web/issues.ts, moveIssue); with it, app.js sends the same change to the REST API, as the
 * drag and drop does. Either way the API's operation checks the role and the status.
 */

/** Up to two letters for a name ("Ada Lovelace" -> "AL", "ada" -> "A"), for the card's avatar. */
function initialsOf(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const letters = words.length > 1 ? [words[0]!, words[words.length - 1]!] : words;
  return letters.map((w) => [...w][0]!.toUpperCase()).join('');
}

export async function showBoard(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const url = new URL(request.url);
  const projectId = url.searchParams.get('project_id') ?? '';
  const label = url.searchParams.get('label') ?? '';
  const [projects, members, labels] = await Promise.all([projectsOf(p), membersOf(p), labelsOf(p)]);
  const columns = await Promise.all(
    WORKFLOW.statuses.map(async (status) => {
      const query = new URL(`${p.base}/board`, url);
      query.searchParams.set('status', status);
      query.searchParams.set('sort', 'priority');
      if (projectId) query.searchParams.set('project_id', projectId);
      if (label) query.searchParams.set('label', label);
      const data = await issueListData(p, query);
      return { status, issues: data.issues, more: data.next !== null, errors: data.queryErrors };
    }),
  );
  const names = namesOf(members);
  return orgView(p, 'board', {
    title: `Board · ${p.org.name}`,
    section: 'Board',
    // The board takes the window's width: six columns side by side.
    wide: true,
    columns,
    projects,
    projectId,
    labels,
    label,
    names,
    initials: Object.fromEntries(Object.entries(names).map(([id, name]) => [id, initialsOf(name)])),
    members,
    workflow: WORKFLOW,
    issueFields: ISSUE_PAGE,
    form: newIssueForm(projectId),
    errors: {},
    formError: null,
    here: `${url.pathname}${url.search}`,
    canEdit: roleAtLeast(p.org.role, 'member'),
    canDelete: roleAtLeast(p.org.role, 'manager'),
  });
}
