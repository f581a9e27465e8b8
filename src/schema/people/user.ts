import { z } from 'zod';
import { sql } from 'kysely';
import { directSql } from '../../db/direct-sql.js';
import { builder as sqlBuilder, prepared, rowsOf } from '../../db/sql-builder.js';
import type { Prisma, User } from '../../generated/prisma/client.js';
import { builder } from '../core/builder.js';
import { column } from '../core/column-fields.js';
import { textCost } from '../core/list-bounds.js';
import { NotFoundError } from '../core/errors.js';
import { defineOperation } from '../core/operation.js';
import { NodeRef } from '../core/node.js';
import { seesEmail } from './person.js';
import { selectionCovered } from '../core/selection.js';
import { USER_COLUMNS } from './columns.js';
import { EMAIL_MAX } from './fields.js';
import { viewer } from './viewer.js';

builder.prismaObject('User', {
  interfaces: [NodeRef],
  // Never the password hash; the email only when asked for. The small public columns come with
  // every row and resolve as plain fields (see the Issue object for why not `t.expose*`).
  select: USER_COLUMNS,
  description: 'A person with an account: you (me), or a member of your organization (an assignee, a node).',
  fields: (t) => ({
    id: t.id({ description: 'The user id (what assigneeId holds).', resolve: column('id') }),
    email: t.string({
      nullable: true,
      description: "Your own, always; other people's only for managers, admins and owners (null otherwise).",
      complexity: textCost(EMAIL_MAX),
      select: { email: true },
      resolve: (user, _args, ctx) => (user.id === viewer(ctx).userId || seesEmail(ctx) ? user.email : null),
    }),
    name: t.string({ description: 'The name they go by.', resolve: column('name') }),
    username: t.string({ description: 'Their unique handle.', resolve: column('username') }),
    locale: t.string({ description: 'Language code, e.g. en.', resolve: column('locale') }),
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

/** The columns the statement of `me` reads: the public ones and the email, never the password hash. */
const ME_COLUMNS = { ...USER_COLUMNS, email: true } as const;
/** A User's fields are its columns' names, so the declaration's keys are the statement's columns. */
const ME_SELECT = Object.keys(ME_COLUMNS) as (keyof typeof ME_COLUMNS)[];
/** Compiled once (prepared): it runs on every GET /me. */
const meStatement = prepared(
  (id: string) => sqlBuilder.selectFrom('users').select(ME_SELECT).where('id', '=', sql<string>`${id}::uuid`),
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
