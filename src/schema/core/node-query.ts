import type { Context } from '../../context.js';
import { builder } from './builder.js';
import { ValidationError } from './errors.js';
import { FIELD_COST } from './list-bounds.js';
import { NodeRef, type NodeValue } from './node.js';
import { isUuid } from './uuid.js';
import { activeOrgId } from '../people/viewer.js';

const MAX_NODE_IDS = 100;

/** The issue, project or member of the caller's organization with this id; null for anything else. */
async function findNodes(ctx: Context, ids: string[]): Promise<Map<string, NodeValue>> {
  const orgId = activeOrgId(ctx);
  const wanted = [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];
  const found = new Map<string, NodeValue>();
  if (wanted.length === 0) return found;
  const [issues, projects, members] = await Promise.all([
    ctx.prisma.issue.findMany({ where: { orgId, id: { in: wanted } } }),
    ctx.prisma.project.findMany({ where: { orgId, id: { in: wanted } } }),
    ctx.prisma.membership.findMany({ where: { orgId, userId: { in: wanted } }, select: { user: true } }),
  ]);
  for (const issue of issues) found.set(issue.id, { ...issue, __nodeType: 'Issue' });
  for (const project of projects) found.set(project.id, { ...project, __nodeType: 'Project' });
  for (const { user } of members) found.set(user.id, { ...user, __nodeType: 'User' });
  return found;
}

builder.queryField('node', (t) =>
  t.field({
    type: NodeRef,
    nullable: true,
    description:
      'An issue, project or member of your organization by id; null when there is none (or it is not yours to see).',
    authScopes: { role: 'viewer' },
    args: { id: t.arg.id({ required: true, description: 'The id of an issue, a project or a user.' }) },
    resolve: async (_root, args, ctx) =>
      (await findNodes(ctx, [String(args.id)])).get(String(args.id).toLowerCase()) ?? null,
  }),
);

builder.queryField('nodes', (t) =>
  t.field({
    type: [NodeRef],
    nullable: { list: false, items: true },
    description: `node(id:) for up to ${MAX_NODE_IDS} ids at once, in the same order.`,
    authScopes: { role: 'viewer' },
    args: {
      ids: t.arg.idList({ required: true, description: `Up to ${MAX_NODE_IDS} ids of issues, projects or users.` }),
    },
    complexity: (args) => ({ field: FIELD_COST, multiplier: Math.min(args.ids.length, MAX_NODE_IDS) }),
    resolve: async (_root, args, ctx) => {
      if (args.ids.length > MAX_NODE_IDS)
        throw new ValidationError([{ field: 'ids', message: `must have at most ${MAX_NODE_IDS} ids` }]);
      const ids = args.ids.map(String);
      const found = await findNodes(ctx, ids);
      return ids.map((id) => found.get(id.toLowerCase()) ?? null);
    },
  }),
);
