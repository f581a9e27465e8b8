import { roleAtLeast } from '../auth/principal.js';
import type { Context } from '../context.js';
import { createProject, deleteProject, updateProject } from '../schema/projects/operations.js';
import { flashCookie } from './flash.js';
import { formFailure, readForm, type FormFailure } from './forms.js';
import { ISSUE_PAGE, newIssueForm } from './issue-fields.js';
import { labelsOf } from './labels.js';
import { issueListData } from './issues.js';
import { membersOf, namesOf, projectsOf, WORKFLOW, type ProjectView } from './org-data.js';
import { notFoundPage, orgPage, orgView, type OrgPage, type PageRequest } from './org-page.js';
import { redirect } from '../views/render.js';
import { openCountsByProject } from './project-counts.js';
import { Response } from '../http/fetch-api.js';

/**
 * Projects: the list with issue counts, create (managers and above), and one project's page
 * (its issues, a create form, edit and delete for managers). Someone below manager sees no
 * buttons; posting anyway gets the operation's 403 on the page.
 */

const canManage = (p: OrgPage) => roleAtLeast(p.org.role, 'manager');

async function projectsPage(p: OrgPage, form = { name: '', key: '' }, failure?: FormFailure): Promise<Response> {
  const [projects, open] = await Promise.all([projectsOf(p), openCountsByProject(p)]);
  return orgView(
    p,
    'projects',
    {
      title: `Projects · ${p.org.name}`,
      section: 'Projects',
      projects,
      open,
      canManage: canManage(p),
      form,
      errors: failure?.errors ?? {},
      formError: failure?.formError ?? null,
    },
    { status: failure?.status ?? 200, headers: failure?.headers },
  );
}

export async function showProjects(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  return p instanceof Response ? p : projectsPage(p);
}

export async function createProjectPage(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const form = await readForm(request);
  const values = { name: form.name ?? '', key: form.key ?? '' };
  try {
    const project = await createProject.call(p.ctx, values, { select: { key: true, name: true } });
    return redirect(`${p.base}/projects/${project.key}`, {
      'set-cookie': flashCookie(ctx.config, { notice: `Created the project ${project.name}.` }),
    });
  } catch (error) {
    return projectsPage(p, values, formFailure(error));
  }
}

async function projectByKey(p: OrgPage, key: string | undefined): Promise<ProjectView | undefined> {
  return (await projectsOf(p)).find((project) => project.key === key?.toUpperCase());
}

const projectNotFound = (p: OrgPage) =>
  notFoundPage(p.shell, 'Project not found', 'It does not exist in this organization.');

async function projectPage(
  p: OrgPage,
  request: Request,
  project: ProjectView,
  form?: { name: string; key: string },
  failure?: FormFailure,
): Promise<Response> {
  const url = new URL(request.url);
  const list = new URL(`${p.base}/issues`, url);
  list.searchParams.set('project_id', project.id);
  for (const [k, v] of url.searchParams) if (k !== 'project_id') list.searchParams.append(k, v);
  const [data, members, projects, labels] = await Promise.all([
    issueListData(p, list),
    membersOf(p),
    projectsOf(p),
    labelsOf(p),
  ]);
  return orgView(
    p,
    'project',
    {
      title: `${project.name} · ${p.org.name}`,
      section: 'Projects',
      project,
      ...data,
      listUrl: `${list.pathname}${list.search}`,
      projects,
      members,
      labels,
      names: namesOf(members),
      workflow: WORKFLOW,
      issueFields: ISSUE_PAGE,
      form: newIssueForm(project.id),
      errors: {},
      formError: null,
      edit: form ?? { name: project.name, key: project.key },
      editErrors: failure?.errors ?? {},
      editError: failure?.formError ?? null,
      here: `${url.pathname}`,
      canEdit: roleAtLeast(p.org.role, 'member'),
      canManage: canManage(p),
    },
    { status: failure?.status ?? 200, headers: failure?.headers },
  );
}

export async function showProject(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const project = await projectByKey(p, request.params?.key);
  return project ? projectPage(p, request, project) : projectNotFound(p);
}

export async function editProject(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const project = await projectByKey(p, request.params?.key);
  if (!project) return projectNotFound(p);
  const form = await readForm(request);
  const values = { name: form.name ?? '', key: form.key ?? '' };
  try {
    const changed = await updateProject.call(p.ctx, { id: project.id, ...values }, { select: { key: true } });
    return redirect(`${p.base}/projects/${changed.key}`, {
      'set-cookie': flashCookie(ctx.config, { notice: 'Saved the project.' }),
    });
  } catch (error) {
    return projectPage(p, request, project, values, formFailure(error));
  }
}

export async function confirmDeleteProject(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const project = await projectByKey(p, request.params?.key);
  if (!project) return projectNotFound(p);
  return orgView(p, 'confirm', {
    title: `Delete ${project.name}`,
    heading: `Delete the project “${project.name}”?`,
    message: project.issue_count
      ? `It has ${project.issue_count} issue${project.issue_count === 1 ? '' : 's'}. Tick the box to delete them with it. This cannot be undone.`
      : 'This cannot be undone.',
    fields: project.issue_count ? [{ name: 'force', label: `Also delete its ${project.issue_count} issues` }] : [],
    action: `${p.base}/projects/${project.key}/delete`,
    button: 'Delete project',
    cancel: `${p.base}/projects/${project.key}`,
  });
}

export async function deleteProjectPage(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const project = await projectByKey(p, request.params?.key);
  if (!project) return projectNotFound(p);
  const form = await readForm(request);
  try {
    await deleteProject.call(p.ctx, { id: project.id, force: form.force === 'true' }, undefined);
    return redirect(`${p.base}/projects`, {
      'set-cookie': flashCookie(ctx.config, { notice: `Deleted the project ${project.name}.` }),
    });
  } catch (error) {
    return projectPage(p, request, project, undefined, formFailure(error));
  }
}
