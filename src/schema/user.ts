import { builder } from './builder.js';
import { NodeRef } from './node.js';
import { seesEmail } from './person.js';
import { viewer } from './viewer.js';

builder.prismaObject('User', {
  interfaces: [NodeRef],
  // Load only the columns a query asks for: never the password hash, and less to fetch and parse.
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID('id'),
    email: t.string({
      nullable: true,
      description: "Your own, always; other people's only for managers, admins and owners (null otherwise).",
      select: { email: true },
      resolve: (user, _args, ctx) => (user.id === viewer(ctx).userId || seesEmail(ctx) ? user.email : null),
    }),
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
