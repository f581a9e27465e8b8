import { builder } from './builder.js';
import { viewer } from './viewer.js';

builder.prismaObject('User', {
  fields: (t) => ({
    id: t.exposeID('id'),
    email: t.exposeString('email'),
    name: t.exposeString('name'),
    username: t.exposeString('username'),
    locale: t.exposeString('locale', { description: 'Language code, e.g. en.' }),
  }),
});

builder.queryField('me', (t) =>
  t.prismaField({
    type: 'User',
    description: 'The signed-in user.',
    authScopes: { signedIn: true },
    resolve: (query, _root, _args, ctx) =>
      ctx.prisma.user.findUniqueOrThrow({ ...query, where: { id: viewer(ctx).userId } }),
  }),
);
