import { roleAtLeast } from '../auth/principal.js';
import type { Context } from '../context.js';
import { IssueJson, type IssueJsonShape } from '../schema/issues/representation.js';
import { ISSUE_FILTER_PARAMETERS } from '../schema/issues/filter.js';
import { labelsOf } from './labels.js';
import { createIssue, deleteIssue, getIssue, updateIssue } from '../schema/issues/operations.js';
import { bulkIssues } from '../schema/issues/bulk.js';
import { flashCookie } from './flash.js';
import { createInput, editForm, ISSUE_PAGE, newIssueForm, sentFields } from './issue-fields.js';
import { issueActivity } from './issue-activity.js';
import { issueComments } from './issue-comments.js';
import { renderMarkdown } from './markdown.js';
import { formFailure, readForm, readFormWithLists, type FormFailure } from './forms.js';
import { safeNextPath } from './next-path.js';
import { membersOf, namesOf, projectsOf, WORKFLOW } from './org-data.js';
import { notFoundPage, orgPage, orgView, type OrgPage, type PageRequest } from './org-page.js';
import { redirect } from '../views/render.js';
import { nextCursor } from '../http/links.js';
import { runGetRoute } from './rest-route.js';
import { Response } from '../http/fetch-api.js';

/**
 * Issues: the list (the REST list's filters, sorts and cursors, in the URL), the board by status,
 * one issue's page, and the forms that create, change, move and delete issues. Every read and
 * write is the API's operation, run with the session's principal; every write redirects.
 */

/** An issue as the pages show it: its JSON representation (src/schema/issues/representation.ts). */
export type IssueView = IssueJsonShape;

const perm = (p: OrgPage) => ({
  canEdit: roleAtLeast(p.org.role, 'member'),
  canDelete: roleAtLeast(p.org.role, 'manager'),
});

/** The list page's data: one page of issues for the URL's query, or the query's mistakes. */
export async function issueListData(p: OrgPage, pageUrl: URL) {
  // The filter form sends every field; an empty one means "any", which the API says by leaving it out.
  const url = new URL(pageUrl);
  for (const [name, value] of [...url.searchParams]) if (value === '') url.searchParams.delete(name, value);
  try {
    const { body, headers } = await runGetRoute('listIssues', p.ctx, url);
    const cursor = nextCursor(headers.link);
    const next = new URL(url);
    if (cursor) next.searchParams.set('cursor', cursor);
    return {
      issues: body as IssueView[],
      next: cursor ? `${next.pathname}${next.search}` : null,
      queryErrors: {} as Record<string, string>,
    };
  } catch (error) {
    const failure = formFailure(error);
    return {
      issues: [] as IssueView[],
      next: null,
      queryErrors: { ...failure.errors, ...(failure.formError ? { query: failure.formError } : {}) },
      status: failure.status,
    };
  }
}

/** The filter form's controls as the URL sets them: one per filter parameter of the REST list, a list parameter's values as a list. */
function filterControls(q: URLSearchParams): Record<string, string | string[]> {
  return Object.fromEntries(
    ISSUE_FILTER_PARAMETERS.map(({ name, list }) => [
      name,
      list ? q.getAll(name).flatMap((s) => s.split(',')) : (q.get(name) ?? ''),
    ]),
  );
}

async function listPage(
  p: OrgPage,
  url: URL,
  form = newIssueForm(url.searchParams.get('project_id') ?? ''),
  failure?: FormFailure,
  bulkErrors: string[] = [],
  formLabels: string[] = [],
): Promise<Response> {
  const [data, projects, members, labels] = await Promise.all([
    issueListData(p, url),
    projectsOf(p),
    membersOf(p),
    labelsOf(p),
  ]);
  const q = url.searchParams;
  const first = new URL(url);
  first.searchParams.delete('cursor');
  return orgView(
    p,
    'issues',
    {
      title: `Issues · ${p.org.name}`,
      section: 'Issues',
      ...data,
      firstPage: q.has('cursor') ? `${first.pathname}${first.search}` : null,
      // Any filter of the list, every one the REST list takes: an empty page then means none matches.
      filtered: q.has('project_id') || ISSUE_FILTER_PARAMETERS.some(({ name }) => q.getAll(name).some(Boolean)),
      query: {
        ...filterControls(q),
        project_id: q.get('project_id') ?? '',
        sort: q.get('sort') ?? 'created_at',
        direction: q.get('direction') ?? '',
        limit: q.get('limit') ?? '',
      },
      projects,
      members,
      labels,
      names: namesOf(members),
      workflow: WORKFLOW,
      issueFields: ISSUE_PAGE,
      form,
      formLabels,
      errors: failure?.errors ?? {},
      formError: failure?.formError ?? null,
      here: `${url.pathname}${url.search}`,
      bulkErrors,
      ...perm(p),
    },
    { status: failure?.status ?? data.status ?? 200, headers: failure?.headers },
  );
}

export async function showIssues(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  return p instanceof Response ? p : listPage(p, new URL(request.url));
}

