import { z } from 'zod';
import type { Context } from '../../context.js';
import { sql } from 'kysely';
import { directSql } from '../../db/direct-sql.js';
import { builder as sqlBuilder, prepared, rowsOf } from '../../db/sql-builder.js';
import type { Prisma, User } from '../../generated/prisma/client.js';
import { builder } from '../core/builder.js';
import { columnFields } from '../core/column-graphql.js';
import { declaredSelection } from '../core/column-select.js';
import { NotFoundError } from '../core/errors.js';
import { defineOperation } from '../core/operation.js';
import { NodeRef } from '../core/node.js';
import { seesEmail } from './person.js';
import { selectionCovered } from '../core/selection.js';
import { USER_COLUMNS, USER_FIELD_NAMES, USER_TABLE } from './columns.js';
import { viewer } from './viewer.js';

builder.prismaObject('User', {
  interfaces: [NodeRef],
  // Never the password hash; the email only when asked for. The small public columns come with
  // every row and resolve as plain fields (see the Issue object for why not `t.expose*`).
  select: USER_COLUMNS,
  description: 'A person with an account: you (me), or a member of your organization (an assignee, a node).',
  fields: (t) =>
    columnFields(t, USER_TABLE, USER_FIELD_NAMES, {
      rules: { email: (user: User, ctx: Context) => user.id === viewer(ctx).userId || seesEmail(ctx) },
    }),
});

export const getMe = defineOperation({
  name: 'getMe',
  description: 'The signed-in user.',
  kind: 'read',
  access: {},
  input: z.strictObject({}),
  async run(ctx, _input, query: { select?: Prisma.UserSelect }) {
    const id = viewer(ctx).userId;
    // The usual selections (the REST representation, the web app's header) are one hand-written
    // statement, sent without Prisma's client (src/db/direct-sql.ts); others go through Prisma.
    const [user] = selectionCovered(query.select, ME_COLUMNS)
      ? // Typed as the whole model, as Prisma types a row of any selection.
        await rowsOf<User>(directSql(ctx.prisma), meStatement.with(id))
      : [await ctx.prisma.user.findUnique({ ...query, where: { id } })];
    // Deleted since the credential was checked.
    if (!user) throw new NotFoundError('user');
    return user;
  },
});

/**
 * The columns the statement of `me` reads: those of the REST representation and of the User
 * object's base selection (the public ones and the email), never the password hash.
 */
const ME_FIELDS = USER_FIELD_NAMES.filter((field) => USER_TABLE[field].loaded || 'json' in USER_TABLE[field]);
const ME_COLUMNS = Object.fromEntries(ME_FIELDS.map((field) => [field, true]));
/** Compiled once (prepared): it runs on every GET /me. */
const meStatement = prepared(
  (id: string) =>
    sqlBuilder
      .selectFrom('users')
      .select(declaredSelection<User>(USER_TABLE)('users', ME_FIELDS))
      .where('id', '=', sql<string>`${id}::uuid`),
  1,
);
/** Exported for the benchmark's baseline, which sends the same statement. */
export const USER_SQL = meStatement.text;

builder.queryField('me', (t) =>
  t.prismaField({
    type: 'User',
    description: getMe.description,
    resolve: (query, _root, _args, ctx) => getMe.call(ctx, {}, query),
  }),
);
