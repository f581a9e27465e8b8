import { z } from 'zod';
import { hashPassword, verifyPassword } from '../../auth/password.js';
import { passwordProblem } from '../../auth/password-setup.js';
import { notNull } from '../core/messages.js';
import { defineOperation } from '../core/operation.js';
import { storableString } from '../core/text.js';
import { ValidationError } from '../core/errors.js';
import { viewer } from './viewer.js';

/**
 * The person's own account: the fields of a new account (the first-run setup uses them) and the
 * changes a person makes to their own (the account page). Never with an API key: a key acts in
 * one organization and must not be able to take over the account behind it.
 */

const PERSON_NAME_MAX = 100;

const personName = storableString(notNull('must be a string'))
  .trim()
  .min(1, 'must not be empty')
  .max(PERSON_NAME_MAX, `must be at most ${PERSON_NAME_MAX} characters`);

/** A new account's fields; the password is checked by passwordProblem, like every password. */
export const NewAccount = z.strictObject({
  name: personName,
  email: z
    .string(notNull('must be a string'))
    .trim()
    .toLowerCase()
    .pipe(z.email('must be an email address').max(254, 'must be at most 254 characters')),
  username: z
    .string(notNull('must be a string'))
    .trim()
    .regex(
      /^[a-zA-Z0-9][a-zA-Z0-9_.-]{1,38}$/,
      'must be 2-39 letters, digits, dots, dashes or underscores, starting with a letter or digit',
    ),
});

export const updateProfile = defineOperation({
  name: 'updateProfile',
  description: 'Changes your own name.',
  kind: 'write',
  access: { notPat: true },
  input: z.strictObject({ name: personName }),
  run: (ctx, { name }) =>
    ctx.prisma.user.update({ where: { id: viewer(ctx).userId }, data: { name }, select: { id: true, name: true } }),
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