/** POST /orgs/:slug/issues: from the list, the board or a project; back to where it was made. */
export async function createIssuePage(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const { fields: form, lists } = await readFormWithLists(request, ['labels']);
  const labels = lists.labels!;
  const back = safeNextPath(form.back || `${p.base}/issues`, ctx.config.baseUrl);
  try {
    const issue = await createIssue.call(
      p.ctx,
      { ...createInput(form), ...(labels.length ? { labels } : {}) },
      { select: IssueJson.select },
    );
    const key = IssueJson.present(issue as never).key as string;
    return redirect(back, { 'set-cookie': flashCookie(ctx.config, { notice: `Created ${key}: ${issue.title}` }) });
  } catch (error) {
    // Each label's error (labels.2) shows once, under the labels.
    const failure = formFailure(error, (field) => (field.startsWith('labels.') ? 'labels' : field));
    const url = new URL(request.url);
    return listPage(p, url, { ...newIssueForm(), ...form }, failure, [], labels);
  }
}

/**
 * POST /orgs/:slug/issues/bulk: the list's bulk-action bar and the board's multi-select move, one
 * form: the checked issues (`ids`) and the change (an empty select changes nothing; assignee
 * `none` unassigns; a label to add and one to take off), made by the API's bulk operation, all or none. Back to where it was sent
 * from; a refusal shows the list with every bad item named.
 */
export async function bulkIssuesPage(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const { fields, lists } = await readFormWithLists(request, ['ids']);
  const back = safeNextPath(fields.back || `${p.base}/issues`, ctx.config.baseUrl);
  const ids = lists.ids!;
  const assignee = fields.assignee_id ?? '';
  const change = {
    ...(fields.status ? { status: fields.status } : {}),
    ...(fields.priority ? { priority: fields.priority } : {}),
    ...(assignee ? { assigneeId: assignee === 'none' ? null : assignee } : {}),
    ...(fields.label_add || fields.label_remove
      ? {
          labels: {
            ...(fields.label_add ? { add: [fields.label_add] } : {}),
            ...(fields.label_remove ? { remove: [fields.label_remove] } : {}),
          },
        }
      : {}),
  };
  try {
    const changed = await bulkIssues.call(p.ctx, { ids, change }, { select: { id: true } });
    const notice = `Changed ${changed.length} issue${changed.length === 1 ? '' : 's'}.`;
    return redirect(back, { 'set-cookie': flashCookie(ctx.config, { notice }) });
  } catch (error) {
    const failure = formFailure(error);
    // The checkboxes send keys: a bad item is named by the key that was checked.
    const named = (field: string) =>
      field === 'ids' ? 'Selection' : field.startsWith('ids.') ? (ids[Number(field.slice(4))] ?? field) : field;
    const messages = failure.formError
      ? [failure.formError]
      : Object.entries(failure.errors).map(([field, message]) => `${named(field)}: ${message}`);
    const listUrl = new URL(back.startsWith(`${p.base}/issues`) ? back : `${p.base}/issues`, ctx.config.baseUrl);
    return listPage(p, listUrl, undefined, { ...failure, errors: {}, formError: null }, messages);
  }
}

export async function issueOf(p: OrgPage, key: string | undefined): Promise<IssueView | null> {
  try {
    return IssueJson.present(
      (await getIssue.call(p.ctx, { id: key ?? '' }, { select: IssueJson.select })) as never,
    ) as IssueView;
  } catch (error) {
    if ((error as { code?: string }).code === 'NOT_FOUND') return null;
    throw error;
  }
}

export const issueNotFound = (p: OrgPage) =>
  notFoundPage(p.shell, 'Issue not found', 'It does not exist in this organization, or it was deleted.');

/** What the page shows of a failed write: the edit form's or a property's errors, by field. */
export type IssuePageState = {
  form?: Record<string, string>;
  failure?: FormFailure;
  /** `comment`: the new comment's form; a comment id: that comment's edit form. */
  failed?: 'edit' | 'properties' | 'comment' | { comment: string };
  activityAfter?: string | null;
  commentsAfter?: string | null;
};

