import { hashPassword } from '../../auth/password.js';
import { passwordProblem } from '../../auth/password-setup.js';
import { hashToken } from '../../auth/pat-token.js';
import type { Role } from '../../auth/principal.js';
import type { Db } from '../../db/client.js';
import { Prisma } from '../../generated/prisma/client.js';
import { NewAccount } from '../people/account.js';
import { ValidationError, type FieldError } from '../core/errors.js';
import { claimInvitation, INVITE_CODE_PATTERN } from './invitation.js';
import { invitationState, type InvitationState } from './team.js';

/**
 * An invitation link as the person who opens it sees it (src/web/invite.ts), and the sign-up
 * through it: a new account, its membership and the invitation's use in one transaction.
 * Whoever holds the link holds the invitation, so these need no principal.
 */

export interface OpenedInvitation {
  state: InvitationState;
  role: Role;
  expiresAt: Date;
  org: { id: string; name: string; slug: string };
  /** Who made it, to name whom to ask for a new one. */
  createdByName: string | null;
  /** The email it was made for, if any (the sign-up form starts with it). */
  email: string | null;
}

/**
 * The invitation a link's code names, in whatever state, or null for a code that names none
 * (malformed codes are not looked up). The code is found by its SHA-256, as every secret here:
 * the database compares digests, so the lookup's time says nothing about the code.
 */
export async function openInvitation(db: Db, code: string, now = new Date()): Promise<OpenedInvitation | null> {
  if (!INVITE_CODE_PATTERN.test(code)) return null;
  const row = await db.invitation.findUnique({
    where: { codeHash: hashToken(code) },
    select: {
      role: true,
      email: true,
      expiresAt: true,
      usedAt: true,
      revokedAt: true,
      createdBy: true,
      org: { select: { id: true, name: true, slug: true } },
    },
  });
  if (!row) return null;
  const creator = await db.user.findUnique({ where: { id: row.createdBy }, select: { name: true } });
  return {
    state: invitationState(row, now),
    role: row.role,
    expiresAt: row.expiresAt,
    org: row.org,
    createdByName: creator?.name ?? null,
    email: row.email,
  };
}

export interface SignUpForm {
  name?: string;
  email?: string;
  username?: string;
  password?: string;
  confirmation?: string;
}

const TAKEN = {
  email: 'already has an account: sign in to accept the invitation',
  username: 'is taken: choose another',
};

/**
 * Creates an account through an invitation and makes it a member, in one transaction. Every
 * mistake of the form is reported at once (a ValidationError by field); an invitation that is
 * no longer pending is a NotFoundError. Returns the new user and the organization joined.
 */
export async function signUpWithInvitation(db: Db, code: string, form: SignUpForm) {
  const errors: FieldError[] = [];
  const account = NewAccount.safeParse({
    name: form.name ?? '',
    email: form.email ?? '',
    username: form.username ?? '',
  });
  if (!account.success)
    for (const issue of account.error.issues) errors.push({ field: issue.path.join('.'), message: issue.message });
  const problem = passwordProblem(form.password ?? '', form.confirmation ?? '');
  if (problem) errors.push({ field: 'password', message: problem });
  if (account.success) {
    const { email, username } = account.data;
    const taken = await db.user.findMany({
      where: { OR: [{ email }, { username }] },
      select: { email: true, username: true },
    });
    if (taken.some((u) => u.email === email)) errors.push({ field: 'email', message: TAKEN.email });
    if (taken.some((u) => u.username === username)) errors.push({ field: 'username', message: TAKEN.username });
  }
  if (errors.length || !account.success) throw new ValidationError(errors);
  const passwordHash = await hashPassword(form.password!);
  const now = new Date();
  try {
    return await db.$transaction(async (tx) => {
      const user = await tx.user.create({ data: { ...account.data, passwordHash }, select: { id: true } });
      const invitation = await claimInvitation(tx, code, user.id, now);
      await tx.membership.create({
        data: { orgId: invitation.orgId, userId: user.id, role: invitation.role },
        select: { id: true },
      });
      return { userId: user.id, role: invitation.role, org: invitation.org };
    });
  } catch (error) {
    // Someone took the email or username between the check and the write.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
      const target = JSON.stringify(error.meta ?? {});
      const field = target.includes('username') ? 'username' : 'email';
      throw new ValidationError([{ field, message: TAKEN[field] }]);
    }
    throw error;
  }
}
