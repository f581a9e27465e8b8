import { builder } from './builder.js';

builder.prismaObject('Organization', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    slug: t.exposeString('slug'),
    projects: t.relation('projects', { query: { orderBy: [{ key: 'asc' }] } }),
  }),
});
