import { z } from 'zod';
import { hashPassword, verifyPassword } from '../../auth/password.js';
import { passwordProblem } from '../../auth/password-setup.js';
import { defineOperation } from '../core/operation.js';
import { createShape, updateShape } from '../core/column-input.js';
import { ValidationError } from '../core/errors.js';
import { USER_TABLE } from './columns.js';
import { viewer } from './viewer.js';

/**
 * The person's own account: the fields of a new account (the first-run setup uses them) and the
 * changes a person makes to their own (the account page). Never with an API key: a key acts in
 * one organization and must not be able to take over the account behind it.
 */

/** A new account's fields (src/schema/people/columns.ts); the password is checked by passwordProblem, like every password. */
export const NewAccount = z.strictObject(createShape(USER_TABLE));

export const updateProfile = defineOperation({
  name: 'updateProfile',
  description: 'Changes your own name.',
  kind: 'write',
  access: { notPat: true },
  input: z.strictObject(updateShape(USER_TABLE)),
  run: (ctx, data) =>
    ctx.prisma.user.update({ where: { id: viewer(ctx).userId }, data, select: { id: true, name: true } }),
});

export const changePassword = defineOperation({
  name: 'changePassword',
  description: 'Changes your own password (the current one is needed) and ends every other session of yours.',
  kind: 'write',
  access: { notPat: true },
  input: z.strictObject({ currentPassword: z.string(), password: z.string(), confirmation: z.string() }),
  async run(ctx, input) {
    const me = viewer(ctx);
    const user = await ctx.prisma.user.findUniqueOrThrow({ where: { id: me.userId }, select: { passwordHash: true } });
    if (!user.passwordHash || !(await verifyPassword(input.currentPassword, user.passwordHash))) {
      throw new ValidationError([{ field: 'currentPassword', message: 'is not your current password' }]);
    }
    const problem = passwordProblem(input.password, input.confirmation);
    if (problem) throw new ValidationError([{ field: 'password', message: problem }]);
    const passwordHash = await hashPassword(input.password);
    const keep = me.credential.kind === 'session' ? me.credential.id : undefined;
    await ctx.prisma.$transaction([
      ctx.prisma.user.update({ where: { id: me.userId }, data: { passwordHash }, select: { id: true } }),
      // Whoever knew the old password is signed out everywhere; this browser stays signed in.
      ctx.prisma.session.deleteMany({ where: { userId: me.userId, ...(keep ? { id: { not: keep } } : {}) } }),
    ]);
    return true;
  },
});

export const signOutEverywhere = defineOperation({
  name: 'signOutEverywhere',
  description: 'Ends every session of yours, this one included. API keys and OAuth grants are not affected.',
  kind: 'write',
  access: { notPat: true },
  input: z.strictObject({}),
  async run(ctx) {
    const { count } = await ctx.prisma.session.deleteMany({ where: { userId: viewer(ctx).userId } });
    return count;
  },
});
