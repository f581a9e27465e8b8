import { z } from 'zod';
import { LIST_BOUNDS } from '../../schema/core/list-bounds.js';
import * as ops from '../../schema/projects/operations.js';
import { boolean, camelKeys, ID_MAX, snakeBody } from '../inputs.js';
import { ProjectJson } from '../../schema/projects/representation.js';
import { route } from '../route.js';
import { EXAMPLE } from './examples.js';

const ProjectId = z.object({
  id: z.string().min(1).meta({
    maxLength: ID_MAX,
    description:
      "The project id or its key (`WEB`, any case). Another organization's project is a 404, exactly like a missing one.",
    example: 'WEB',
  }),
});
const present = (row: unknown) => ProjectJson.present(row as never);
const select = { select: ProjectJson.select };

export const projectRoutes = [
  route({
    method: 'get',
    path: '/projects',
    operationId: 'listProjects',
    tool: { name: 'list_projects', toolsets: ['projects'] },
    summary: "The organization's projects, by key",
    description: 'Any role.',
    tag: 'Projects',
    operation: ops.listProjects,
    success: {
      status: 200,
      description: 'The projects.',
      schema: z.array(ProjectJson.schema).max(LIST_BOUNDS.projects),
      examples: { projects: [EXAMPLE.project] },
    },
    async handle(ctx) {
      return { body: (await ops.listProjects.run(ctx, {}, select)).map(present) };
    },
  }),
  route({
    method: 'post',
    path: '/projects',
    operationId: 'createProject',
    tool: { name: 'create_project', toolsets: ['projects'] },
    summary: 'Create a project',
    description: 'Manager or above.',
    tag: 'Projects',
    operation: ops.createProject,
    body: snakeBody(ops.createProject.input),
    success: {
      status: 201,
      description: 'The created project.',
      schema: ProjectJson.schema,
      headers: ['Location'],
      examples: { created: { ...EXAMPLE.project, issue_count: 0 } },
    },
    errors: { 409: 'Another project of the organization has this key.' },
    async handle(ctx, { body }) {
      const project = await ops.createProject.run(ctx, ops.createProject.parse(camelKeys(body)), select);
      return { body: present(project), headers: { location: `${ctx.config.baseUrl}/api/projects/${project.id}` } };
    },
  }),
  route({
    method: 'get',
    path: '/projects/{id}',
    operationId: 'getProject',
    tool: { name: 'get_project', toolsets: ['projects'] },
    summary: 'One project',
    description: 'Any role.',
    tag: 'Projects',
    operation: ops.getProject,
    params: ProjectId,
    success: {
      status: 200,
      description: 'The project.',
      schema: ProjectJson.schema,
      examples: { project: EXAMPLE.project },
    },
    errors: { 404: 'No such project in this organization.' },
    async handle(ctx, { params }) {
      return { body: present(await ops.getProject.run(ctx, ops.getProject.parse(params), select)) };
    },
  }),
  route({
    method: 'put',
    path: '/projects/{id}',
    operationId: 'updateProject',
    tool: { name: 'update_project', toolsets: ['projects'] },
    summary: 'Rename a project or change its key',
    description:
      'The fields sent change, the others stay. A new key renames every issue key of the project. Manager or above.',
    tag: 'Projects',
    operation: ops.updateProject,
    params: ProjectId,
    body: snakeBody(ops.updateProject.input, ['id']),
    success: {
      status: 200,
      description: 'The changed project.',
      schema: ProjectJson.schema,
      examples: { changed: EXAMPLE.project },
    },
    errors: { 404: 'No such project in this organization.', 409: 'Another project of the organization has this key.' },
    async handle(ctx, { params, body }) {
      return {
        body: present(
          await ops.updateProject.run(ctx, ops.updateProject.parse({ ...camelKeys(body), id: params.id }), select),
        ),
      };
    },
  }),
  route({
    method: 'delete',
    path: '/projects/{id}',
    operationId: 'deleteProject',
    tool: { name: 'delete_project', toolsets: ['projects'] },
    summary: 'Delete a project',
    description:
      'A project that still has issues is refused (409) unless `force=true`, which deletes the project and its issues in one transaction. Manager or above.',
    tag: 'Projects',
    operation: ops.deleteProject,
    params: ProjectId,
    query: z.object({
      force: boolean(ops.deleteProject.input.shape.force).meta({
        description: 'Also delete the issues of the project.',
      }),
    }),
    success: { status: 204, description: 'Deleted.' },
    errors: {
      404: 'No such project in this organization.',
      409: 'The project still has issues (and `force` is not true).',
    },
    async handle(ctx, { params, query }) {
      await ops.deleteProject.run(ctx, ops.deleteProject.parse({ id: params.id, force: query.force }), undefined);
      return {};
    },
  }),
];
