import { builder } from './builder.js';
import { activeOrgId } from './viewer.js';

builder.prismaObject('Project', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    key: t.exposeString('key', { description: 'Short uppercase key; issue keys read KEY-123.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    organization: t.relation('org'),
    issues: t.relatedConnection('issues', {
      cursor: 'id',
      defaultSize: 50,
      maxSize: 100,
      query: { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] },
      description: 'Newest first.',
    }),
  }),
});

builder.queryField('projects', (t) =>
  t.prismaField({
    type: ['Project'],
    description: 'Projects of the organization the caller acts in.',
    authScopes: { role: 'viewer' },
    resolve: (query, _root, _args, ctx) =>
      ctx.prisma.project.findMany({ ...query, where: { orgId: activeOrgId(ctx) }, orderBy: [{ key: 'asc' }] }),
  }),
);