export async function issuePage(p: OrgPage, issue: IssueView, state: IssuePageState = {}): Promise<Response> {
  const { failure } = state;
  const [projects, members, labels] = await Promise.all([projectsOf(p), membersOf(p), labelsOf(p)]);
  const names = namesOf(members);
  const activity = await issueActivity(p, issue.id, names, state.activityAfter ?? null);
  const comments = await issueComments(p, issue.id, names, state.commentsAfter ?? null);
  const commentFailed =
    typeof state.failed === 'object' ? state.failed.comment : state.failed === 'comment' ? '' : null;
  const editFailed = state.failed === 'edit';
  const shown = issue as Record<string, unknown>;
  const body = shown[ISSUE_PAGE.body.name] as string | null;
  return orgView(
    p,
    'issue',
    {
      title: `${issue.key} ${shown[ISSUE_PAGE.heading.name]}`,
      section: 'Issues',
      issue,
      bodyHtml: body ? renderMarkdown(body) : null,
      activity,
      activityAfter: state.activityAfter ?? null,
      comments,
      commentsAfter: state.commentsAfter ?? null,
      // The comment form that failed ('' for the new comment's), its text and its errors.
      comment: {
        failed: commentFailed,
        body: commentFailed !== null ? (state.form?.body ?? '') : '',
        error: commentFailed !== null ? (failure?.errors.body ?? failure?.formError ?? null) : null,
      },
      project: projects.find((project) => project.id === issue.project_id),
      projects,
      members,
      labels,
      names,
      issueFields: ISSUE_PAGE,
      form: editFailed && state.form ? state.form : editForm(issue),
      editOpen: editFailed,
      // Each field's error shows next to its field, wherever that is; an error of no one field, where the write came from.
      errors: failure?.errors ?? {},
      formError: editFailed ? (failure?.formError ?? null) : null,
      propertyErrors: failure?.errors ?? {},
      propertiesError: state.failed === 'properties' ? (failure?.formError ?? null) : null,
      ...perm(p),
    },
    { status: failure?.status ?? 200, headers: failure?.headers },
  );
}

export async function showIssue(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const issue = await issueOf(p, request.params?.key);
  const query = new URL(request.url).searchParams;
  const activityAfter = query.get('activity_after');
  const commentsAfter = query.get('comments_after');
  return issue ? issuePage(p, issue, { activityAfter, commentsAfter }) : issueNotFound(p);
}

/** POST /orgs/:slug/issues/:key: the edit form (the heading and the body; the sidebar sets the rest, and the fields it sends). */
export async function editIssue(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const issue = await issueOf(p, request.params?.key);
  if (!issue) return issueNotFound(p);
  const form = await readForm(request);
  try {
    await updateIssue.call(
      p.ctx,
      { id: issue.id, ...sentFields(form, [...ISSUE_PAGE.edit, ...ISSUE_PAGE.changeable]) },
      { select: { id: true } },
    );
    return redirect(`${p.base}/issues/${issue.key}`, {
      'set-cookie': flashCookie(ctx.config, { notice: `Saved ${issue.key}.` }),
    });
  } catch (error) {
    return issuePage(p, issue, { form, failure: formFailure(error), failed: 'edit' });
  }
}

/**
 * POST /orgs/:slug/issues/:key/properties: the sidebar's selects. Only the fields the form sends
 * change, so setting the priority never undoes someone else's new status. The page's script posts
 * the same form with fetch and takes the page it is redirected to apart (assets/app.js).
 */
export async function setIssueProperties(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const issue = await issueOf(p, request.params?.key);
  if (!issue) return issueNotFound(p);
  const form = await readForm(request);
  const input = sentFields(form, ISSUE_PAGE.changeable);
  const changed = ISSUE_PAGE.changeable.filter((f) => f.field in input).map((f) => f.label.toLowerCase());
  try {
    if (changed.length) await updateIssue.call(p.ctx, { id: issue.id, ...input }, { select: { id: true } });
    const notice = changed.length ? `Saved the ${changed.join(', ')} of ${issue.key}.` : 'Nothing to save.';
    return redirect(`${p.base}/issues/${issue.key}`, { 'set-cookie': flashCookie(ctx.config, { notice }) });
  } catch (error) {
    return issuePage(p, issue, { failure: formFailure(error), failed: 'properties' });
  }
}

/** POST /orgs/:slug/issues/:key/status: the board's move. */
export async function moveIssue(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const issue = await issueOf(p, request.params?.key);
  if (!issue) return issueNotFound(p);
  const form = await readForm(request);
  const back = safeNextPath(form.back || `${p.base}/board`, ctx.config.baseUrl);
  try {
    await updateIssue.call(p.ctx, { id: issue.id, status: form.status ?? '' }, { select: { id: true } });
    return redirect(back, {
      'set-cookie': flashCookie(ctx.config, { notice: `Moved ${issue.key} to ${form.status}.` }),
    });
  } catch (error) {
    return issuePage(p, issue, { failure: formFailure(error), failed: 'properties' });
  }
}

export async function confirmDeleteIssue(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const issue = await issueOf(p, request.params?.key);
  if (!issue) return issueNotFound(p);
  return orgView(p, 'confirm', {
    title: `Delete ${issue.key}`,
    heading: `Delete ${issue.key} “${issue.title}”?`,
    message: 'This cannot be undone. Members usually cancel an issue instead (status Canceled).',
    action: `${p.base}/issues/${issue.key}/delete`,
    button: 'Delete issue',
    cancel: `${p.base}/issues/${issue.key}`,
  });
}

export async function deleteIssuePage(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const issue = await issueOf(p, request.params?.key);
  if (!issue) return issueNotFound(p);
  try {
    await deleteIssue.call(p.ctx, { id: issue.id }, undefined);
    return redirect(`${p.base}/issues`, { 'set-cookie': flashCookie(ctx.config, { notice: `Deleted ${issue.key}.` }) });
  } catch (error) {
    return issuePage(p, issue, { failure: formFailure(error), failed: 'properties' });
  }
}
