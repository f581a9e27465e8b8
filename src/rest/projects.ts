import type { Context } from '../context.js';
import { readJsonObject } from './body.js';
import { json, noContent } from './json.js';
import { defineOperation, ERROR_FIELDS, FIELD_ERRORS, runOperation, unwrapResult } from './operation.js';
import { pathParam, queryValue, snakeToCamelKeys } from './params.js';

type Params = Record<string, string | undefined>;

const PROJECT_FIELDS = /* GraphQL */ `
  fragment ProjectFields on Project { id name key issueCount createdAt updatedAt }
`;

const LIST_PROJECTS = defineOperation(/* GraphQL */ `
  query ListProjects { projects { ...ProjectFields } }
  ${PROJECT_FIELDS}
`);

const GET_PROJECT = defineOperation(/* GraphQL */ `
  query GetProject($id: ID!) { project(id: $id) { ...ProjectFields } }
  ${PROJECT_FIELDS}
`);

const CREATE_PROJECT = defineOperation(/* GraphQL */ `
  mutation CreateProject($input: CreateProjectInput!) {
    createProject(input: $input) {
      ... on MutationCreateProjectSuccess { data { ...ProjectFields } }
      ${ERROR_FIELDS}
      ${FIELD_ERRORS}
      ... on RateLimitedError { retryAfter }
    }
  }
  ${PROJECT_FIELDS}
`);

const UPDATE_PROJECT = defineOperation(/* GraphQL */ `
  mutation UpdateProject($id: ID!, $input: UpdateProjectInput!) {
    updateProject(id: $id, input: $input) {
      ... on MutationUpdateProjectSuccess { data { ...ProjectFields } }
      ${ERROR_FIELDS}
      ${FIELD_ERRORS}
      ... on RateLimitedError { retryAfter }
    }
  }
  ${PROJECT_FIELDS}
`);

const DELETE_PROJECT = defineOperation(/* GraphQL */ `
  mutation DeleteProject($id: ID!, $force: Boolean) {
    deleteProject(id: $id, force: $force) {
      ... on MutationDeleteProjectSuccess { data }
      ${ERROR_FIELDS}
      ... on RateLimitedError { retryAfter }
    }
  }
`);

interface ProjectNode {
  id: string;
  name: string;
  key: string;
  issueCount: number;
  createdAt: string;
  updatedAt: string;
}

type Result<T> = Parameters<typeof unwrapResult<T>>[0];

function projectJson(project: ProjectNode) {
  return {
    id: project.id,
    name: project.name,
    key: project.key,
    issue_count: project.issueCount,
    created_at: project.createdAt,
    updated_at: project.updatedAt,
  };
}

/** GET /api/projects: a bare array, by key. */
export async function listProjects(_request: Request, ctx: Context): Promise<Response> {
  const { projects } = await runOperation<{ projects: ProjectNode[] }>(LIST_PROJECTS, ctx);
  return json(projects.map(projectJson));
}

/** GET /api/projects/:id */
export async function getProject(_request: Request, ctx: Context, params: Params): Promise<Response> {
  const { project } = await runOperation<{ project: ProjectNode }>(GET_PROJECT, ctx, { id: pathParam(params, 'id') });
  return json(projectJson(project));
}

/** POST /api/projects: 201 with the project and its Location. */
export async function createProject(request: Request, ctx: Context): Promise<Response> {
  const input = snakeToCamelKeys(await readJsonObject(request));
  const { createProject } = await runOperation<{ createProject: Result<ProjectNode> }>(CREATE_PROJECT, ctx, { input });
  const project = unwrapResult(createProject);
  return json(projectJson(project), { status: 201, headers: { location: `${ctx.config.baseUrl}/api/projects/${project.id}` } });
}

/** PUT /api/projects/:id: name and/or key; a field left out stays as it is. */
export async function updateProject(request: Request, ctx: Context, params: Params): Promise<Response> {
  const id = pathParam(params, 'id');
  const input = snakeToCamelKeys(await readJsonObject(request));
  const { updateProject } = await runOperation<{ updateProject: Result<ProjectNode> }>(UPDATE_PROJECT, ctx, { id, input });
  return json(projectJson(unwrapResult(updateProject)));
}

/** DELETE /api/projects/:id[?force=true]: 204; 409 while it has issues, unless forced. */
export async function deleteProject(request: Request, ctx: Context, params: Params): Promise<Response> {
  const variables = { id: pathParam(params, 'id'), force: queryValue(new URL(request.url), 'force', 'boolean') };
  const { deleteProject } = await runOperation<{ deleteProject: Result<string> }>(DELETE_PROJECT, ctx, variables);
  unwrapResult(deleteProject);
  return noContent();
}
