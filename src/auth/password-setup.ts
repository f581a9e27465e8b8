import { randomBytes } from 'node:crypto';
import type { Db } from '../db/client.js';
import { hashPassword } from './password.js';
import { hashToken } from './pat-token.js';

/** How long a password link works: a day is enough to pass it on, short enough to limit a leaked one. */
export const PASSWORD_LINK_TTL_MS = 24 * 3600 * 1000;
/** NIST SP 800-63B asks for at least 8; 12 leaves room for passphrases without allowing the weakest. */
export const PASSWORD_MIN_LENGTH = 12;
const PASSWORD_MAX_LENGTH = 256;

/**
 * A one-time link to set a password: 256 random bits in the URL, only their SHA-256 stored,
 * one live link per user (a new link replaces the old), single use, expiring after a day.
 */
export async function createPasswordLink(
  db: Db,
  userId: string,
  baseUrl: string,
  now = new Date(),
): Promise<{ url: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + PASSWORD_LINK_TTL_MS);
  const data = { tokenHash: hashToken(token), expiresAt, createdAt: now };
  await db.passwordSetupToken.upsert({ where: { userId }, create: { userId, ...data }, update: data });
  return { url: `${baseUrl}/set-password?token=${token}`, expiresAt };
}

/** The account a live link is for, or null (unknown, used or expired). */
export async function passwordLinkUser(db: Db, token: string, now = new Date()) {
  const link = await db.passwordSetupToken.findUnique({
    where: { tokenHash: hashToken(token) },
    select: { expiresAt: true, user: { select: { id: true, email: true } } },
  });
  return link && link.expiresAt > now ? link.user : null;
}

/** Why a password is refused, or null when it is acceptable. */
export function passwordProblem(password: string, confirmation: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH)
    return `The password must have at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `The password must have at most ${PASSWORD_MAX_LENGTH} characters.`;
  if (password !== confirmation) return 'The two passwords differ.';
  return null;
}

/**
 * Uses a link: sets the password and ends every session of the account, in one transaction
 * that deletes the link first, so of two submissions of one link only one can succeed.
 * Returns the user's email, or null when the link is unknown, used or expired.
 */
export async function usePasswordLink(
  db: Db,
  token: string,
  password: string,
  now = new Date(),
): Promise<string | null> {
  const passwordHash = await hashPassword(password);
  return db.$transaction(async (tx) => {
    const link = await tx.passwordSetupToken.findUnique({
      where: { tokenHash: hashToken(token) },
      select: { id: true, userId: true, expiresAt: true },
    });
    if (!link) return null;
    const { count } = await tx.passwordSetupToken.deleteMany({ where: { id: link.id } });
    if (count !== 1 || link.expiresAt <= now) return null;
    const user = await tx.user.update({ where: { id: link.userId }, data: { passwordHash }, select: { email: true } });
    await tx.session.deleteMany({ where: { userId: link.userId } });
    return user.email;
  });
}
